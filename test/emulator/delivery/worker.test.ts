// The delivery worker against real loopback receivers on a manual clock: the whole retry schedule, outcomes
// of each kind of answer, and the exact bytes and headers every attempt carries.
import {createHmac} from 'node:crypto';
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest';
import {type ManualClock, manualClock} from '../../../src/emulator/clock.js';
import type {Database} from '../../../src/emulator/db/database.js';
import {
  DELIVERY_TIMEOUT_MS,
  MAX_DELIVERY_ATTEMPTS,
  RETRY_WAITS_MS,
  retryDelayAfter,
} from '../../../src/emulator/delivery/retry-policy.js';
import {DeliveryWorker, type DeliveryWorkerOptions} from '../../../src/emulator/delivery/worker.js';
import {SandboxService} from '../../../src/emulator/sandboxes/service.js';
import {createVault, type Vault} from '../../../src/emulator/vault.js';
import {verifySignature} from '../../../src/webhooks/index.js';
import {
  answer,
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

let db: Database;
let vault: Vault;
let clock: ManualClock;
let orgId: string;
let worker: DeliveryWorker | undefined;
let receiver: Receiver | undefined;
let sandboxes: SandboxService;

beforeAll(async () => {
  db = await openTestDb();
  vault = createVault(testVaultKey());
});
afterAll(async () => {
  await db.close();
});
beforeEach(async () => {
  await resetDb(db);
  clock = manualClock(START);
  orgId = await seedOrg(db, START);
  sandboxes = new SandboxService({db, clock, onEvent: () => worker?.notify()});
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await receiver?.close();
  receiver = undefined;
});

function startWorker(extra: Partial<DeliveryWorkerOptions> = {}): DeliveryWorker {
  worker = new DeliveryWorker({db, clock, vault, allowLocalEndpoints: true, ...extra});
  worker.start();
  return worker;
}

async function endpointFor(respond: Responder, events = ['sandbox.ready']) {
  receiver = await startReceiver(respond);
  return seedEndpoint(db, vault, {orgId, url: `${receiver.url}/hooks`, events, now: START});
}

async function deliveryRow() {
  const r = await db.query<{
    status: string;
    attempts: number;
    next_attempt_at: Date | null;
    last_attempt_at: Date | null;
    last_status_code: number | null;
    locked_until: Date | null;
  }>(
    'SELECT status, attempts, next_attempt_at, last_attempt_at, last_status_code, locked_until FROM deliveries',
  );
  expect(r.rows).toHaveLength(1);
  return r.rows[0] as (typeof r.rows)[number];
}

async function attemptRows() {
  return (
    await db.query<{
      attempt: number;
      status_code: number | null;
      error: string | null;
      response_body: string | null;
      started_at: Date;
    }>(
      'SELECT attempt, status_code, error, response_body, started_at FROM delivery_attempts ORDER BY attempt',
    )
  ).rows;
}

function independentSignature(secret: string, t: string, body: Buffer): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.concat([Buffer.from(`${t}.`), body]))
    .digest('hex');
}

describe('retry policy', () => {
  it('waits 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h and gives up after the ninth attempt', () => {
    expect(RETRY_WAITS_MS).toEqual([30e3, 120e3, 600e3, 1800e3, 3600e3, 10800e3, 21600e3, 43200e3]);
    expect(MAX_DELIVERY_ATTEMPTS).toBe(9);
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(retryDelayAfter)).toEqual(RETRY_WAITS_MS);
    expect(retryDelayAfter(9)).toBeNull();
    expect(() => retryDelayAfter(0)).toThrow(RangeError);
  });

  it('gives each attempt 10 seconds by default', () => {
    expect(DELIVERY_TIMEOUT_MS).toBe(10_000);
    const w = new DeliveryWorker({db, clock, vault});
    expect(w.timeoutMs).toBe(10_000);
  });
});

