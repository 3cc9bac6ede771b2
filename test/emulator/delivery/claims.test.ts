// The exclusive claim (PGlite): which deliveries a worker takes, in what order, and that it is planned only once.
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest';
import type {Database} from '../../../src/emulator/db/database.js';
import {recordAttempts} from '../../../src/emulator/delivery/attempt-repository.js';
import {claimDue, claimEndpointAfter} from '../../../src/emulator/delivery/claim.js';
import {INDEX_PLANS, literal, PreparedStatements} from '../../../src/emulator/delivery/statements.js';
import {createVault} from '../../../src/emulator/vault.js';
import {emitReadyEvents, openTestDb, resetDb, seedEndpoint, seedOrg, testVaultKey} from './helpers.js';

const START = new Date('2030-01-01T00:00:00Z');
const vault = createVault(testVaultKey());
let db: Database;
let orgId: string;
let endpoints: string[];

beforeAll(async () => {
  db = await openTestDb();
});
afterAll(async () => {
  await db.close();
});
beforeEach(async () => {
  await resetDb(db);
  orgId = await seedOrg(db, START);
  endpoints = [];
  for (let i = 0; i < 3; i++) {
    const at = new Date(START.getTime() + i);
    const e = await seedEndpoint(db, vault, {
      orgId,
      url: `http://127.0.0.1:1/e${i}`,
      events: ['sandbox.ready'],
      now: at,
    });
    endpoints.push(e.id);
  }
});

/** Emits `count` events one millisecond apart: each makes one delivery per endpoint. */
const emit = (count: number) => emitReadyEvents(db, {orgId, start: START, count});

const claim = (
  statements: PreparedStatements,
  o: {busy?: string[]; lanes: number; perEndpoint: number; limit: number},
) =>
  claimDue(db, statements, {
    now: new Date(START.getTime() + 60_000),
    realNow: new Date(),
    leaseUntil: new Date(Date.now() + 60_000),
    owner: 'w_test',
    busyEndpoints: o.busy ?? [],
    connectedRelays: [],
    limit: o.limit,
    lanes: o.lanes,
    perEndpoint: o.perEndpoint,
    exclusive: true,
  });

describe('claiming due deliveries for exclusive use', () => {
  it('gives each free endpoint its oldest deliveries in order, skipping busy endpoints', async () => {
    await emit(4);
    const statements = new PreparedStatements(db);
    const got = await claim(statements, {
      busy: [endpoints[1] as string],
      lanes: 16,
      perEndpoint: 3,
      limit: 100,
    });
    expect(got.map((d) => d.endpointId)).toEqual([
      endpoints[0],
      endpoints[0],
      endpoints[0],
      endpoints[2],
      endpoints[2],
      endpoints[2],
    ]);
    for (const endpointId of [endpoints[0], endpoints[2]]) {
      const events = got
        .filter((d) => d.endpointId === endpointId)
        .map((d) => JSON.parse(d.body).data.sandbox.id);
      expect(events).toEqual(['sbx_0', 'sbx_1', 'sbx_2']);
    }
    expect(got.every((d) => d.attempt === 1 && d.url.startsWith('http://127.0.0.1:1/e') && !d.relay)).toBe(
      true,
    );
  });

  it('serves no more endpoints than there are free lanes, and no more deliveries than the limit', async () => {
    await emit(4);
    const statements = new PreparedStatements(db);
    const oneLane = await claim(statements, {lanes: 1, perEndpoint: 10, limit: 100});
    expect(new Set(oneLane.map((d) => d.endpointId))).toEqual(new Set([endpoints[0]]));
    expect(oneLane).toHaveLength(4);
    expect(await claim(statements, {lanes: 3, perEndpoint: 10, limit: 5})).toHaveLength(5);
  });

  it('is planned once and then reuses its plan, whatever the values', async () => {
    await emit(2);
    const statements = new PreparedStatements(db);
    for (let i = 0; i < 8; i++) {
      await claim(statements, {
        busy: endpoints.slice(0, i % 3),
        lanes: 1 + i,
        perEndpoint: 1 + (i % 4),
        limit: 10 + i,
      });
    }
    const plans = await db.query<{generic_plans: string | number}>(
      `SELECT generic_plans FROM pg_prepared_statements WHERE name = 'svc_delivery_claim_by_endpoint'`,
    );
    expect(Number(plans.rows[0]?.generic_plans)).toBeGreaterThan(0);
  });
});

