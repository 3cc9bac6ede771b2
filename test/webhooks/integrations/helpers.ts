// A real emulator delivering signed events to a receiver on loopback, and the raw deliveries as they
// arrived, so a test can send one again (a replay) or change its body (a tampered one).
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import type {EventType} from '../../../src/schemas/index.js';
import type {WebhookEvent} from '../../../src/webhooks/index.js';

export interface RawDelivery {
  headers: Record<string, string>;
  body: Buffer;
}

export interface Recorded {
  /** Every request that reached the receiver, as sent. */
  raw: RawDelivery[];
  /** Every event the user's function was called with. */
  handled: WebhookEvent[];
}

export function newRecord(): Recorded {
  return {raw: [], handled: []};
}

export interface DeliveryRig {
  emulator: RunningEmulator;
  secret: string;
  /** Emits one event through the emulator and waits until the receiver answered it. */
  trigger(type: EventType): Promise<string>;
  /**
   * The raw deliveries received, at least `count` of them: those earlier tests made, or new ones, so that a test
   * replaying or tampering with one runs alone as well.
   */
  delivered(count: number): Promise<RawDelivery[]>;
  stop(): Promise<void>;
}

/** Keeps the Svc-* headers of a request, lower-cased, as a plain record. */
export function svcHeaders(get: (name: string) => string | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [
    'svc-signature',
    'svc-event-id',
    'svc-event-type',
    'svc-delivery-id',
    'svc-delivery-attempt',
  ]) {
    const value = get(name);
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

export async function startRig(url: string, record: Recorded): Promise<DeliveryRig> {
  const emulator = await startEmulator({port: 0, inMemory: true, allowLocalEndpoints: true});
  const hook = await emulator.control.createWebhook({
    url,
    events: ['sandbox.ready', 'sandbox.stopped', 'sandbox.error', 'sandbox.expired'],
  });
  const rig: DeliveryRig = {
    emulator,
    secret: hook.secret,
    async trigger(type) {
      const before = record.raw.length;
      const move = await emulator.control.trigger({type});
      const id = move.event?.id ?? '';
      // The attempt is recorded once the receiver has answered, which it does after handling the event.
      await emulator.control.waitForDelivery({event_id: id});
      if (record.raw.length <= before || !record.handled.some((e) => e.id === id))
        throw new Error(`the receiver answered ${id} without recording and handling it`);
      return id;
    },
    async delivered(count) {
      while (record.raw.length < count) await rig.trigger('sandbox.ready');
      return record.raw;
    },
    stop: () => emulator.stop(),
  };
  return rig;
}

/** Posts a recorded delivery again, optionally with another body, as an attacker or a retry would. */
export async function post(url: string, delivery: RawDelivery, body: Buffer | string = delivery.body) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {'content-type': 'application/json', ...delivery.headers},
    body,
  });
  const text = await res.text();
  try {
    return {status: res.status, body: JSON.parse(text) as Record<string, unknown>};
  } catch {
    throw new Error(`not JSON (${res.status}): ${text}`);
  }
}

/** The same bytes with one field changed: what a tampering proxy would send. */
export function tampered(delivery: RawDelivery): Buffer {
  const text = delivery.body.toString('utf8');
  const changed = text.replace(/"name":"[^"]*"/, '"name":"not what was signed"');
  if (changed === text) throw new Error('the body had no sandbox name to change');
  return Buffer.from(changed);
}
