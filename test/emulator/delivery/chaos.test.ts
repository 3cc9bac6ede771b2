// Delivery chaos, judged by what a real receiver on loopback gets from a real emulator: the same seed gives the
// same sequence (so a failure can be replayed), duplicates carry the event id of the event they repeat, and
// every attempt chaos made is marked so in the delivery's record.
import {describe, expect, it} from 'vitest';
import {startEmulator} from '../../../src/emulator/index.js';
import {
  ChaosDice,
  type ChaosSettings,
  ChaosSettingsError,
  parseChaosSpec,
} from '../../../src/emulator/delivery/chaos.js';
import {EmulatorControlError} from '../../../src/client/emulator-control.js';
import {type Receiver, startReceiver} from './helpers.js';

const EVENTS = 12;
const SETTINGS: ChaosSettings = {
  duplicate: 0.3,
  reorder: 0.3,
  delay_min_ms: 0,
  delay_max_ms: 5_000,
  seed: 42,
};

interface Run {
  /** Event indexes (in the order they were triggered) in the order the receiver got them. */
  sequence: number[];
  received: {eventId: string; attempt: string}[];
  triggers: string[][];
  eventIds: string[];
}

/** Triggers EVENTS events on a manual clock, lets every held delivery come due, and records what arrived. */
async function runWith(options: {global?: ChaosSettings; perEndpoint?: ChaosSettings}): Promise<Run> {
  const receiver: Receiver = await startReceiver();
  const emu = await startEmulator({
    inMemory: true,
    port: 0,
    clock: 'manual',
    allowLocalEndpoints: true,
    chaos: options.global,
  });
  try {
    const hook = await emu.control.createWebhook({url: `${receiver.url}/hooks`, events: ['sandbox.ready']});
    if (options.perEndpoint) await emu.control.setChaos(hook.id, options.perEndpoint);
    const eventIds: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const move = await emu.control.trigger({type: 'sandbox.ready'});
      eventIds.push(move.event?.id as string);
    }
    const dice = new ChaosDice((options.global ?? options.perEndpoint) as ChaosSettings);
    const expectedRequests = Array.from({length: EVENTS}, () => dice.next()).reduce(
      (n, d) => n + (d.duplicate ? 2 : 1),
      0,
    );
    // Every first attempt decided (made, or moved later) before the clock moves, or one decided after the
    // move would be held past it: the engine settles once everything due now is attempted or moved, and recorded.
    await emu.context.engine.settle();
    const {rows} = await emu.db.query<{n: number}>(
      `SELECT count(*)::int AS n FROM deliveries WHERE attempts = 0 AND next_attempt_at <= $1`,
      [emu.clock.now()],
    );
    expect(rows[0]?.n).toBe(0);
    // Past the longest delay and hold: everything held back comes due at once, in the order chaos chose.
    await emu.control.advanceClock('20s');
    await (receiver as Receiver).received(expectedRequests);
    // The receiver has the last requests before the emulator has recorded their answers: settled first.
    await emu.context.engine.settle();
    const received = receiver.requests.map((r) => ({
      eventId: String(r.headers['svc-event-id']),
      attempt: String(r.headers['svc-delivery-attempt']),
    }));
    const triggers: string[][] = [];
    for (const eventId of eventIds) {
      const {rows} = await emu.db.query<{id: string}>('SELECT id FROM deliveries WHERE event_id = $1', [
        eventId,
      ]);
      const detail = await emu.control.delivery(rows[0]?.id as string);
      triggers.push(detail.attempts.map((a) => a.trigger));
    }
    return {
      sequence: received.map((r) => eventIds.indexOf(r.eventId)),
      received,
      triggers,
      eventIds,
    };
  } finally {
    await emu.stop();
    await receiver.close();
  }
}

