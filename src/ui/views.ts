// What a person sees for each read command. Plain strings, no Ink: these commands must start fast.
import {colorEnabled, painter, type Style} from '../lib/output.js';
import type {ApiKey, Delivery, Org, WebhookEndpoint} from '../schemas/index.js';
import {type Column, renderTable} from './table.js';
import {loadMeasure, sanitize} from './text.js';
import {relativeTime} from './time.js';
import type {ViewOptions} from './view-options.js';
import {lastCodeText} from './delivery-detail.js';

const STATUS_STYLE: Record<string, Style> = {
  active: 'green',
  succeeded: 'green',
  pending: 'yellow',
  expired: 'gray',
  revoked: 'red',
  failed: 'red',
};

export function renderOrg(org: Org, view: ViewOptions): string {
  const rows: [string, string][] = [
    ['Name', org.name],
    ['ID', org.id],
    ['Created', `${org.created_at} (${relativeTime(org.created_at, view.nowMs)})`],
  ];
  return (
    rows.map(([label, value]) => `${view.paint('bold', label.padEnd(8))}  ${sanitize(value)}`).join('\n') +
    '\n'
  );
}

/** `: URL` without a closing period, so the address copies cleanly; `.` when it is not known. */
const at = (url: string | undefined) => (url ? `: ${url}` : '.');

export function renderKeys(keys: ApiKey[], view: ViewOptions): string {
  if (keys.length === 0) return `No API keys. Keys are created on the account page${at(view.accountUrl)}\n`;
  const columns: Column<ApiKey>[] = [
    {header: 'NAME', value: (k) => k.name, flexible: true},
    {header: 'PREFIX', value: (k) => `${k.prefix}…`},
    {header: 'STATUS', value: (k) => k.status, style: (k) => STATUS_STYLE[k.status]},
    {header: 'CREATED BY', value: (k) => k.created_by ?? '-', flexible: true, dropOrder: 2},
    {header: 'CREATED', value: (k) => relativeTime(k.created_at, view.nowMs), dropOrder: 1},
    {header: 'LAST USED', value: (k) => relativeTime(k.last_used_at, view.nowMs, 'never'), dropOrder: 3},
    {header: 'EXPIRES', value: (k) => expiry(k, view.nowMs), dropOrder: 4},
    {header: 'ID', value: (k) => k.id},
  ];
  return renderTable(columns, keys, view);
}

function expiry(key: ApiKey, nowMs: number): string {
  if (!key.expires_at) return 'never';
  return relativeTime(key.expires_at, nowMs);
}

export function renderWebhooks(endpoints: WebhookEndpoint[], view: ViewOptions): string {
  if (endpoints.length === 0)
    return `No webhook endpoints. Endpoints are added on the account page${at(view.accountUrl)}\n`;
  const columns: Column<WebhookEndpoint>[] = [
    {header: 'ID', value: (w) => w.id},
    {header: 'URL', value: (w) => w.url, flexible: true, minWidth: 20},
    {header: 'EVENTS', value: (w) => w.events.join(','), flexible: true, minWidth: 13, dropOrder: 3},
    {header: 'DESCRIPTION', value: (w) => w.description ?? '', flexible: true, minWidth: 12, dropOrder: 2},
    {header: 'CREATED', value: (w) => relativeTime(w.created_at, view.nowMs), dropOrder: 1},
  ];
  return renderTable(columns, endpoints, view);
}

/** Under the endpoints: the command that shows one's deliveries, with a real id so it runs as printed. */
export function webhooksListHint(
  endpoints: WebhookEndpoint[],
  svc: string,
  apiUrl?: string,
): string | undefined {
  const first = endpoints[0];
  if (!first) return undefined;
  const url = apiUrl === undefined ? '' : ` --api-url ${apiUrl}`;
  return `Deliveries of an endpoint: ${svc} webhooks deliveries ${first.id}${url}`;
}

export interface DeliveriesFilter {
  /** The --status the list was filtered by, so an empty list is not mistaken for no deliveries at all. */
  status?: string;
  /** The --event-type the list was filtered by. */
  eventType?: string;
  /** How many deliveries there were before filtering. */
  unfiltered?: number;
}

