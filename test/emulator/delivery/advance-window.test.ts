// An advance runs everything that falls due in its window: one move of a manual clock (the emulator's, or an
// org's own) makes, in order, every attempt that falls due before its new time, each at its own scheduled instant
// (its recorded time and, on the emulator's signature clock, its `t`), and `settle` waits for all of them.
// Backends: which attempts fall due in a move is one SQL claim over times, and each database orders them itself.
import {afterEach, expect, it} from 'vitest';
import {RETRY_WAITS_MS} from '../../../src/definitions.js';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {verifySignature} from '../../../src/webhooks/index.js';
import {EMULATOR_BACKENDS} from '../../helpers/emulator-backends.js';
import {describeEachBackend} from '../../helpers/requirements.js';
import {answer, type Receiver, startReceiver} from './helpers.js';

const START = new Date('2031-03-01T09:00:00.000Z');
const DAY_MS = 86_400_000;

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** The instants of a delivery's nine scheduled attempts, the first made at `firstMs`. */
function scheduleFrom(firstMs: number): string[] {
  const instants = [firstMs];
  for (const wait of RETRY_WAITS_MS) instants.push((instants.at(-1) as number) + wait);
  return instants.map((ms) => new Date(ms).toISOString());
}

/** The `t` each request to the receiver was signed at, in the order they arrived. */
const signedAt = (r: Receiver) =>
  r.requests.map((q) => Number(/t=(\d+)/.exec(String(q.headers['svc-signature']))?.[1]));

describeEachBackend(EMULATOR_BACKENDS, 'an advance runs every attempt in its window ($name)', (backend) => {
  async function emulator(): Promise<RunningEmulator> {
    const storage = await backend.options();
    const emu = await startEmulator({
      ...storage.options,
      port: 0,
      clock: 'manual',
      clockStart: START,
      signatureClock: 'emulator',
      allowLocalEndpoints: true,
    });
    cleanups.push(storage.dispose, () => emu.stop());
    return emu;
  }
  async function failing(): Promise<Receiver> {
    const r = await startReceiver(answer(500, 'not yet'));
    cleanups.push(() => r.close());
    return r;
  }

  it('walks a delivery its receiver always refuses through all nine attempts to failed in one advance of 1d', async () => {
    const emu = await emulator();
    const receiver = await failing();
    const webhook = await emu.control.createWebhook({url: receiver.url, events: ['sandbox.error']});
    const {event} = await emu.control.trigger({type: 'sandbox.error'});
    const first = await emu.control.waitForDelivery({event_id: event?.id as string});
    expect(first.attempts).toHaveLength(1);

    const moved = await emu.control.advanceClock('1d', {settle: true});
    expect(moved.now).toBe(new Date(START.getTime() + DAY_MS).toISOString());

    const detail = await emu.control.delivery(first.delivery.id);
    expect(detail.delivery.status).toBe('failed');
    expect(detail.delivery.next_attempt_at).toBeNull();
    // Each attempt at its own instant: the first, then 30 s, 2 min, 10 min, ... after the one before.
    const instants = scheduleFrom(START.getTime());
    expect(detail.attempts.map((a) => a.started_at)).toEqual(instants);
    expect(detail.attempts.map((a) => a.signature_t)).toEqual(
      instants.map((at) => Math.floor(Date.parse(at) / 1000)),
    );
    expect(detail.attempts.map((a) => a.trigger)).toEqual(Array(9).fill('scheduled'));
    expect(detail.delivery.last_attempt_at).toBe(instants[8]);
    // The receiver got the nine, in order, each signed at its instant and verifiable there.
    expect(receiver.requests.map((q) => q.headers['svc-delivery-attempt'])).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
    ]);
    for (const [i, q] of receiver.requests.entries()) {
      const t = signedAt(receiver)[i] as number;
      expect(t).toBe(Math.floor(Date.parse(instants[i] as string) / 1000));
      expect(() =>
        verifySignature({
          secret: webhook.secret,
          header: String(q.headers['svc-signature']),
          payload: q.body.toString('utf8'),
          now: t,
        }),
      ).not.toThrow();
    }
  });

  it("does the same on an org's own clock, and no other org's delivery moves", async () => {
    const emu = await emulator();
    const [a, b] = await Promise.all([
      emu.control.createOrg({name: 'walked'}),
      emu.control.createOrg({name: 'left alone'}),
    ]);
    const [ra, rb] = await Promise.all([failing(), failing()]);
    await emu.control.createWebhook({url: ra.url, events: ['sandbox.error'], org_id: a.id});
    await emu.control.createWebhook({url: rb.url, events: ['sandbox.error'], org_id: b.id});
    const ea = await emu.control.trigger({type: 'sandbox.error', org_id: a.id});
    const eb = await emu.control.trigger({type: 'sandbox.error', org_id: b.id});
    const firstA = await emu.control.waitForDelivery({event_id: ea.event?.id as string});
    const firstB = await emu.control.waitForDelivery({event_id: eb.event?.id as string});

    await emu.control.advanceClock('1d', {org: a.id, settle: true});
    const afterA = await emu.control.delivery(firstA.delivery.id);
    expect(afterA.delivery.status).toBe('failed');
    expect(afterA.attempts.map((x) => x.started_at)).toEqual(scheduleFrom(START.getTime()));
    const afterB = await emu.control.delivery(firstB.delivery.id);
    expect(afterB.attempts).toHaveLength(1);
    expect(rb.requests).toHaveLength(1);
  });

  it("keeps an endpoint's order: a retry that falls due in the window goes before a later delivery", async () => {
    const emu = await emulator();
    const receiver = await failing();
    await emu.control.createWebhook({url: receiver.url, events: ['sandbox.error']});
    const x = await emu.control.trigger({type: 'sandbox.error'});
    await emu.control.waitForDelivery({event_id: x.event?.id as string});
    // 4 min 30 s: x's second and third attempts (30 s, 2 min 30 s); its fourth falls due at 12 min 30 s.
    await emu.control.advanceClock('270s', {settle: true});
    const y = await emu.control.trigger({type: 'sandbox.error'});
    await emu.control.waitForDelivery({event_id: y.event?.id as string});
    expect(receiver.requests).toHaveLength(4);

    // y's second attempt (at 5 min) is due before x's fourth, and y's third (7 min) too: the retry comes first.
    await emu.control.advanceClock('1d', {settle: true});
    expect(receiver.requests).toHaveLength(18);
    const times = signedAt(receiver);
    expect(times).toEqual([...times].sort((p, q) => p - q));
    const of = (id: string | undefined) =>
      receiver.requests
        .filter((q) => q.headers['svc-event-id'] === id)
        .map((q) => q.headers['svc-delivery-attempt']);
    expect(of(x.event?.id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(of(y.event?.id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    const yDelivery = await emu.control.waitForDelivery({event_id: y.event?.id as string});
    expect(yDelivery.attempts.map((a) => a.started_at)).toEqual(scheduleFrom(START.getTime() + 270_000));
  });
});