describe('delivery chaos', {timeout: 60_000}, () => {
  it('makes the same sequence from the same seed: delays, overtaking and duplicates alike', async () => {
    const first = await runWith({global: SETTINGS});
    const again = await runWith({global: SETTINGS});
    expect(again.sequence).toEqual(first.sequence);
    // And it is the sequence the seed says: each event when its delay (and hold) ends, a duplicate right after.
    const dice = new ChaosDice(SETTINGS);
    const decisions = Array.from({length: EVENTS}, (_, i) => ({i, ...dice.next()}));
    const predicted = [...decisions]
      .sort((a, b) => a.postponeMs - b.postponeMs || a.i - b.i)
      .flatMap((d) => (d.duplicate ? [d.i, d.i] : [d.i]));
    expect(first.sequence).toEqual(predicted);
    // Chaos did something: events overtook others, and some came twice.
    expect(first.sequence).not.toEqual([...first.sequence].sort((a, b) => a - b));
    expect(new Set(first.sequence).size).toBe(EVENTS);
    expect(first.sequence.length).toBeGreaterThan(EVENTS);

    const other = await runWith({global: {...SETTINGS, seed: 7}});
    expect(other.sequence).not.toEqual(first.sequence);
  });

  it('sends a duplicate with the event id of the event it repeats, as the next attempt, marked chaos', async () => {
    const run = await runWith({perEndpoint: {...SETTINGS, duplicate: 1, reorder: 0, delay_max_ms: 0}});
    expect(run.sequence).toEqual(Array.from({length: EVENTS}, (_, i) => [i, i]).flat());
    for (let i = 0; i < run.received.length; i += 2) {
      expect(run.received[i + 1]?.eventId).toBe(run.received[i]?.eventId);
      expect([run.received[i]?.attempt, run.received[i + 1]?.attempt]).toEqual(['1', '2']);
    }
    for (const triggers of run.triggers) expect(triggers).toEqual(['scheduled', 'chaos']);
  });

  it('marks a held-back attempt chaos; one sent at once stays scheduled', async () => {
    const run = await runWith({global: {...SETTINGS, duplicate: 0}});
    const dice = new ChaosDice({...SETTINGS, duplicate: 0});
    for (const triggers of run.triggers) {
      const decision = dice.next();
      expect(triggers).toEqual([decision.postponeMs > 0 ? 'chaos' : 'scheduled']);
    }
  });
});

describe('chaos settings', () => {
  it('reads the flag form, with the unit on either end of the delay', () => {
    expect(parseChaosSpec('duplicate=0.2,reorder=0.3,delay=0-5s,seed=42')).toEqual({
      duplicate: 0.2,
      reorder: 0.3,
      delay_min_ms: 0,
      delay_max_ms: 5_000,
      seed: 42,
    });
    expect(parseChaosSpec('delay=250ms-2s')).toMatchObject({
      delay_min_ms: 250,
      delay_max_ms: 2_000,
      duplicate: 0,
    });
  });

  it.each([
    ['duplicate=1.5', /duplicate must be a number from 0 to 1/],
    ['reorder=often', /reorder needs a number/],
    ['delay=5-1s', /ends before it starts/],
    ['delay=0-2m', /delay=0-2m is longer than chaos delays go: at most 60s, e.g. delay=0-60s/],
    ['delay=0-2h', /delay=0-2h is longer than chaos delays go: at most 60s/],
    ['delay=soon', /delay=soon is not a delay: give MIN-MAX in ms, s or m, at most 60s, e.g. delay=0-5s/],
    ['chaos=yes', /unknown chaos option "chaos"/],
    ['seed=-1', /seed needs a number/],
  ])('refuses %s with a message saying what to write', (spec, message) => {
    expect(() => parseChaosSpec(spec)).toThrow(ChaosSettingsError);
    expect(() => parseChaosSpec(spec)).toThrow(message);
  });

  it('the control route refuses bad settings and unknown endpoints with 400 and 404', async () => {
    const emu = await startEmulator({inMemory: true, port: 0, allowLocalEndpoints: true});
    try {
      const hook = await emu.control.createWebhook({
        url: 'http://127.0.0.1:9/hooks',
        events: ['sandbox.ready'],
      });
      const bad = await emu.control.setChaos(hook.id, {...SETTINGS, duplicate: 2}).catch((e: unknown) => e);
      expect(bad).toBeInstanceOf(EmulatorControlError);
      expect(bad).toMatchObject({status: 400, code: 'invalid_request'});
      const unknown = await emu.control.getChaos(`we_${'0'.repeat(24)}`).catch((e: unknown) => e);
      expect(unknown).toMatchObject({status: 404, code: 'not_found'});
      expect(await emu.control.setChaos(hook.id, SETTINGS)).toEqual({
        endpoint_id: hook.id,
        chaos: SETTINGS,
        source: 'endpoint',
      });
      expect(await emu.control.setChaos(hook.id, null)).toEqual({
        endpoint_id: hook.id,
        chaos: null,
        source: 'none',
      });
    } finally {
      await emu.stop();
    }
  });
});