/** The filter flags as given (`--status failed --event-type sandbox.ready`), or empty. */
function filterText(filter: DeliveriesFilter): string {
  const parts: string[] = [];
  if (filter.status) parts.push(`--status ${filter.status}`);
  if (filter.eventType) parts.push(`--event-type ${filter.eventType}`);
  return parts.join(' ');
}

export function renderDeliveries(
  deliveries: Delivery[],
  view: ViewOptions,
  filter: DeliveriesFilter = {},
): string {
  if (deliveries.length === 0) {
    const flags = filterText(filter);
    if (flags && filter.unfiltered) {
      const n = filter.unfiltered === 1 ? '1 delivery' : `${filter.unfiltered} deliveries`;
      return `No delivery matches ${flags} (${n} in all); run it without ${filter.status && filter.eventType ? 'them' : 'it'} to see them all.\n`;
    }
    if (flags) return `No delivery matches ${flags}: this endpoint has no deliveries yet.\n`;
    return 'No deliveries yet.\n';
  }
  const columns: Column<Delivery>[] = [
    {header: 'STATUS', value: (d) => d.status, style: (d) => STATUS_STYLE[d.status]},
    {header: 'EVENT', value: (d) => d.event_type, flexible: true, minWidth: 13},
    {header: 'ATTEMPTS', value: (d) => String(d.attempts), dropOrder: 4},
    {
      header: 'LAST CODE',
      value: lastCodeText,
      dropOrder: 3,
    },
    {header: 'CREATED', value: (d) => relativeTime(d.created_at, view.nowMs), dropOrder: 2},
    {header: 'NEXT ATTEMPT', value: (d) => relativeTime(d.next_attempt_at, view.nowMs), dropOrder: 5},
    {header: 'ID', value: (d) => d.id},
    {header: 'EVENT ID', value: (d) => d.event_id, dropOrder: 1},
  ];
  return renderTable(columns, deliveries, view);
}

/** The start of `--watch`: a header and the table as it is now. Changes then follow it line by line. */
export function renderWatchStart(
  deliveries: Delivery[],
  view: ViewOptions,
  title: string,
  filter: DeliveriesFilter = {},
): string {
  return `${view.paint('bold', title)} · Ctrl-C to stop\n\n${renderDeliveries(deliveries, view, filter)}\n`;
}

/** One change seen by `--watch`, as a line that scrolls: time, status, event, attempts, last code, id. */
export function renderWatchChange(
  change: {change: 'new' | 'updated'; delivery: Delivery},
  view: ViewOptions,
): string {
  const d = change.delivery;
  const time = new Date(view.nowMs).toISOString().slice(11, 19);
  const status = view.paint(STATUS_STYLE[d.status] ?? 'bold', d.status.padEnd(9));
  const code = lastCodeText(d);
  const next =
    d.status === 'pending' && d.next_attempt_at
      ? `  next ${relativeTime(d.next_attempt_at, view.nowMs)}`
      : '';
  const what = change.change === 'new' ? 'new    ' : 'updated';
  return `${view.paint('dim', time)}  ${what}  ${status} ${sanitize(d.event_type).padEnd(16)} attempts ${String(d.attempts).padEnd(2)} last ${code.padEnd(3)}  ${d.id}${next}\n`;
}

/**
 * View settings for a real terminal: its width, colour unless NO_COLOR or not a TTY, and display widths
 * (loaded here, only for output meant for people).
 */
export async function terminalView(
  /** The command's stdout as BaseCommand's `show` describes it (TextView): a terminal or not, its width. */
  stdout: {isTTY?: boolean; columns?: number | undefined; env: NodeJS.ProcessEnv},
  /** The time relative times count from: the API's clock when known (see SvcClient.serverNowMs). */
  nowMs: number = Date.now(),
): Promise<ViewOptions> {
  return {
    paint: painter(colorEnabled(stdout, stdout.env)),
    width: stdout.isTTY ? (stdout.columns ?? 80) : undefined,
    nowMs,
    measure: await loadMeasure(),
  };
}
