// The worker's real-time waits all go through the timers it is given: a test that fakes them decides when the
// worker looks again and what time its leases carry, without waiting for either. A scaled clock can run on the same
// fake time, so how late an attempt is made on it is a fact of the test, not of the machine's load.
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest';
import {RETRY_WAITS_MS} from '../../../src/definitions.js';
import {HOLD_LIMIT_MS, manualClock, scaledClock} from '../../../src/emulator/clock.js';
import type {Database} from '../../../src/emulator/db/database.js';
import type {Timers} from '../../../src/emulator/delivery/timers.js';
import {DeliveryWorker} from '../../../src/emulator/delivery/worker.js';
import {createVault, type Vault} from '../../../src/emulator/vault.js';
import {
  answer,
  emitReadyEvents,
  openTestDb,
  type Receiver,
  type Responder,
  resetDb,
  seedEndpoint,
  seedOrg,
  startReceiver,
  testVaultKey,
} from './helpers.js';

const START = new Date('2030-01-01T00:00:00.000Z');

/** Timers that fire only when the test moves them. */
function fakeTimers(startMs: number) {
  let now = startMs;
  const waiting: {at: number; ms: number; fn: () => void; settled: boolean}[] = [];
  /** Told of each wait asked for. */
  const askedFor = new Set<(ms: number) => void>();
  const pending = () => waiting.filter((w) => !w.settled).map((w) => w.ms);
  const timers: Timers = {
    now: () => now,
    setTimeout(fn, ms) {
      const entry = {at: now + ms, ms, fn, settled: false};
      waiting.push(entry);
      for (const told of [...askedFor]) told(ms);
      return () => {
        entry.settled = true;
      };
    },
  };
  return {
    timers,
    /** The waits asked for and neither run nor cancelled. */
    pending,
    /** Resolves once a wait of `ms` is pending: at once, or as it is asked for. */
    waitingFor(ms: number): Promise<void> {
      if (pending().includes(ms)) return Promise.resolve();
      return new Promise((resolve) => {
        const told = (asked: number) => {
          if (asked !== ms) return;
          askedFor.delete(told);
          resolve();
        };
        askedFor.add(told);
      });
    },
    advance(ms: number) {
      now += ms;
      for (const w of waiting.filter((x) => !x.settled && x.at <= now)) {
        w.settled = true;
        w.fn();
      }
    },
  };
}

/**
 * The database as if each of its statements ran for `ms` of the fake time: `elapse` moves that time as a statement
 * starts. `busy` says whether a statement is running now.
 */
function slowDatabase(inner: Database, ms: number, elapse: (ms: number) => void) {
  let running = 0;
  const timed =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      running += 1;
      elapse(ms);
      try {
        return await fn(...args);
      } finally {
        running -= 1;
      }
    };
  const db: Database = {
    kind: inner.kind,
    query: timed((sql: string, params?: unknown[]) => inner.query(sql, params)),
    transaction: timed((fn: Parameters<Database['transaction']>[0]) => inner.transaction(fn)),
    close: () => inner.close(),
  } as Database;
  return {db, busy: () => running > 0};
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

