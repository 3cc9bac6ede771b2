// The probe contract (docs/webhooks.md, "The probe contract"): `GET PROBE?event_id=<id>` answers 200
// {"applied": <count>}, how many times the receiver applied the event's effect. One reader of it for
// `svc webhooks test-receiver --race` and scenario files' `probe` expectations.
import type {Dispatcher} from 'undici';
import {describeNetworkError} from './deliver.js';
import {DELIVERY_TIMEOUT_MS, RESPONSE_BODY_LIMIT_BYTES} from './definitions.js';

export type ProbeAnswer = {applied: number} | {error: string};

/** The probe's count for one event, or what was wrong with its answer. */
export async function readProbe(probe: URL, eventId: string, dispatcher: Dispatcher): Promise<ProbeAnswer> {
  const {request} = await import('undici');
  const url = new URL(probe);
  url.searchParams.set('event_id', eventId);
  try {
    const r = await request(url, {
      method: 'GET',
      dispatcher,
      headersTimeout: DELIVERY_TIMEOUT_MS,
      bodyTimeout: DELIVERY_TIMEOUT_MS,
    });
    const text = (await r.body.text()).slice(0, RESPONSE_BODY_LIMIT_BYTES);
    const shown = text.replace(/\s+/g, ' ').trim().slice(0, 120);
    if (r.statusCode !== 200) return {error: `answered ${r.statusCode}${shown ? ` ${shown}` : ''}`};
    let applied: unknown;
    try {
      applied = (JSON.parse(text) as {applied?: unknown})?.applied;
    } catch {
      applied = undefined;
    }
    if (typeof applied !== 'number' || !Number.isSafeInteger(applied) || applied < 0) {
      return {error: `answered 200 ${shown || '(empty)'}, not {"applied": <count>}`};
    }
    return {applied};
  } catch (err) {
    return {error: describeNetworkError(err)};
  }
}