describe('a receiver that always fails', () => {
  it('is attempted nine times at the exact waits, each freshly signed, then the delivery is marked failed', async () => {
    const endpoint = await endpointFor(answer(500, 'nope'));
    const w = startWorker();
    const {event} = await sandboxes.create({orgId, name: 'walker'});
    await w.settled();
    const stored = (await db.query<{body: string}>('SELECT body FROM events')).rows[0]?.body as string;
    const requests = receiver?.requests ?? [];
    expect(requests).toHaveLength(1);

    for (let attempt = 2; attempt <= 9; attempt++) {
      const wait = RETRY_WAITS_MS[attempt - 2] as number;
      clock.advance(wait - 1000);
      await w.settled();
      expect(requests, `attempt ${attempt} must not come early`).toHaveLength(attempt - 1);
      clock.advance(1000);
      await w.settled();
      expect(requests, `attempt ${attempt} is due after ${wait} ms`).toHaveLength(attempt);
    }

    let expectedTime = START.getTime();
    requests.forEach((req, i) => {
      if (i > 0) expectedTime += RETRY_WAITS_MS[i - 1] as number;
      const t = String(Math.floor(expectedTime / 1000));
      const header = String(req.headers['svc-signature']);
      expect(req.method).toBe('POST');
      expect(req.url).toBe('/hooks');
      expect(req.headers['svc-delivery-attempt']).toBe(String(i + 1));
      expect(req.headers['svc-event-id']).toBe(event?.id);
      expect(req.headers['svc-event-type']).toBe('sandbox.ready');
      expect(req.headers['svc-delivery-id']).toMatch(/^dlv_[0-9A-Za-z]{24}$/);
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['user-agent']).toMatch(/svc/);
      // Same bytes every time, and exactly the stored event.
      expect(req.body.toString('utf8')).toBe(stored);
      expect(header).toBe(`t=${t},v1=${independentSignature(endpoint.secret, t, req.body)}`);
      expect(
        verifySignature({payload: req.body, header, secret: endpoint.secret, now: Number(t)}).timestamp,
      ).toBe(Number(t));
    });
    const ts = requests.map((r) => String(r.headers['svc-signature']).split(',')[0]);
    expect(new Set(ts).size).toBe(9);

    const row = await deliveryRow();
    expect(row).toMatchObject({
      status: 'failed',
      attempts: 9,
      next_attempt_at: null,
      last_status_code: 500,
      locked_until: null,
    });
    const attempts = await attemptRows();
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(attempts.every((a) => a.status_code === 500 && a.response_body === 'nope')).toBe(true);

    clock.advance(7 * 86_400_000);
    await w.settled();
    expect(requests).toHaveLength(9);
  });
});

