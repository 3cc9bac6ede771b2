// One delivery for a person: its state, each attempt with what came back, and the event it carries. Plain
// strings (no Ink), shared by `svc webhooks deliveries show`, `svc emulator deliveries resend` and the TUI.
import {isLoopbackHost} from '../definitions.js';
import type {DeliveryAttempt} from '../schemas/emulator.js';
import type {Delivery} from '../schemas/index.js';
import {sanitize, sanitizeLines} from './text.js';
import {relativeTime} from './time.js';
import type {ViewOptions} from './view-options.js';

/** What an attempt got: the status code, or the network error when there was no answer. */
export function attemptOutcome(a: Pick<DeliveryAttempt, 'status_code' | 'error'>): string {
  if (a.status_code !== null && a.status_code !== 0)
    return a.error ? `${a.status_code} ${a.error}` : String(a.status_code);
  return a.error ?? 'no answer';
}

export function attemptSucceeded(a: Pick<DeliveryAttempt, 'status_code'>): boolean {
  return a.status_code !== null && a.status_code >= 200 && a.status_code <= 299;
}

/** "2031-05-01 12:00:05" in UTC: attempts are compared with each other, so absolute times read best. */
export function clockTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, 'Z');
}

/** When the next attempt comes: "in 2 minutes", or "due now" once its time has come (it is about to be made). */
export function nextAttemptText(iso: string | null, nowMs: number): string {
  if (!iso) return '-';
  const at = Date.parse(iso);
  return Number.isFinite(at) && at <= nowMs ? 'due now' : relativeTime(iso, nowMs);
}

/**
 * The last answer's code for a table cell: ERR when the last attempt got no answer (a network error, a
 * timeout), `-` only before the first attempt.
 */
export function lastCodeText(d: Pick<Delivery, 'attempts' | 'last_status_code'>): string {
  if (d.last_status_code !== null) return String(d.last_status_code);
  return d.attempts > 0 ? 'ERR' : '-';
}

/** Where the delivery stands, in one line: "pending · 2 attempts · next in 30 seconds". */
export function deliverySummary(d: Delivery, nowMs: number): string {
  const parts: string[] = [d.status, `${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`];
  if (d.last_status_code !== null) parts.push(`last answer ${d.last_status_code}`);
  if (d.status === 'pending' && d.next_attempt_at)
    parts.push(`next ${relativeTime(d.next_attempt_at, nowMs)}`);
  return parts.join(' · ');
}

/** The response body as lines to show under an attempt: control characters made visible, at most `maxLines`. */
export function bodyLines(body: string | null, maxLines = Number.POSITIVE_INFINITY): string[] {
  if (body === null || body === '') return [];
  const lines = body.replace(/\r\n?/g, '\n').split('\n').map(sanitize);
  while (lines.length > 0 && lines.at(-1)?.trim() === '') lines.pop();
  if (lines.length <= maxLines) return lines;
  return [...lines.slice(0, maxLines), `… ${lines.length - maxLines} more line(s)`];
}

/** The event as sent, pretty-printed, with its outside text made safe to show (sandbox names, last_error). */
export function prettyEvent(event: unknown): string {
  return sanitizeLines(typeof event === 'string' ? event : JSON.stringify(event, null, 2));
}

export interface ShownDeliveryView {
  delivery: Delivery;
  endpoint_id: string;
  event: unknown | null;
  attempts: DeliveryAttempt[] | null;
}

/**
 * Why a delivery shows no attempts: the service lists deliveries only; at a loopback address (an emulator's), no
 * running emulator serves it.
 */
export function withoutDetail(apiUrl: string): string {
  return isLoopbackHost(new URL(apiUrl).hostname)
    ? `no running emulator serves ${apiUrl}`
    : `${apiUrl} lists deliveries only`;
}

export function renderDeliveryDetail(shown: ShownDeliveryView, view: ViewOptions, apiUrl: string): string {
  const {paint} = view;
  const d = shown.delivery;
  const statusStyle = d.status === 'succeeded' ? 'green' : d.status === 'failed' ? 'red' : 'yellow';
  const label = (text: string) => paint('bold', text.padEnd(9));
  const out: string[] = [
    `${label('Delivery')} ${d.id}  ${paint(statusStyle, d.status)}${deliverySummary(d, view.nowMs).slice(d.status.length)}`,
    `${label('Event')} ${sanitize(d.event_type)}  ${d.event_id}`,
    `${label('Endpoint')} ${shown.endpoint_id}`,
    `${label('Created')} ${clockTime(d.created_at)} (${relativeTime(d.created_at, view.nowMs)})`,
  ];
  if (shown.attempts === null) {
    out.push(
      '',
      paint('dim', `Attempt detail and the event body come from the emulator; ${withoutDetail(apiUrl)}.`),
    );
    return `${out.join('\n')}\n`;
  }
  out.push('', paint('bold', `Attempts (${shown.attempts.length})`));
  if (shown.attempts.length === 0) out.push(paint('dim', '  none yet'));
  for (const a of shown.attempts) {
    const outcome = attemptOutcome(a);
    const trigger =
      a.trigger === 'manual'
        ? paint('cyan', 'manual   ')
        : a.trigger === 'chaos'
          ? paint('yellow', 'chaos    ')
          : 'scheduled';
    out.push(
      `  #${String(a.attempt).padEnd(3)} ${clockTime(a.started_at)}  ${trigger}  ${paint(
        attemptSucceeded(a) ? 'green' : 'red',
        sanitize(outcome),
      )}  ${a.duration_ms} ms${a.signature_t === null ? '' : paint('dim', `  t=${a.signature_t}`)}`,
    );
    for (const line of bodyLines(a.response_body)) out.push(`        ${paint('dim', '│')} ${line}`);
  }
  out.push('', paint('bold', 'Event body'), prettyEvent(shown.event));
  return `${out.join('\n')}\n`;
}
