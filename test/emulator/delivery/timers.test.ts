// The worker's real-time waits all go through the timers it is given: a test that fakes them decides when the
// worker looks again and what time its leases carry, without waiting for either.
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest';
import {manualClock} from '../../../src/emulator/clock.js';
import type {Database} from '../../../src/emulator/db/database.js';
import type {Timers} from '../../../src/emulator/delivery/timers.js';
import {DeliveryWorker} from '../../../src/emulator/delivery/worker.js';
import {createVault, type Vault} from '../../../src/emulator/vault.js';
import {
  emitReadyEvents,
  openTestDb,
  type Receiver,
  resetDb,
  seedEndpoint,
  seedOrg,
  startReceiver,
  testVaultKey,
  waitFor,
} from './helpers.js';

const START = new Date('2030-01-01T00:00:00.000Z');

/** Timers that fire only when the test moves them. */
function fakeTimers(startMs: number) {
  let now = startMs;
  const waiting: {at: number; ms: number; fn: () => void; settled: boolean}[] = [];
  const timers: Timers = {
    now: () => now,
    setTimeout(fn, ms) {
      const entry = {at: now + ms, ms, fn, settled: false};
      waiting.push(entry);
      return () => {
        entry.settled = true;
      };
    },
  };
  return {
    timers,
    /** The waits asked for and neither run nor cancelled. */
    pending: () => waiting.filter((w) => !w.settled).map((w) => w.ms),
    advance(ms: number) {
      now += ms;
      for (const w of waiting.filter((x) => !x.settled && x.at <= now)) {
        w.settled = true;
        w.fn();
      }
    },
  };
}

let db: Database;
let vault: Vault;
let worker: DeliveryWorker | undefined;
let receiver: Receiver | undefined;

beforeAll(async () => {
  db = await openTestDb();
  vault = createVault(testVaultKey());
});
afterAll(async () => {
  await db.close();
});
beforeEach(async () => {
  await resetDb(db);
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await receiver?.close();
  receiver = undefined;
});

async function seed(respond?: Parameters<typeof startReceiver>[0]) {
  receiver = await startReceiver(respond);
  const orgId = await seedOrg(db, START);
  await seedEndpoint(db, vault, {orgId, url: `${receiver.url}/hooks`, events: ['sandbox.ready'], now: START});
  return orgId;
}

describe('the worker’s timers', () => {
  it('sleeps on them: work written without a word is taken when the fake sleep ends, not before', async () => {
    const orgId = await seed();
    const fake = fakeTimers(START.getTime());
    worker = new DeliveryWorker({
      db,
      clock: manualClock(START),
      vault,
      allowLocalEndpoints: true,
      timers: fake.timers,
      idleMs: 5_000,
    });
    worker.start();
    await worker.settled();
    // Polled: the fake timers' queue is what is under test, and scheduling a timer announces nothing.
    await waitFor(() => fake.pending().includes(5_000));

    // Due now on the emulator clock, but nobody tells the worker: it sleeps until its timer fires.
    await emitReadyEvents(db, {orgId, start: new Date(START.getTime() - 10_000), count: 1});
    expect(receiver?.requests).toHaveLength(0);
    fake.advance(5_000);
    await (receiver as Receiver).received(1);
  });

  it('dates the leases of a shared database by them', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const orgId = await seed((_q, res) => {
      void held.then(() => res.end('ok'));
    });
    const fake = fakeTimers(Date.UTC(2031, 0, 1));
    worker = new DeliveryWorker({
      db,
      clock: manualClock(START),
      vault,
      allowLocalEndpoints: true,
      timers: fake.timers,
      leaseMs: 60_000,
    });
    await emitReadyEvents(db, {orgId, start: new Date(START.getTime() - 10_000), count: 1});
    worker.start();
    await (receiver as Receiver).received(1);
    const lease = (await db.query<{locked_until: Date}>('SELECT locked_until FROM deliveries')).rows[0];
    expect(lease?.locked_until).toEqual(new Date(Date.UTC(2031, 0, 1) + 60_000));
    release();
    await worker.settled();
    expect((await db.query<{status: string}>('SELECT status FROM deliveries')).rows[0]?.status).toBe(
      'succeeded',
    );
  });
});
