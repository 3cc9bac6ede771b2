// What a person sees for each read command. Plain strings, no Ink: these commands must start fast.
import {colorEnabled, type Paint, painter, type Style} from '../lib/output.js';
import type {ApiKey, Delivery, Org, WebhookEndpoint} from '../schemas/index.js';
import {type Column, renderTable} from './table.js';
import {sanitize} from './text.js';
import {relativeTime} from './time.js';

export interface ViewOptions {
  paint: Paint;
  /** Terminal width, or undefined when output is not a terminal. */
  width?: number;
  nowMs: number;
}

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

export function renderKeys(keys: ApiKey[], view: ViewOptions): string {
  if (keys.length === 0) return 'No API keys. Keys are created on the account page.\n';
  const columns: Column<ApiKey>[] = [
    {header: 'NAME', value: (k) => k.name, flexible: true},
    {header: 'PREFIX', value: (k) => `${k.prefix}…`},
    {header: 'STATUS', value: (k) => k.status, style: (k) => STATUS_STYLE[k.status]},
    {header: 'CREATED BY', value: (k) => k.created_by ?? '-', flexible: true},
    {header: 'CREATED', value: (k) => relativeTime(k.created_at, view.nowMs)},
    {header: 'LAST USED', value: (k) => relativeTime(k.last_used_at, view.nowMs, 'never')},
    {header: 'EXPIRES', value: (k) => expiry(k, view.nowMs)},
    {header: 'ID', value: (k) => k.id},
  ];
  return renderTable(columns, keys, view);
}

function expiry(key: ApiKey, nowMs: number): string {
  if (!key.expires_at) return 'never';
  return relativeTime(key.expires_at, nowMs);
}

export function renderWebhooks(endpoints: WebhookEndpoint[], view: ViewOptions): string {
  if (endpoints.length === 0) return 'No webhook endpoints. Endpoints are added on the account page.\n';
  const columns: Column<WebhookEndpoint>[] = [
    {header: 'ID', value: (w) => w.id},
    {header: 'URL', value: (w) => w.url, flexible: true, minWidth: 20},
    {header: 'EVENTS', value: (w) => w.events.join(','), flexible: true},
    {header: 'DESCRIPTION', value: (w) => w.description ?? '', flexible: true},
    {header: 'CREATED', value: (w) => relativeTime(w.created_at, view.nowMs)},
  ];
  return renderTable(columns, endpoints, view);
}

export function renderDeliveries(deliveries: Delivery[], view: ViewOptions): string {
  if (deliveries.length === 0) return 'No deliveries yet.\n';
  const columns: Column<Delivery>[] = [
    {header: 'STATUS', value: (d) => d.status, style: (d) => STATUS_STYLE[d.status]},
    {header: 'EVENT', value: (d) => d.event_type, flexible: true},
    {header: 'ATTEMPTS', value: (d) => String(d.attempts)},
    {header: 'LAST CODE', value: (d) => (d.last_status_code === null ? '-' : String(d.last_status_code))},
    {header: 'CREATED', value: (d) => relativeTime(d.created_at, view.nowMs)},
    {header: 'NEXT ATTEMPT', value: (d) => relativeTime(d.next_attempt_at, view.nowMs)},
    {header: 'ID', value: (d) => d.id},
    {header: 'EVENT ID', value: (d) => d.event_id, flexible: true},
  ];
  return renderTable(columns, deliveries, view);
}

/** One redraw of `--watch`: clears a terminal (a pipe gets frames one after another), then a header and the table. */
export function renderWatchFrame(
  deliveries: Delivery[],
  view: ViewOptions,
  frame: {title: string; clear: boolean; error?: string},
): string {
  const clear = frame.clear ? '\u001B[H\u001B[2J' : '\n';
  const time = new Date(view.nowMs).toLocaleTimeString();
  const note = frame.error ? view.paint('red', `  (last poll failed: ${sanitize(frame.error)})`) : '';
  return `${clear}${frame.title} · ${time} · Ctrl-C to stop${note}\n\n${renderDeliveries(deliveries, view)}`;
}

/** View settings for a real terminal: its width, and colour unless NO_COLOR or not a TTY. */
export function terminalView(
  stdout: {isTTY?: boolean; columns?: number},
  env: NodeJS.ProcessEnv,
  /** The time relative times count from: the API's clock when known (see SvcClient.serverNowMs). */
  nowMs: number = Date.now(),
): ViewOptions {
  return {
    paint: painter(colorEnabled(stdout, env)),
    width: stdout.isTTY ? (stdout.columns ?? 80) : undefined,
    nowMs,
  };
}
