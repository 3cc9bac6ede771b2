// Per-org checkpoints and the scaled clock (issue 44):
//   - checkpoint and rewind of an org holding 10,000 deliveries (each with one attempt recorded), over the control
//     surface as a test suite calls them, p50 and p99 against the goals: 50 ms on PGlite, 200 ms on PostgreSQL
//     (BENCH_DATABASE_URL or SVC_TEST_DATABASE_URL; the PostgreSQL rows are skipped without one);
//   - a 60x scaled clock: how far each retry lands from its scheduled time on the emulator's clock, as a share of
//     the wait before it, against the 1% goal (retries 2 to 4: 30 s, 2 min and 10 min of clock time, 12.5 s of
//     real time).
import {randomBytes} from 'node:crypto';
import {createServer} from 'node:http';
import pg from 'pg';
import {RETRY_WAITS_MS} from '../dist/src/definitions.js';
import {startEmulator} from '../dist/src/emulator/index.js';
import {percentile, printTable} from './lib.js';

const DELIVERIES = Number(process.env.BENCH_CHECKPOINT_DELIVERIES ?? 10_000);
const ROUNDS = Number(process.env.BENCH_CHECKPOINT_ROUNDS ?? 12);
const SCALED_EVENTS = Number(process.env.BENCH_SCALED_EVENTS ?? 20);
const SCALED_ATTEMPTS = 4;
const pgUrl = process.env.BENCH_DATABASE_URL || process.env.SVC_TEST_DATABASE_URL;

/** An org with a relay endpoint nobody listens to (its deliveries wait, attempting nothing) and DELIVERIES of them. */
async function orgWithDeliveries(emulator) {
  const org = await emulator.control.createOrg({name: 'checkpointed'});
  const relay = await emulator.control.registerRelay({name: 'bench', org_id: org.id});
  const now = emulator.clock.now();
  const body = JSON.stringify({type: 'sandbox.ready'});
  // Written in three statements, not through triggers: the rows are the point, not how they came.
  await emulator.db.query(
    `INSERT INTO events (id, org_id, type, created_at, body)
     SELECT 'evt_' || lpad(g::text, 24, '0'), $1, 'sandbox.ready', $2, $3 FROM generate_series(1, $4) g`,
    [org.id, now, body, DELIVERIES],
  );
  await emulator.db.query(
    `INSERT INTO deliveries (id, org_id, event_id, endpoint_id, event_type, status, attempts, created_at,
                             last_attempt_at, next_attempt_at, last_status_code)
     SELECT 'dlv_' || lpad(g::text, 24, '0'), $1, 'evt_' || lpad(g::text, 24, '0'), $2, 'sandbox.ready', 'pending',
            1, $3, $3, $3::timestamptz + interval '30 seconds' + g * interval '1 millisecond', 500
       FROM generate_series(1, $4) g`,
    [org.id, relay.endpoint_id, now, DELIVERIES],
  );
  await emulator.db.query(
    `INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, response_body)
     SELECT 'dlv_' || lpad(g::text, 24, '0'), 1, $1, 3, 500, 'no' FROM generate_series(1, $2) g`,
    [now, DELIVERIES],
  );
  return org.id;
}

async function timeCheckpoints(options) {
  const emulator = await startEmulator({port: 0, inMemory: true, clock: 'manual', ...options});
  try {
    const orgId = await orgWithDeliveries(emulator);
    const take = [];
    const rewind = [];
    for (let i = 0; i < ROUNDS + 3; i++) {
      const name = `round-${i}`;
      let started = performance.now();
      const saved = await emulator.control.checkpoint(orgId, name);
      const took = performance.now() - started;
      if (saved.counts.deliveries !== DELIVERIES)
        throw new Error(`saved ${saved.counts.deliveries} deliveries`);
      started = performance.now();
      await emulator.control.rewind(orgId, name);
      const rewound = performance.now() - started;
      await emulator.control.deleteCheckpoint(orgId, name);
      // The first rounds warm the statements and caches up.
      if (i >= 3) {
        take.push(took);
        rewind.push(rewound);
      }
    }
    return {take, rewind};
  } finally {
    await emulator.stop();
  }
}

