// The leased claim, used where several processes share one database: which deliveries a worker takes, that it
// leases them so no other worker takes them until the lease runs out, and, on PostgreSQL, that claims made at
// the same moment never share a delivery. Runs on PGlite always and on PostgreSQL when one is configured.
// Backends: leases and claims made at the same moment are decided by PostgreSQL's row locks (SKIP LOCKED), which PGlite never sees.
import pg from 'pg';
import {afterAll, beforeAll, beforeEach, expect, it} from 'vitest';
import {manualClock} from '../../../src/emulator/clock.js';
import type {Database} from '../../../src/emulator/db/database.js';
import {openStorage} from '../../../src/emulator/db/open.js';
import {type ClaimedDelivery, claimDue} from '../../../src/emulator/delivery/claim.js';
import {PreparedStatements} from '../../../src/emulator/delivery/statements.js';
import {DeliveryWorker} from '../../../src/emulator/delivery/worker.js';
import {createVault} from '../../../src/emulator/vault.js';
import {type ScratchSchema, scratchSchema} from '../../helpers/pg-schema.js';
import {
  emitReadyEvents,
  openTestDb,
  resetDb,
  seedEndpoint,
  seedOrg,
  startReceiver,
  testVaultKey,
} from './helpers.js';
import {describeEachBackend, POSTGRES, postgresUrl, type Requirement} from '../../helpers/requirements.js';

const START = new Date('2030-01-01T00:00:00Z');
const DUE_BY = new Date(START.getTime() + 60_000);
const vault = createVault(testVaultKey());

interface Backend {
  name: string;
  needs?: Requirement[];
  open(): Promise<{db: Database; url?: string; close(): Promise<void>}>;
}

const backends: Backend[] = [
  {
    name: 'PGlite',
    async open() {
      const db = await openTestDb();
      return {db, close: () => db.close()};
    },
  },
  {
    name: 'PostgreSQL',
    needs: [POSTGRES],
    async open() {
      const schema: ScratchSchema = await scratchSchema(postgresUrl());
      const storage = await openStorage({dataDir: '', databaseUrl: schema.url});
      return {
        db: storage.db,
        url: schema.url,
        async close() {
          await storage.db.close();
          await storage.cleanup();
          await schema.drop();
        },
      };
    },
  },
];