describe('a scaled clock’s hold', () => {
  it('shows no time past a held instant until let go or past its limit, and never goes back', () => {
    let real = 1_000;
    const clock = scaledClock(60, START, () => real);
    const at = START.getTime() + 6_000;
    const release = clock.hold?.(at) as () => void;
    real += 50;
    expect(clock.nowMs()).toBe(START.getTime() + 3_000);
    real += 100;
    expect(clock.nowMs()).toBe(at);
    release();
    expect(clock.nowMs()).toBe(START.getTime() + 9_000);
    // An instant already passed holds nothing.
    clock.hold?.(START.getTime() + 8_000);
    expect(clock.nowMs()).toBe(START.getTime() + 9_000);
    // One never let go holds for HOLD_LIMIT_MS of real time past its instant, no longer.
    clock.hold?.(START.getTime() + 12_000);
    real += 50 + HOLD_LIMIT_MS - 1;
    expect(clock.nowMs()).toBe(START.getTime() + 12_000);
    real += 1;
    expect(clock.nowMs()).toBe(START.getTime() + 12_000 + HOLD_LIMIT_MS * 60);
  });
});

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
    await fake.waitingFor(5_000);

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

  /**
   * A worker on a 60x scaled clock running on fake timers, over a database each of whose statements takes 10 ms of
   * that time (at 60x, 600 ms of the clock's: 2% of the 30 s before the first retry); its first attempt (answered
   * 500) is recorded, and the retry is due at `due`.
   */
  async function scaledAfterFirstAttempt(
    options: {
      claimAheadMs?: number;
      /** Endpoints of the org, each with a delivery of the one event (1 unless told). */
      endpoints?: number;
      maxLanes?: number;
      /** How the receiver answers (500 unless told). */
      respond?: Responder;
      /** The worker's chores, given a wait on the fake timers (a chore that takes time without holding the loop). */
      sweep?: (now: Date, wait: (ms: number) => Promise<void>) => Promise<Date | null>;
      /** Every wait of the worker's ends this many ms of real time late (a busy process), 0 unless told. */
      lateMs?: number;
    } = {},
  ) {
    receiver = await startReceiver(options.respond ?? answer(500));
    const orgId = await seedOrg(db, START);
    const endpoints = [];
    for (let i = 0; i < (options.endpoints ?? 1); i++) {
      endpoints.push(
        await seedEndpoint(db, vault, {
          orgId,
          url: `${receiver.url}/hooks`,
          events: ['sandbox.ready'],
          now: START,
        }),
      );
    }
    const endpoint = endpoints[0] as (typeof endpoints)[number];
    await emitReadyEvents(db, {orgId, start: new Date(START.getTime() - 10_000), count: 1});
    const fake = fakeTimers(Date.UTC(2031, 0, 1));
    const slow = slowDatabase(db, 10, (ms) => fake.advance(ms));
    const clock = scaledClock(60, START, fake.timers.now);
    const lateMs = options.lateMs ?? 0;
    const running = new DeliveryWorker({
      db: slow.db,
      clock,
      vault,
      allowLocalEndpoints: true,
      timers: {...fake.timers, setTimeout: (fn, ms, o) => fake.timers.setTimeout(fn, ms + lateMs, o)},
      claimAheadMs: options.claimAheadMs,
      maxLanes: options.maxLanes,
      sweep: options.sweep
        ? (now) =>
            options.sweep?.(now, (ms) => new Promise((done) => fake.timers.setTimeout(done, ms))) ?? null
        : undefined,
    });
    worker = running;
    running.start();
    await (receiver as Receiver).received(endpoints.length);
    await running.settled();
    const dues = new Map(
      (
        await db.query<{endpoint_id: string; next_attempt_at: Date}>(
          'SELECT endpoint_id, next_attempt_at FROM deliveries',
        )
      ).rows.map((r) => [r.endpoint_id, r.next_attempt_at]),
    );
    return {
      worker: running,
      clock,
      orgId,
      endpointId: endpoint.id,
      due: dues.get(endpoint.id) as Date,
      /** Each endpoint's retry: when it is due. */
      dues,
      /** The clock's time now when nothing holds it: 60 times the real time passed since it started. */
      unheldNowMs: () => START.getTime() + (fake.timers.now() - Date.UTC(2031, 0, 1)) * 60,
      /**
       * Real time passes a millisecond at a time, and only while no statement runs (a statement moves it itself),
       * until `done` says so; at most 2 s of it.
       */
      async runUntil(done: () => boolean) {
        for (let passed = 0; !done(); passed++) {
          expect(passed, 'what the test waits for came within 2 s of real time').toBeLessThan(2_000);
          if (!slow.busy()) fake.advance(1);
          await new Promise((resolve) => setImmediate(resolve));
        }
      },
      /** Real time passes (as runUntil) until the receiver has had `n` requests. */
      async untilReceived(n: number) {
        let arrived = false;
        void (receiver as Receiver).received(n).then(() => {
          arrived = true;
        });
        await this.runUntil(() => arrived);
      },
    };
  }

  /** When each recorded attempt started, in clock milliseconds, earliest first. */
  async function attemptStarts(): Promise<number[]> {
    const {rows} = await db.query<{started_at: Date}>(
      'SELECT started_at FROM delivery_attempts ORDER BY started_at',
    );
    return rows.map((a) => a.started_at.getTime());
  }

  it('makes a retry on a scaled clock at its due instant, however long looking for it takes', async () => {
    const scaled = await scaledAfterFirstAttempt();
    await scaled.untilReceived(2);
    await scaled.worker.settled();
    const starts = await attemptStarts();
    // Claimed ahead, and made when its lane's wait for the due instant ended: not a statement's time later.
    expect(starts).toEqual([expect.any(Number), scaled.due.getTime()]);
    expect(scaled.due.getTime() - (starts[0] ?? 0)).toBeGreaterThanOrEqual(RETRY_WAITS_MS[0] as number);
  });

  it('holds a scaled clock at a retry’s instant while the lane’s timer fires late, then shows its own time again', async () => {
    // Every wait of the worker's ends 40 ms of real time late: 2.4 s of the clock's, 8% of the 30 s retry.
    const scaled = await scaledAfterFirstAttempt({claimAheadMs: 400, lateMs: 40});
    await scaled.runUntil(() => scaled.worker.busyEndpoints().includes(scaled.endpointId));
    // Waiting for the instant, the lane holds the clock there: real time runs 20 ms past it, the clock does not.
    await scaled.runUntil(() => scaled.unheldNowMs() >= scaled.due.getTime() + 20 * 60);
    expect(scaled.clock.nowMs()).toBe(scaled.due.getTime());
    await scaled.untilReceived(2);
    await scaled.worker.settled();
    expect(await attemptStarts()).toEqual([expect.any(Number), scaled.due.getTime()]);
    // Made, the retry lets the clock go: it shows 60 times the real time again, having lost none.
    expect(scaled.clock.nowMs()).toBe(scaled.unheldNowMs());
    expect(scaled.clock.nowMs()).toBeGreaterThan(scaled.due.getTime() + 40 * 60);
  });

  it('claims every retry due soon on a scaled clock while lanes wait, and sends at most maxLanes at a time', async () => {
    // One lane may send at a time. Two endpoints' retries fall due a moment apart; claimed 400 ms of real time
    // ahead, both wait in lanes of their own: the first lane's wait does not keep the second endpoint out. The
    // receiver holds the first retry until the second is due: the second waits for the one slot meanwhile.
    let held: (() => void) | undefined;
    const scaled = await scaledAfterFirstAttempt({
      endpoints: 2,
      maxLanes: 1,
      claimAheadMs: 400,
      respond: (_q, res, index) => {
        const end = () => res.writeHead(500).end();
        if (index === 2) held = end;
        else end();
      },
    });
    const [first, second] = [...scaled.dues].sort((a, b) => a[1].getTime() - b[1].getTime());
    const secondDue = second?.[1].getTime() as number;
    await scaled.runUntil(() => scaled.worker.busyEndpoints().length === 2);
    expect(scaled.clock.nowMs()).toBeLessThan(first?.[1].getTime() as number);
    let arrived = false;
    void (receiver as Receiver).received(4).then(() => {
      arrived = true;
    });
    await scaled.runUntil(() => {
      if (held && scaled.clock.nowMs() > secondDue) {
        held();
        held = undefined;
      }
      return arrived;
    });
    await scaled.worker.settled();
    const retries = await db.query<{endpoint_id: string; started_at: Date}>(
      `SELECT d.endpoint_id, a.started_at FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
        WHERE a.attempt = 2 ORDER BY a.started_at`,
    );
    expect(retries.rows.map((r) => r.endpoint_id)).toEqual([first?.[0], second?.[0]]);
    expect(retries.rows[0]?.started_at.getTime()).toBe(first?.[1].getTime());
    expect(retries.rows[1]?.started_at.getTime()).toBeGreaterThan(secondDue);
    // Waiting in line for the slot is a queue, not the process late: the clock ran on meanwhile, not held at the
    // second retry's instant until the hold's limit.
    expect((retries.rows[1]?.started_at.getTime() as number) - secondDue).toBeLessThan(HOLD_LIMIT_MS * 60);
    expect((receiver as Receiver).maxInFlight).toBe(1);
  });

  it('lets a lane waiting on a scaled clock for a retry claimed ahead go at once when its endpoint is deleted', async () => {
    const scaled = await scaledAfterFirstAttempt();
    // The worker serves the endpoint again before the retry is due: it claimed the retry ahead and waits for it.
    await scaled.runUntil(() => scaled.worker.busyEndpoints().includes(scaled.endpointId));
    expect(scaled.clock.nowMs()).toBeLessThan(scaled.due.getTime());
    scaled.worker.cancel([scaled.endpointId]);
    // No time passes: the lane stops waiting and ends without the retry.
    await scaled.worker.drained([scaled.endpointId]);
    expect(scaled.clock.nowMs()).toBeLessThan(scaled.due.getTime());
    expect(scaled.worker.busyEndpoints()).toEqual([]);
    expect((receiver as Receiver).requests).toHaveLength(1);
  });

  it('hands a retry claimed ahead on a scaled clock back when its org’s clock moves, and makes it by the new time', async () => {
    // Claimed 400 ms of real time ahead: time enough to hand it back and claim it again before its old instant.
    const scaled = await scaledAfterFirstAttempt({claimAheadMs: 400});
    await scaled.runUntil(() => scaled.worker.busyEndpoints().includes(scaled.endpointId));
    // The org's own clock moves an hour on (as `clock advance 1h --org` stores it), with word to the worker.
    await db.query('INSERT INTO org_clocks (org_id, offset_ms) VALUES ($1, $2)', [scaled.orgId, 3_600_000]);
    scaled.worker.timeMoved();
    await scaled.untilReceived(2);
    // Made at once by the org's time, before the emulator's own clock reached the retry's old instant.
    expect(scaled.clock.nowMs()).toBeLessThan(scaled.due.getTime());
    await scaled.worker.settled();
    expect((await attemptStarts())[1]).toBeGreaterThan(scaled.due.getTime());
  });

  it('claims a retry on a scaled clock before its chores, so a slow chore does not hold it back', async () => {
    // The chores ask to run again as soon as they can until the retry is scheduled, then when the worker wakes to
    // claim it (100 ms of real time, 6 s of the clock's, before it); that run takes 300 ms of real time.
    let slowRuns = 0;
    const scaled = await scaledAfterFirstAttempt({
      claimAheadMs: 100,
      async sweep(now, wait) {
        const retry = (
          await db.query<{next_attempt_at: Date}>(
            "SELECT next_attempt_at FROM deliveries WHERE status = 'pending' AND attempts = 1",
          )
        ).rows[0]?.next_attempt_at;
        if (!retry) return new Date(now.getTime() + 60);
        if (now.getTime() < retry.getTime() - 6_000) return new Date(retry.getTime() - 6_000);
        slowRuns += 1;
        await wait(300);
        return null;
      },
    });
    await scaled.untilReceived(2);
    // The slow chores end on the fake time too.
    let settled = false;
    void scaled.worker.settled().then(() => {
      settled = true;
    });
    await scaled.runUntil(() => settled);
    expect(slowRuns).toBe(1);
    expect(await attemptStarts()).toEqual([expect.any(Number), scaled.due.getTime()]);
  });
});
