// The terminal around the browser: its alternate screen, and a first frame painted before Ink has loaded, so a
// person sees the browser at once. Plain strings: this runs in the CLI bundle, before any import of Ink.
import type {WebhookEndpoint} from '../../schemas/index.js';
import {sanitize, truncate} from '../text.js';
import {endpointCells, endpointColumnsText, showsHealth} from './layout.js';

const ENTER_ALTERNATE_SCREEN = '\u001B[?1049h\u001B[H\u001B[2J\u001B[?25l';
const LEAVE_ALTERNATE_SCREEN = '\u001B[?25h\u001B[?1049l';

export interface ScreenTerminal {
  columns?: number;
  rows?: number;
  write(data: string): unknown;
}

/** Switches to the alternate screen and paints the endpoints screen's frame, still loading. */
export function enterScreen(terminal: ScreenTerminal, where: {apiUrl: string; emulator: boolean}): void {
  const columns = terminal.columns || 80;
  const rows = terminal.rows || 24;
  const right = 'loading…';
  const left = truncate(
    `svc Endpoints · ${sanitize(where.apiUrl)}${where.emulator ? ' (emulator)' : ''}`,
    Math.max(columns - right.length - 1, 1),
  );
  const header = `${left}${' '.repeat(Math.max(columns - Array.from(left).length - right.length, 1))}${right}`;
  const keys = truncate('↑↓/jk move · enter open · / filter · ? help · q quit', columns);
  terminal.write(
    `${ENTER_ALTERNATE_SCREEN}\u001B[1;1H${header}\u001B[3;1HLoading…\u001B[${rows};1H${keys}\u001B[1;1H`,
  );
}

/**
 * The endpoints, painted into that first frame as the browser will show them (first row selected), when they
 * arrive before Ink has loaded: the first data a person sees does not wait for the UI library. Ink's first
 * frame then replaces each line, the same text with its colours.
 */
export function paintEndpoints(
  terminal: ScreenTerminal,
  endpoints: readonly WebhookEndpoint[],
  options: {health?: boolean} = {},
): void {
  if (endpoints.length === 0) return;
  const columns = terminal.columns || 80;
  const rows = terminal.rows || 24;
  const body = Math.max(rows - 4, 1);
  // The health column, where the browser will show one, is there already (its cells still unknown).
  const health = showsHealth(columns, options.health ?? false);
  let out = `\u001B[2;1H${truncate(endpointColumnsText(columns, health), columns)}\u001B[K`;
  endpoints.slice(0, body).forEach((e, i) => {
    const c = endpointCells(e, columns, health);
    const line = `${i === 0 ? '> ' : '  '}${c.id}  ${c.url}  ${c.events}${c.health}${c.description}`;
    out += `\u001B[${i + 3};1H${truncate(line, columns)}\u001B[K`;
  });
  terminal.write(`${out}\u001B[1;1H`);
}

export function leaveScreen(terminal: ScreenTerminal): void {
  terminal.write(LEAVE_ALTERNATE_SCREEN);
}