describeEachBackend(backends, 'the leased claim on $name', (backend) => {
  let db: Database;
  let url: string | undefined;
  let close: () => Promise<void>;
  let statements: PreparedStatements;
  let orgId: string;
  let endpoints: string[];

  beforeAll(async () => {
    ({db, url, close} = await backend.open());
    statements = new PreparedStatements(db);
  });
  afterAll(async () => {
    await close?.();
  });
  beforeEach(async () => {
    await resetDb(db);
    orgId = await seedOrg(db, START);
    endpoints = [];
    for (let i = 0; i < 3; i++) {
      const e = await seedEndpoint(db, vault, {
        orgId,
        url: `http://127.0.0.1:1/e${i}`,
        events: ['sandbox.ready'],
        now: new Date(START.getTime() + i),
      });
      endpoints.push(e.id);
    }
  });

  /** Emits `count` events one millisecond apart from `from`: each makes one delivery per endpoint. */
  const emit = (count: number, from = 0) => emitReadyEvents(db, {orgId, start: START, count, from});

  const claim = (o: {
    owner: string;
    busy?: string[];
    relays?: string[];
    lanes: number;
    perEndpoint: number;
    now?: Date;
    realNow?: Date;
    leaseMs?: number;
  }) => {
    const realNow = o.realNow ?? new Date();
    return claimDue(db, statements, {
      now: o.now ?? DUE_BY,
      realNow,
      leaseUntil: new Date(realNow.getTime() + (o.leaseMs ?? 60_000)),
      owner: o.owner,
      busyEndpoints: o.busy ?? [],
      connectedRelays: o.relays ?? [],
      limit: o.lanes * o.perEndpoint,
      lanes: o.lanes,
      perEndpoint: o.perEndpoint,
    });
  };

  const sandboxesOf = (got: ClaimedDelivery[], endpointId: string) =>
    got.filter((d) => d.endpointId === endpointId).map((d) => JSON.parse(d.body).data.sandbox.id);

  async function leasesBy(owner: string): Promise<string[]> {
    const r = await db.query<{id: string}>(
      'SELECT id FROM deliveries WHERE locked_by = $1 AND locked_until IS NOT NULL ORDER BY id',
      [owner],
    );
    return r.rows.map((row) => row.id);
  }

  it('leases the oldest due deliveries of each free endpoint, in order, and nothing of a busy one', async () => {
    await emit(4);
    const got = await claim({owner: 'w_a', busy: [endpoints[1] as string], lanes: 16, perEndpoint: 3});
    expect(got).toHaveLength(6);
    expect(sandboxesOf(got, endpoints[0] as string)).toEqual(['sbx_0', 'sbx_1', 'sbx_2']);
    expect(sandboxesOf(got, endpoints[2] as string)).toEqual(['sbx_0', 'sbx_1', 'sbx_2']);
    expect(sandboxesOf(got, endpoints[1] as string)).toEqual([]);
    expect(got.every((d) => d.attempt === 1 && d.scheduledAttempt === 1 && !d.relay)).toBe(true);
    expect(got.every((d) => d.url === `http://127.0.0.1:1/e${endpoints.indexOf(d.endpointId)}`)).toBe(true);
    // What was handed out is what is leased, to this owner and no other.
    expect(await leasesBy('w_a')).toEqual(got.map((d) => d.id).sort());
  });

  it('hands nothing that is not yet due', async () => {
    await emit(2);
    expect(await claim({owner: 'w_a', lanes: 3, perEndpoint: 5, now: START})).toEqual([]);
  });

  it('gives a leased delivery to nobody else until its lease runs out', async () => {
    await emit(4);
    const first = await claim({owner: 'w_a', lanes: 3, perEndpoint: 2, leaseMs: 1_000});
    const second = await claim({owner: 'w_b', lanes: 3, perEndpoint: 2, leaseMs: 600_000});
    for (const endpointId of endpoints) {
      expect(sandboxesOf(first, endpointId)).toEqual(['sbx_0', 'sbx_1']);
      expect(sandboxesOf(second, endpointId)).toEqual(['sbx_2', 'sbx_3']);
    }
    expect(await claim({owner: 'w_c', lanes: 3, perEndpoint: 2})).toEqual([]);

    // Two seconds on, w_a's leases have run out (a process that died); w_b's have not.
    const later = new Date(Date.now() + 2_000);
    const third = await claim({owner: 'w_c', lanes: 3, perEndpoint: 4, realNow: later});
    expect(third.map((d) => d.id).sort()).toEqual(first.map((d) => d.id).sort());
    expect(await leasesBy('w_a')).toEqual([]);
  });

  it('serves no more endpoints than it has lanes: those whose oldest due delivery is oldest', async () => {
    // Endpoint 2 has the oldest due delivery: one event sent before the others, for it alone.
    await db.query('UPDATE webhook_endpoints SET events = $1 WHERE id <> $2', [
      ['sandbox.stopped'],
      endpoints[2],
    ]);
    await emit(1);
    await db.query('UPDATE webhook_endpoints SET events = $1', [['sandbox.ready']]);
    await emit(2, 1);
    const one = await claim({owner: 'w_a', lanes: 1, perEndpoint: 10});
    expect(new Set(one.map((d) => d.endpointId))).toEqual(new Set([endpoints[2]]));
    expect(sandboxesOf(one, endpoints[2] as string)).toEqual(['sbx_0', 'sbx_1', 'sbx_2']);
    const two = await claim({owner: 'w_b', lanes: 2, perEndpoint: 10});
    expect(new Set(two.map((d) => d.endpointId))).toEqual(new Set([endpoints[0], endpoints[1]]));
  });

  it('skips a relay endpoint until a listener is attached to it', async () => {
    await db.query(
      'INSERT INTO relay_endpoints (org_id, name, endpoint_id, created_at) VALUES ($1, $2, $3, $4)',
      [orgId, 'laptop', endpoints[0], START],
    );
    await emit(2);
    const without = await claim({owner: 'w_a', lanes: 3, perEndpoint: 5});
    expect(new Set(without.map((d) => d.endpointId))).toEqual(new Set([endpoints[1], endpoints[2]]));
    const withListener = await claim({
      owner: 'w_b',
      lanes: 3,
      perEndpoint: 5,
      relays: [endpoints[0] as string],
    });
    expect(withListener.map((d) => [d.endpointId, d.relay])).toEqual([
      [endpoints[0], true],
      [endpoints[0], true],
    ]);
  });

  // Concurrent claims and row locks held by another connection exist only where several connections share the
  // database: these two are registered on PostgreSQL alone.
  const onPostgres = backend.name === 'PostgreSQL' ? it : undefined;

  onPostgres?.('never hands one delivery to two claims made at the same moment', async () => {
    await emit(30);
    const owners = Array.from({length: 8}, (_, i) => `w_${i}`);
    const claims = await Promise.all(owners.map((owner) => claim({owner, lanes: 3, perEndpoint: 4})));
    const ids = claims.flatMap((got) => got.map((d) => d.id));
    expect(ids.length).toBeGreaterThan(12);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [i, owner] of owners.entries()) {
      expect(await leasesBy(owner)).toEqual((claims[i] as ClaimedDelivery[]).map((d) => d.id).sort());
    }
    // Each claim took one unbroken run of each endpoint's deliveries, in order: claims at the same moment do
    // not split an endpoint's batch between them (one would get the 1st and 4th, the other the 2nd and 3rd).
    for (const got of claims) {
      for (const endpointId of endpoints) {
        const sandboxes = sandboxesOf(got, endpointId).map((s) => Number(s.slice(4)));
        expect(sandboxes).toEqual(sandboxes.map((_, k) => (sandboxes[0] as number) + k));
      }
    }
  });

  onPostgres?.(
    'takes what another claim held at the same moment once that claim ends, without being woken',
    async () => {
      const receiver = await startReceiver();
      const other = new pg.Client({connectionString: url});
      await other.connect();
      const worker = new DeliveryWorker({
        db,
        clock: manualClock(DUE_BY),
        vault,
        allowLocalEndpoints: true,
        // Its own idle look is ten minutes away: only noticing the freed rows can get them sent in time.
        idleMs: 600_000,
      });
      try {
        await db.query('UPDATE webhook_endpoints SET url = $1', [receiver.url]);
        await emit(2);
        // Another process's claim, caught in the middle: the due rows are locked, not yet leased.
        await other.query('BEGIN');
        await other.query(`SELECT id FROM deliveries FOR UPDATE`);
        worker.start();
        // The worker has looked, skipped the locked rows and found nothing it could take.
        await worker.settled();
        expect(receiver.requests).toHaveLength(0);
        // That claim ends without leasing anything (its process died, or it took other endpoints).
        await other.query('ROLLBACK');
        await (receiver as Receiver).received(6);
        expect(new Set(receiver.requests.map((r) => r.headers['svc-delivery-id'])).size).toBe(6);
      } finally {
        await worker.stop();
        await other.end();
        await receiver.close();
      }
    },
  );
});
