// The bounded load and fault suite of the shared emulator: two processes on one PostgreSQL take a burst of events
// for a receiver that fails a random 30% of attempts and answers some slowly, while a second process serves API
// reads; one process is killed with SIGKILL in the middle of the burst, and the database restarts once under the
// other (every connection drops, new ones are refused for a second). The manual clock then walks the retry
// schedule. At the end every delivery is succeeded or pending on its schedule, the recorded attempts are the ones the
// receiver saw, no attempt of a delivery overlapped another, every accepted event was delivered, and an attempt was
// made twice only where the README allows it: sent by the killed process and not recorded before it died. The
// receiver's failures and slow answers come from a seeded source: the seed is printed, and SVC_TEST_SEED=<seed>
// makes the same choices again, in arrival order.
//
// Size: 600 events by default, seconds on two cores; SVC_TEST_SOAK=1 runs the full 10,000. Six hundred is enough
// for every property checked: the kill comes at 240 accepted events, while both processes have lanes sending and
// claims held (each process's 16 lanes take up to 32 deliveries of an endpoint, and each of the 8 endpoints has had
// 30 events by then), the database restart at 420 with 180 events still to come through the reconnected pool, and
// at a 30% failure rate the 5 retry rounds walk about 180, 54, 16, 5 and 1 deliveries, so the checks on the
// schedule, on repeats after the kill and on lost events each have hundreds of cases.
import {randomBytes} from 'node:crypto';
import {createServer, request, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {EVENT_TYPES, RETRY_WAITS_MS} from '../../../src/definitions.js';
import {describeNeeding, POSTGRES} from '../../helpers/requirements.js';
import {seededRandom, testSeed} from '../../helpers/seeded-random.js';
import {
  apiGet,
  type DatabaseOutage,
  databaseProxy,
  type EmulatorProcess,
  freshSchema,
  type Schema,
  startProcess,
  type Tuning,
} from './cluster.js';

/** SVC_TEST_SOAK=1: the full burst; otherwise one sized for the suite (see the header). */
const EVENTS = process.env.SVC_TEST_SOAK === '1' ? 10_000 : 600;
const FAILURE_RATE = 0.3;
const SLOW_RATE = 0.01;
const SLOW_MS = 200;
const KILL_AT = 0.4;
const CUT_AT = 0.7;
const DATABASE_DOWN_MS = 1_000;
const TRIGGER_CONCURRENCY = 12;
const READ_CONCURRENCY = 2;
/** Retry rounds walked on the manual clock after the burst: the first five waits of the schedule. */
const ROUNDS = 5;
/** Each process's lanes and deliveries per lane: what it can have sent and not yet recorded when it dies. */
const MAX_LANES = 16;
const PER_ENDPOINT = 32;

/** The receiver's path a request takes to mark the kill (see markKill). */
const KILL_MARK = '/kill-mark';

/** Sends the kill mark to the receiver on a connection of its own and waits for its answer. */
function markKill(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({host: '127.0.0.1', port, path: KILL_MARK, agent: false}, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end();
  });
}

const TUNING: Tuning = {
  clock: 'manual',
  clockStart: '2030-01-01T00:00:00.000Z',
  // Short leases, so the survivor takes over the killed process's claims within seconds; a short attempt limit.
  delivery: {
    timeoutMs: 2_000,
    worker: {leaseMs: 4_000, idleMs: 500, maxLanes: MAX_LANES, perEndpoint: PER_ENDPOINT},
  },
};

interface Seen {
  /** Answers given per attempt number (more than one when an unrecorded attempt was made again). */
  answers: Map<number, number[]>;
  /** Attempt numbers first answered after the kill. */
  firstAfterKill: Set<number>;
  eventId: string;
}

