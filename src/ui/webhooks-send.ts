// What `svc webhooks send` prints for a person: what was posted, what came back, and the answer's first 4 kB.
import {DELIVERY_TIMEOUT_MS, FIRST_RETRY_S, RESPONSE_BODY_LIMIT_BYTES} from '../definitions.js';
import {STATUS_CODES} from 'node:http';
import type {Paint} from '../lib/output.js';
import type {SendWebhookResult} from '../services/webhooks/send.js';
import {bodyLines} from './delivery-detail.js';
import {sanitize} from './text.js';

/** "200 OK", "301 Moved Permanently (redirect not followed)", or the network error. */
export function answerLine(r: Pick<SendWebhookResult, 'status_code' | 'error'>): string {
  if (r.status_code === null) return r.error ?? 'no answer';
  const text = STATUS_CODES[r.status_code];
  const status = text ? `${r.status_code} ${text}` : String(r.status_code);
  return r.error ? `${status}: ${sanitize(r.error)}` : status;
}

export function renderSendResult(r: SendWebhookResult, paint: Paint): string {
  const mark = r.accepted ? paint('green', '✓') : paint('red', '✗');
  const lines = [
    `→ POST ${sanitize(r.url)}  ${sanitize(r.event_type)} ${sanitize(r.event_id)}  (${r.body_bytes} bytes, t=${r.signature_t})`,
    `${mark} ${answerLine(r)} in ${r.duration_ms} ms`,
  ];
  const body = bodyLines(r.response_body);
  if (body.length > 0) lines.push('', ...body);
  if (r.response_truncated)
    lines.push(paint('dim', `… (first ${RESPONSE_BODY_LIMIT_BYTES / 1024} kB shown)`));
  return lines.join('\n');
}

/** What to do when the receiver did not accept it; nothing when it did. */
export function sendHint(r: SendWebhookResult): string | undefined {
  if (r.accepted) return undefined;
  if (r.timed_out)
    return `The service gives a receiver ${DELIVERY_TIMEOUT_MS / 1000} s to answer; it would retry this delivery after ${FIRST_RETRY_S} s.`;
  if (r.status_code !== null && r.status_code >= 300 && r.status_code < 400) {
    return 'The service does not follow redirects: register the final URL (often https:// or a trailing slash).';
  }
  if (r.status_code === null)
    return 'Nothing answered: is the receiver running and listening on that address?';
  return 'The service counts any answer other than 2xx as a failure and retries it on its schedule.';
}
