// Per-org checkpoints (issue 44): checkpoint and rewind of an org holding 10,000 deliveries (each with one attempt
// recorded), over the control surface as a test suite calls them, p50 and p99 against the goals: 50 ms on PGlite,
// 200 ms on PostgreSQL (BENCH_DATABASE_URL or SVC_TEST_DATABASE_URL; the PostgreSQL rows are skipped without one).
// A rewind writes back only what changed since the checkpoint, so a further row, against no goal, rewinds after
// every delivery moved on (a second attempt each: 10,000 deliveries changed and 10,000 attempts added).
import {randomBytes} from 'node:crypto';
import pg from 'pg';
import {startEmulator} from '../dist/src/emulator/index.js';
import {percentile, printTable} from './lib.js';

const DELIVERIES = Number(process.env.BENCH_CHECKPOINT_DELIVERIES ?? 10_000);
// Forty rounds, not a dozen: what a rewind leaves behind (dead rows, the journal's forgotten entries) shows in
// the later rounds, and twelve hid a rewind growing from 12 to 35 ms.
const ROUNDS = Number(process.env.BENCH_CHECKPOINT_ROUNDS ?? 40);
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
    `INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, response_body, org_id)
     SELECT 'dlv_' || lpad(g::text, 24, '0'), 1, $1, 3, 500, 'no', $3 FROM generate_series(1, $2) g`,
    [now, DELIVERIES, org.id],
  );
  return org.id;
}

/** Every delivery of the org gets a second attempt, as if its retry had come due. */
async function moveEveryDeliveryOn(emulator, orgId) {
  await emulator.db.query(
    `UPDATE deliveries SET attempts = 2, last_attempt_at = next_attempt_at,
            next_attempt_at = next_attempt_at + interval '5 minutes'
      WHERE org_id = $1`,
    [orgId],
  );
  await emulator.db.query(
    `INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, response_body, org_id)
     SELECT id, 2, last_attempt_at, 3, 500, 'no', org_id FROM deliveries WHERE org_id = $1`,
    [orgId],
  );
}

async function timeCheckpoints(options) {
  const emulator = await startEmulator({port: 0, inMemory: true, clock: 'manual', ...options});
  try {
    const orgId = await orgWithDeliveries(emulator);
    const take = [];
    const rewind = [];
    const moved = [];
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
      await moveEveryDeliveryOn(emulator, orgId);
      started = performance.now();
      await emulator.control.rewind(orgId, name);
      const rewoundMoved = performance.now() - started;
      await emulator.control.deleteCheckpoint(orgId, name);
      // The first rounds warm the statements and caches up.
      if (i >= 3) {
        take.push(took);
        rewind.push(rewound);
        moved.push(rewoundMoved);
      }
    }
    return {take, rewind, moved};
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
  const moved = ['p50', 'p99'].map((p) => ({
    case: `rewind, every delivery moved on, ${backend}, ${p}`,
    baseline: goalMs,
    value: percentile(times.moved, p === 'p50' ? 50 : 99),
    unit: 'ms',
  }));
  const goals = ['take', 'rewind'].flatMap((what) => {
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
  return [...goals, ...moved];
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
