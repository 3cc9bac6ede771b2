// A stand-in for the terminal that Ink writes whole frames to (its debug mode): each frame is compared with the
// one on screen and only the lines that differ are rewritten, in place, inside one synchronized update. Nothing
// is erased and redrawn, so a refresh cannot flicker; only a resize repaints the whole screen.
import {EventEmitter} from 'node:events';

const SYNC_START = '\u001B[?2026h';
const SYNC_END = '\u001B[?2026l';
const HIDE_CURSOR = '\u001B[?25l';
const SHOW_CURSOR = '\u001B[?25h';
const CLEAR_SCREEN = '\u001B[2J';
const ERASE_TO_END_OF_LINE = '\u001B[K';
const moveTo = (row: number) => `\u001B[${row};1H`;

export interface Terminal {
  columns?: number;
  rows?: number;
  write(data: string): unknown;
  on(event: 'resize', listener: () => void): unknown;
  off(event: 'resize', listener: () => void): unknown;
}

export class FrameWriter extends EventEmitter {
  readonly isTTY = true;
  #shown: string[] = [];
  readonly #terminal: Terminal;
  readonly #onResize = () => {
    // The terminal may have re-wrapped what was there: start from a blank screen.
    this.#shown = [];
    this.#terminal.write(CLEAR_SCREEN);
    this.emit('resize');
  };

  constructor(terminal: Terminal) {
    super();
    this.#terminal = terminal;
    terminal.on('resize', this.#onResize);
    terminal.write(HIDE_CURSOR);
  }

  get columns(): number {
    return this.#terminal.columns || 80;
  }

  get rows(): number {
    return this.#terminal.rows || 24;
  }

  /** One whole frame from Ink. */
  write(frame: string): boolean {
    const lines = frame.replace(/\n$/, '').split('\n').slice(0, this.rows);
    let out = '';
    const count = Math.max(lines.length, this.#shown.length);
    for (let i = 0; i < count; i++) {
      const line = lines[i] ?? '';
      if (line === this.#shown[i]) continue;
      out += `${moveTo(i + 1)}${line}${ERASE_TO_END_OF_LINE}`;
    }
    this.#shown = lines;
    if (out) this.#terminal.write(`${SYNC_START}${out}${SYNC_END}`);
    return true;
  }

  /** Stops following the terminal and gives its cursor back. */
  close(): void {
    this.#terminal.off('resize', this.#onResize);
    this.#terminal.write(SHOW_CURSOR);
  }
}