async function scratchSchema(url) {
  const name = `svc_bench_cp_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({connectionString: url});
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${name}`);
  const withSchema = new URL(url);
  withSchema.searchParams.set('options', `-c search_path=${name}`);
  return {
    url: withSchema.toString(),
    async drop() {
      await admin.query(`DROP SCHEMA ${name} CASCADE`);
      await admin.end();
    },
  };
}

function rows(backend, goalMs, times) {
  return ['take', 'rewind'].flatMap((what) => {
    const p50 = percentile(times[what], 50);
    const p99 = percentile(times[what], 99);
    const verb = what === 'take' ? 'checkpoint' : 'rewind';
    return [
      {case: `${verb}, ${backend}, p50`, baseline: goalMs, value: p50, unit: 'ms'},
      {
        case: `${verb}, ${backend}, p99`,
        baseline: goalMs,
        value: p99,
        unit: 'ms',
        ratio: p99 / goalMs,
        target: 1,
      },
    ];
  });
}

const table = rows('PGlite', 50, await timeCheckpoints({}));
if (pgUrl) {
  const schema = await scratchSchema(pgUrl);
  try {
    table.push(...rows('PostgreSQL', 200, await timeCheckpoints({databaseUrl: schema.url})));
  } finally {
    await schema.drop();
  }
} else {
  process.stdout.write('PostgreSQL rows skipped: set BENCH_DATABASE_URL (or SVC_TEST_DATABASE_URL)\n');
}
printTable(
  `Checkpoint and rewind of one org holding ${DELIVERIES} deliveries (baseline: the goal, ms; ${ROUNDS} rounds)`,
  table,
);

// The scaled clock: every retry of SCALED_EVENTS events up to attempt SCALED_ATTEMPTS, each compared with the time
// the delivery said it was due (read as soon as the attempt before it was recorded).
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.statusCode = 500;
    res.end('no');
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const scaled = await startEmulator({port: 0, inMemory: true, clock: 'scaled:60', allowLocalEndpoints: true});
try {
  const {control} = scaled;
  // An org and an endpoint per event: one endpoint's deliveries go one after another (its lane), which would
  // measure that order rather than the clock.
  const shares = [];
  await Promise.all(
    Array.from({length: SCALED_EVENTS}, async (_, i) => {
      const org = await control.createOrg({name: `scaled ${i}`});
      await control.createWebhook({
        url: `http://127.0.0.1:${receiver.address().port}/`,
        events: ['sandbox.error'],
        org_id: org.id,
      });
      const move = await control.trigger({type: 'sandbox.error', org_id: org.id});
      let detail = await control.waitForDelivery({event_id: move.event.id, attempts: 1});
      for (let n = 2; n <= SCALED_ATTEMPTS; n++) {
        const dueAt = Date.parse(detail.delivery.next_attempt_at);
        detail = await control.waitForDelivery({
          delivery_id: detail.delivery.id,
          attempts: n,
          timeout: 60_000,
        });
        const madeAt = Date.parse(detail.attempts[n - 1].started_at);
        shares.push(Math.abs(madeAt - dueAt) / RETRY_WAITS_MS[n - 2]);
      }
    }),
  );
  const worst = Math.max(...shares) * 100;
  printTable(
    `A 60x scaled clock: each retry's distance from its scheduled time, as a share of its wait (baseline: the goal, %; ${shares.length} retries)`,
    [
      {case: 'retry off its time, p50', baseline: 1, value: percentile(shares, 50) * 100, unit: '%'},
      {case: 'retry off its time, max', baseline: 1, value: worst, unit: '%', ratio: worst / 1, target: 1},
    ],
  );
} finally {
  await scaled.stop();
  receiver.close();
}