describe('outcomes', () => {
  it('retries a receiver that fails twice and then succeeds', async () => {
    const statuses = [500, 503, 200];
    await endpointFor((_q, res, i) => {
      res.writeHead(statuses[i] ?? 200);
      res.end(`answer ${i + 1}`);
    });
    const w = startWorker();
    await sandboxes.create({orgId});
    await w.settled();
    expect(await deliveryRow()).toMatchObject({status: 'pending', attempts: 1, last_status_code: 500});
    expect((await deliveryRow()).next_attempt_at?.getTime()).toBe(START.getTime() + 30_000);
    clock.advance(30_000);
    await w.settled();
    expect((await deliveryRow()).next_attempt_at?.getTime()).toBe(START.getTime() + 30_000 + 120_000);
    clock.advance(120_000);
    await w.settled();
    expect(await deliveryRow()).toMatchObject({
      status: 'succeeded',
      attempts: 3,
      last_status_code: 200,
      next_attempt_at: null,
    });
    expect((await attemptRows()).map((a) => [a.attempt, a.status_code, a.response_body])).toEqual([
      [1, 500, 'answer 1'],
      [2, 503, 'answer 2'],
      [3, 200, 'answer 3'],
    ]);
    expect(receiver?.requests.map((r) => r.headers['svc-delivery-attempt'])).toEqual(['1', '2', '3']);
  });

  it('counts a redirect as a failure and never follows it', async () => {
    receiver = await startReceiver((req, res) => {
      if (req.url === '/hooks') {
        res.writeHead(302, {location: '/elsewhere'});
        res.end();
      } else res.end('followed');
    });
    await seedEndpoint(db, vault, {
      orgId,
      url: `${receiver.url}/hooks`,
      events: ['sandbox.ready'],
      now: START,
    });
    const w = startWorker();
    await sandboxes.create({orgId});
    await w.settled();
    expect(receiver.requests.map((r) => r.url)).toEqual(['/hooks']);
    expect(await deliveryRow()).toMatchObject({status: 'pending', attempts: 1, last_status_code: 302});
    expect((await attemptRows())[0]?.error).toMatch(/redirect/);
  });

  it('gives up on a receiver that never answers once the timeout passes', async () => {
    await endpointFor(() => {
      // never answers
    });
    const w = startWorker({timeoutMs: 150});
    await sandboxes.create({orgId});
    await w.settled();
    const row = await deliveryRow();
    expect(row).toMatchObject({status: 'pending', attempts: 1, last_status_code: null});
    expect(row.next_attempt_at?.getTime()).toBe(START.getTime() + 30_000);
    expect((await attemptRows())[0]?.error).toMatch(/timed out after 150 ms/);
  });

  it('records a refused connection with its error text', async () => {
    receiver = await startReceiver();
    const url = `${receiver.url}/hooks`;
    await receiver.close();
    receiver = undefined;
    await seedEndpoint(db, vault, {orgId, url, events: ['sandbox.ready'], now: START});
    const w = startWorker();
    await sandboxes.create({orgId});
    await w.settled();
    expect(await deliveryRow()).toMatchObject({status: 'pending', attempts: 1, last_status_code: null});
    expect((await attemptRows())[0]?.error).toMatch(/ECONNREFUSED/);
  });

  it('keeps only the first 4 KiB of a large answer', async () => {
    await endpointFor(answer(200, 'x'.repeat(100_000)));
    const w = startWorker();
    await sandboxes.create({orgId});
    await w.settled();
    const [attempt] = await attemptRows();
    expect(attempt?.response_body).toHaveLength(4096);
    expect(await deliveryRow()).toMatchObject({status: 'succeeded', attempts: 1});
  });
});