describeNeeding([POSTGRES], 'the shared emulator under load and faults', () => {
  const vaultKey = randomBytes(32);
  let schema: Schema;
  let database: DatabaseOutage;
  let a: EmulatorProcess;
  let b: EmulatorProcess;
  let receiver: Server;
  const seen = new Map<string, Seen>();
  const inFlight = new Set<string>();
  let overlaps = 0;
  let killedAt = Number.POSITIVE_INFINITY;
  const random = seededRandom(testSeed());

  beforeAll(async () => {
    schema = await freshSchema();
    receiver = createServer((req, res) => {
      if (req.url === KILL_MARK) {
        // Requests the killed process sent before it died were in this process's sockets before this one: every
        // request handled from here on was sent by the survivor.
        killedAt = Date.now();
        res.end();
        return;
      }
      const id = String(req.headers['svc-delivery-id']);
      const attempt = Number(req.headers['svc-delivery-attempt']);
      // Set once the killed process has exited: anything arriving later was sent by the survivor.
      const arrivedAfterKill = Date.now() > killedAt;
      if (inFlight.has(id)) overlaps++;
      inFlight.add(id);
      // In flight until answered, or until its sender is gone (the killed process, mid-request): a request
      // nobody waits for any more overlaps nothing.
      res.on('close', () => inFlight.delete(id));
      req.resume();
      req.on('end', () => {
        const status = random.next() < FAILURE_RATE ? 500 : 200;
        const slow = random.next() < SLOW_RATE;
        const answer = () => {
          let s = seen.get(id);
          if (!s) {
            s = {answers: new Map(), firstAfterKill: new Set(), eventId: String(req.headers['svc-event-id'])};
            seen.set(id, s);
          }
          const list = s.answers.get(attempt) ?? [];
          if (list.length === 0 && arrivedAfterKill) s.firstAfterKill.add(attempt);
          list.push(status);
          s.answers.set(attempt, list);
          inFlight.delete(id);
          res.statusCode = status;
          res.end(status === 200 ? 'ok' : 'try later');
        };
        if (slow) setTimeout(answer, SLOW_MS);
        else answer();
      });
    });
    receiver.keepAliveTimeout = 10_000;
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    // A reaches PostgreSQL through a proxy the test can restart; B directly.
    database = await databaseProxy(schema.url);
    [a, b] = await Promise.all([
      startProcess(database.url, vaultKey, TUNING),
      startProcess(schema.url, vaultKey, TUNING),
    ]);
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.kill()]);
    await database?.close();
    await new Promise((resolve) => receiver?.close(resolve));
    await schema?.drop();
  });

  const clockNow = async () =>
    (await schema.admin.query<{now: Date}>('SELECT now FROM emulator_clock')).rows[0]?.now as Date;

  /**
   * Until nothing is due at the shared clock's time and nothing is in flight. Polled: the rows are written by
   * both processes (and by the survivor for the killed one's claims once their leases run out), and no one process
   * can say when all of that is done.
   */
  async function settled(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const {rows} = await schema.admin.query<{due: number}>(
        `SELECT count(*)::int AS due FROM deliveries
          WHERE status = 'pending' AND next_attempt_at <= (SELECT now FROM emulator_clock)`,
      );
      if (rows[0]?.due === 0 && inFlight.size === 0) return;
      if (Date.now() > deadline) throw new Error(`${rows[0]?.due} deliveries still due`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it(`delivers a burst of ${EVENTS.toLocaleString('en')} events through a kill -9 and a database restart`, {
    timeout: 240_000,
  }, async () => {
    console.log(`receiver faults seeded with ${random.seed} (SVC_TEST_SEED=${random.seed} replays them)`);
    const port = (receiver.address() as AddressInfo).port;
    const second = await a.control.createOrg({name: 'second'});
    const orgs = [a.orgId, second.id];
    const endpoints: string[] = [];
    for (const org of orgs) {
      for (const type of EVENT_TYPES) {
        const e = await (endpoints.length % 2 ? b : a).control.createWebhook({
          url: `http://127.0.0.1:${port}/${org}/${type}`,
          events: [type],
          org_id: org,
        });
        endpoints.push(e.id);
      }
    }
    const key = await a.control.createKey({name: 'reader'});

    // Sustained API reads through the second process while the burst is delivered, until it is killed.
    let reading = true;
    const readStatuses = new Map<number, number>();
    const readers = Array.from({length: READ_CONCURRENCY}, async (_, r) => {
      for (let i = 0; reading; i++) {
        const path = (i + r) % 2 ? '/v1/org' : `/v1/webhooks/${endpoints[i % EVENT_TYPES.length]}/deliveries`;
        const {status} = await apiGet(b.apiUrl, path, key.secret);
        readStatuses.set(status, (readStatuses.get(status) ?? 0) + 1);
      }
    });

    const accepted = new Set<string>();
    let refused = 0;
    let next = 0;
    let killed = false;
    let cut = false;
    const triggerers = Array.from({length: TRIGGER_CONCURRENCY}, async (_, t) => {
      while (next < EVENTS) {
        const n = next++;
        for (;;) {
          if (!killed && accepted.size >= EVENTS * KILL_AT) {
            killed = true;
            reading = false;
            await Promise.all(readers);
            await b.kill();
            // Not the moment kill() returned: on a loaded machine this process may not yet have read what the
            // killed one sent. A request of its own, sent now, is read after all of that.
            await markKill((receiver.address() as AddressInfo).port);
          }
          if (!cut && accepted.size >= EVENTS * CUT_AT) {
            cut = true;
            // The database restarts under the surviving emulator: its pool and its listener lose their
            // connections, and reconnecting fails until the server is back.
            expect(await database.restart(DATABASE_DOWN_MS)).toBeGreaterThan(1);
          }
          const via = killed || (n + t) % 2 === 0 ? a : b;
          try {
            const move = await via.control.trigger({
              type: EVENT_TYPES[n % EVENT_TYPES.length] as (typeof EVENT_TYPES)[number],
              org_id: orgs[(n >> 2) % 2],
            });
            accepted.add(move.event?.id as string);
            break;
          } catch {
            // Not accepted (the process died, or its database connection went): tried again as a new event.
            refused++;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
      }
    });
    await Promise.all(triggerers);
    expect(killed && cut).toBe(true);
    expect(accepted.size).toBe(EVENTS);
    await a.stderrUntil('notification connection is back');

    // The burst, the killed process's claims (once its leases run out) and the first attempts of every event.
    await settled(90_000);
    // Then the retry schedule, one wait at a time on the shared clock.
    for (const wait of RETRY_WAITS_MS.slice(0, ROUNDS)) {
      await a.control.advanceClock(`${wait / 1000}s`);
      await settled(30_000);
    }

    const now = await clockNow();
    const {rows: deliveries} = await schema.admin.query<{
      id: string;
      event_id: string;
      status: string;
      attempts: number;
      next_attempt_at: Date | null;
      last_attempt_at: Date | null;
      last_status_code: number | null;
    }>(
      'SELECT id, event_id, status, attempts, next_attempt_at, last_attempt_at, last_status_code FROM deliveries',
    );
    const {rows: attempts} = await schema.admin.query<{
      delivery_id: string;
      attempt: number;
      status_code: number;
    }>('SELECT delivery_id, attempt, status_code FROM delivery_attempts');
    const recorded = new Map<string, Map<number, number>>();
    for (const r of attempts) {
      const m = recorded.get(r.delivery_id) ?? new Map<number, number>();
      m.set(r.attempt, r.status_code);
      recorded.set(r.delivery_id, m);
    }

    // No accepted event lost: each has its one delivery, which reached the receiver.
    const byEvent = new Map(deliveries.map((d) => [d.event_id, d]));
    expect(deliveries.length).toBe(byEvent.size);
    const lost = [...accepted].filter((id) => !byEvent.has(id) || !seen.has(byEvent.get(id)?.id as string));
    expect(lost).toEqual([]);
    // Events stored while their trigger's answer was lost are at most the refused triggers.
    expect(deliveries.length - accepted.size).toBeGreaterThanOrEqual(0);
    expect(deliveries.length - accepted.size).toBeLessThanOrEqual(refused);

    const problems: string[] = [];
    let duplicates = 0;
    let repeatedAfterKill = 0;
    let pending = 0;
    for (const d of deliveries) {
      const s = seen.get(d.id);
      const rec = recorded.get(d.id) ?? new Map<number, number>();
      const sentAttempts = s ? [...s.answers.keys()].sort((x, y) => x - y) : [];
      // Attempts recorded are exactly the attempts the receiver saw, numbered from 1.
      if (
        d.attempts !== sentAttempts.length ||
        sentAttempts.some((n, i) => n !== i + 1) ||
        rec.size !== d.attempts
      ) {
        problems.push(
          `${d.id}: ${d.attempts} recorded, ${rec.size} attempt rows, receiver saw ${sentAttempts}`,
        );
        continue;
      }
      for (const [n, answers] of s?.answers ?? []) {
        if (answers.length > 1) duplicates++;
        if (answers.length > 1 && s?.firstAfterKill.has(n)) repeatedAfterKill++;
        if (!answers.includes(rec.get(n) as number))
          problems.push(`${d.id} attempt ${n}: recorded ${rec.get(n)}, answered ${answers}`);
      }
      const last = rec.get(d.attempts);
      if (d.status === 'succeeded') {
        if (last !== 200) problems.push(`${d.id}: succeeded after an answer of ${last}`);
      } else if (d.status === 'pending') {
        pending++;
        const wait = RETRY_WAITS_MS[d.attempts - 1] as number;
        const due = d.next_attempt_at?.getTime();
        if (
          last !== 500 ||
          due !== (d.last_attempt_at?.getTime() ?? Number.NaN) + wait ||
          !(due > now.getTime())
        ) {
          problems.push(
            `${d.id}: pending off its schedule (attempts ${d.attempts}, due ${d.next_attempt_at?.toISOString()})`,
          );
        }
      } else {
        problems.push(`${d.id}: ${d.status}`);
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(overlaps).toBe(0);
    // Made again only where the killed process had sent an attempt and not recorded it: at most what its lanes
    // held when it died. The database restart (after the kill) repeats none: its records are written again.
    console.log(
      `attempts made twice: ${duplicates}, of them first sent after the kill: ${repeatedAfterKill}`,
    );
    expect(duplicates).toBeLessThanOrEqual(MAX_LANES * PER_ENDPOINT);
    expect(repeatedAfterKill).toBe(0);
    expect(pending).toBeLessThan(deliveries.length / 100);
    expect([...readStatuses.keys()]).toEqual([200]);
    expect(readStatuses.get(200)).toBeGreaterThan(0);
  });
});