describe('plans made while the tables are nearly empty', () => {
  /** The plan PGlite keeps for a prepared statement, asked the way the engine runs it. */
  async function cachedPlan(name: string, args: string): Promise<string> {
    const script = db.script;
    if (!script) throw new Error('the PGlite database runs scripts');
    const r = await script.call(db, `${INDEX_PLANS}EXPLAIN EXECUTE ${name}(${args})`);
    return (r.rows as {'QUERY PLAN': string}[]).map((row) => row['QUERY PLAN']).join('\n');
  }

  it('still reach each delivery through an index once thousands are pending', async () => {
    const statements = new PreparedStatements(db);
    // Plans are made now, against three endpoints and no deliveries at all.
    for (let i = 0; i < 6; i++) {
      await claim(statements, {lanes: 3, perEndpoint: 10, limit: 100});
      await claimEndpointAfter(db, statements, {
        endpointId: endpoints[0] as string,
        now: START,
        after: {dueAt: START, seq: i},
        limit: 10,
      });
      await recordAttempts(db, statements, [
        {
          deliveryId: `dlv_missing${i}`,
          attempt: 1,
          startedAt: START,
          finishedAt: START,
          durationMs: 1,
          statusCode: 200,
          error: null,
          responseBody: 'ok',
          signatureT: 1,
          trigger: 'scheduled',
          status: 'succeeded',
          nextAttemptAt: null,
        },
      ]);
    }
    await db.query(
      `INSERT INTO events (id, org_id, type, created_at, body)
       SELECT 'evt_bulk' || g, $1, 'sandbox.ready', $2, '{}' FROM generate_series(1, 1000) g`,
      [orgId, START],
    );
    await db.query(
      `INSERT INTO deliveries (id, org_id, event_id, endpoint_id, event_type, status, attempts, created_at, next_attempt_at)
       SELECT 'dlv_bulk' || g || '_' || e.n, $1, 'evt_bulk' || g, e.id, 'sandbox.ready', 'pending', 0, $2, $2
         FROM generate_series(1, 1000) g, unnest($3::text[]) WITH ORDINALITY AS e(id, n)`,
      [orgId, START, endpoints],
    );

    const ids = literal(['dlv_bulk1_1', 'dlv_bulk2_1'], 'text[]');
    const times = literal([START, START], 'timestamptz[]');
    const record = await cachedPlan(
      'svc_delivery_record',
      `${ids}, '{1,1}'::int[], ${times}, '{1,1}'::int[], '{200,200}'::int[], '{NULL,NULL}'::text[], ` +
        `'{ok,ok}'::text[], '{scheduled,scheduled}'::text[], '{succeeded,succeeded}'::text[], '{NULL,NULL}'::timestamptz[], ` +
        `'{1,1}'::bigint[]`,
    );
    const claimPlan = await cachedPlan(
      'svc_delivery_claim_by_endpoint',
      `${literal(new Date(START.getTime() + 60_000), 'timestamptz')}, '{}'::text[], '{}'::text[], 3, 10, 30`,
    );
    const readAhead = await cachedPlan(
      'svc_delivery_claim_endpoint_after',
      `${literal(endpoints[0], 'text')}, ${literal(START, 'timestamptz')}, ${literal(START, 'timestamptz')}, ` +
        `${literal(5, 'bigint')}, ${literal(10, 'int')}`,
    );
    for (const plan of [record, claimPlan, readAhead]) {
      expect(plan).toMatch(/Index (Only )?Scan using deliveries_/);
      expect(plan).not.toMatch(/Seq Scan on deliveries/);
    }
  });
});