describe.each([
  ['leased claims (shared PostgreSQL)', false],
  ['exclusive claims (PGlite)', true],
])('ordering and concurrency with %s', (_mode, exclusiveDatabase) => {
  it('delivers one endpoint its events in the order they happened, one at a time', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    await endpointFor(
      (_q, res) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        setTimeout(
          () => {
            inFlight--;
            res.end();
          },
          Math.floor(Math.random() * 5),
        );
      },
      ['sandbox.ready', 'sandbox.stopped'],
    );
    const w = startWorker({exclusiveDatabase});
    const expected: string[] = [];
    for (let i = 0; i < 25; i++) {
      const {event} = await sandboxes.trigger({orgId, type: i % 2 ? 'sandbox.stopped' : 'sandbox.ready'});
      expected.push(event?.id as string);
    }
    await w.settled();
    expect(receiver?.requests.map((r) => r.headers['svc-event-id'])).toEqual(expected);
    expect(maxInFlight).toBe(1);
  });

  it('keeps order across batches when an endpoint has more due than one batch holds, each sent once', async () => {
    const answers: string[] = [];
    await endpointFor((q, res) => {
      answers.push(q.headers['svc-event-id'] as string);
      // Every fifth answer fails, so retries are scheduled while later batches are being read.
      res.statusCode = answers.length % 5 === 0 ? 500 : 200;
      res.end();
    });
    const expected: string[] = [];
    for (let i = 0; i < 30; i++) {
      const {event} = await sandboxes.create({orgId});
      expected.push(event?.id as string);
    }
    // On a database it owns, the lane reads its later batches itself while sending: the read-ahead statement runs.
    const readAheads = async () => {
      const r = await db.query<{runs: string | number}>(
        `SELECT generic_plans + custom_plans AS runs FROM pg_prepared_statements
          WHERE name = 'svc_delivery_claim_endpoint_after'`,
      );
      return Number(r.rows[0]?.runs ?? 0);
    };
    const before = await readAheads();
    const w = startWorker({exclusiveDatabase, perEndpoint: 4, recordChunk: 3});
    await w.settled();
    expect(answers).toEqual(expected);
    expect((await readAheads()) > before).toBe(exclusiveDatabase);
    const rows = await db.query<{status: string; attempts: number}>(
      'SELECT status, attempts FROM deliveries ORDER BY seq',
    );
    expect(rows.rows.filter((r) => r.status === 'pending' && r.attempts === 1)).toHaveLength(6);
    expect(rows.rows.filter((r) => r.status === 'succeeded' && r.attempts === 1)).toHaveLength(24);
  });

  it('serves several endpoints at once', async () => {
    const arrivals: string[] = [];
    const held: (() => void)[] = [];
    const receivers = await Promise.all(
      [0, 1, 2].map((n) =>
        startReceiver((_q, res) => {
          arrivals.push(`r${n}`);
          held.push(() => res.end());
          // Answer only once all three are in flight: proves the lanes run concurrently.
          if (held.length === 3) for (const release of held.splice(0)) release();
        }),
      ),
    );
    try {
      for (const r of receivers)
        await seedEndpoint(db, vault, {orgId, url: r.url, events: ['sandbox.ready'], now: START});
      const w = startWorker({timeoutMs: 5_000, exclusiveDatabase});
      await sandboxes.create({orgId});
      await w.settled();
      expect(arrivals.sort()).toEqual(['r0', 'r1', 'r2']);
      const r = await db.query<{status: string}>('SELECT status FROM deliveries');
      expect(r.rows.map((x) => x.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    } finally {
      await Promise.all(receivers.map((r) => r.close()));
    }
  });

  it('has sixteen attempts in flight at once without a listener-leak warning on stderr', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const held: (() => void)[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const receivers = await Promise.all(
      Array.from({length: 16}, () =>
        startReceiver((_q, res) => {
          mostInFlight = Math.max(mostInFlight, ++inFlight);
          res.on('close', () => inFlight--);
          held.push(() => res.end());
          // Answer only once all sixteen are in flight: with fewer lanes the first attempts time out instead.
          if (held.length === 16) for (const release of held.splice(0)) release();
        }),
      ),
    );
    try {
      for (const r of receivers)
        await seedEndpoint(db, vault, {orgId, url: r.url, events: ['sandbox.ready'], now: START});
      const w = startWorker({exclusiveDatabase, maxLanes: 16, timeoutMs: 5_000});
      await sandboxes.create({orgId});
      await w.settled();
      expect(mostInFlight).toBe(16);
      expect(receivers.map((r) => r.requests.length)).toEqual(Array(16).fill(1));
      const rows = await db.query<{status: string; attempts: number}>(
        'SELECT status, attempts FROM deliveries',
      );
      expect(rows.rows).toEqual(Array(16).fill({status: 'succeeded', attempts: 1}));
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.includes('MaxListeners'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await Promise.all(receivers.map((r) => r.close()));
    }
  });

  it('serves the endpoints left waiting for a lane as soon as a lane ends, not at the next idle look', async () => {
    // Five endpoints, two lanes, one event: three endpoints wait for a lane. Nothing but the lanes ending can
    // wake the worker in time, since its idle look comes only every ten minutes and the test never nudges it.
    const receivers = await Promise.all([0, 1, 2, 3, 4].map(() => startReceiver(answer(200))));
    try {
      for (const r of receivers)
        await seedEndpoint(db, vault, {orgId, url: r.url, events: ['sandbox.ready'], now: START});
      const w = startWorker({exclusiveDatabase, maxLanes: 2, idleMs: 600_000});
      await sandboxes.create({orgId});
      for (const r of receivers) await r.received(1);
      // Every request has arrived without a nudge; now the worker is asked to finish recording them.
      await w.settled();
      const r = await db.query<{n: string | number}>(
        `SELECT count(*) AS n FROM deliveries WHERE status = 'succeeded'`,
      );
      expect(Number(r.rows[0]?.n)).toBe(5);
    } finally {
      await Promise.all(receivers.map((r) => r.close()));
    }
  });
});

describe('word of new work while a claim is on its way back', () => {
  it('on a shared database, is not lost: what it announced goes out once the lane before it ends', async () => {
    await endpointFor(answer(200));
    await sandboxes.trigger({orgId, type: 'sandbox.ready'});
    let claims = 0;
    // The first claim has read the database when the second event is recorded and announced (onEvent kicks the
    // worker), before the claim's answer reaches it: the endpoint is busy to the claim that word makes.
    const racing: Database = {
      kind: db.kind,
      transaction: (fn) => db.transaction(fn),
      close: () => db.close(),
      async query(sql, params) {
        const result = await db.query(sql, params);
        if (sql.includes('svc_delivery_claim(') && ++claims === 1)
          await sandboxes.trigger({orgId, type: 'sandbox.ready'});
        return result as never;
      },
    };
    // Its own look for work would come only after the test's bound.
    startWorker({db: racing, exclusiveDatabase: false, idleMs: 120_000});
    const requests = await receiver!.received(2, 20_000);
    expect(new Set(requests.map((r) => r.headers['svc-event-id'])).size).toBe(2);
  });
});

describe('upkeep of a database the worker owns', () => {
  const vacuums = async () => {
    const r = await db.query<{n: string | number}>(
      `SELECT vacuum_count AS n FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = 'deliveries'`,
    );
    return Number(r.rows[0]?.n ?? 0);
  };

  it.each([
    ['owns', true],
    ['shares', false],
  ])('after enough attempts, vacuums the delivery tables when it %s the database', async (_m, exclusive) => {
    await endpointFor(answer(200));
    const before = await vacuums();
    const w = startWorker({exclusiveDatabase: exclusive, vacuumEvery: 5});
    for (let i = 0; i < 4; i++) await sandboxes.trigger({orgId, type: 'sandbox.ready'});
    await w.settled();
    await w.settled();
    expect(await vacuums()).toBe(before);
    for (let i = 0; i < 2; i++) await sandboxes.trigger({orgId, type: 'sandbox.ready'});
    await w.settled();
    await w.settled();
    expect(await vacuums()).toBe(exclusive ? before + 1 : before);
    const r = await db.query<{status: string}>(`SELECT DISTINCT status FROM deliveries`);
    expect(r.rows).toEqual([{status: 'succeeded'}]);
  });
});

describe('without a vault key', () => {
  it('stores events and deliveries but sends nothing, since no secret can be read', async () => {
    await endpointFor(answer(200));
    const logs: string[] = [];
    const w = startWorker({vault: createVault(null), log: (l) => logs.push(l)});
    await sandboxes.create({orgId});
    await w.settled();
    expect(receiver?.requests).toHaveLength(0);
    expect(await deliveryRow()).toMatchObject({status: 'pending', attempts: 0});
    expect(logs.join('\n')).toMatch(/vault key/);
  });
});

describe('fan-out', () => {
  it('makes one delivery per subscribed endpoint, however many there are, and none for the others', async () => {
    const subscribed: string[] = [];
    for (let i = 0; i < 37; i++) {
      const e = await seedEndpoint(db, vault, {
        orgId,
        url: `https://e${i}.example/hook`,
        events: ['sandbox.error'],
        now: START,
      });
      subscribed.push(e.id);
    }
    await seedEndpoint(db, vault, {
      orgId,
      url: 'https://other.example/hook',
      events: ['sandbox.ready'],
      now: START,
    });
    const move = await sandboxes.trigger({orgId, type: 'sandbox.error'});
    expect(move.deliveries).toBe(37);
    const rows = await db.query<{endpoint_id: string; id: string}>(
      'SELECT endpoint_id, id FROM deliveries WHERE event_id = $1',
      [move.event?.id],
    );
    expect(rows.rows.map((r) => r.endpoint_id).sort()).toEqual([...subscribed].sort());
    expect(new Set(rows.rows.map((r) => r.id)).size).toBe(37);
    expect(rows.rows.every((r) => /^dlv_[0-9A-Za-z]{24}$/.test(r.id))).toBe(true);
  });
});

describe('a signing secret this vault cannot read', () => {
  it('counts as a failed attempt, so the schedule runs its course instead of looping', async () => {
    await endpointFor(answer(200));
    const w = startWorker({vault: createVault(testVaultKey())});
    await sandboxes.create({orgId});
    await w.settled();
    expect(receiver?.requests).toHaveLength(0);
    expect(await deliveryRow()).toMatchObject({status: 'pending', attempts: 1, last_status_code: null});
    expect((await attemptRows())[0]?.error).toMatch(/could not be decrypted/);
  });
});
