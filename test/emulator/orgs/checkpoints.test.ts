// Backends: a checkpoint and its rewind are SQL run by the database (JSON built and read back by PostgreSQL's own
// functions), and on PostgreSQL a rewind also locks the org's endpoints against other claims and waits for the
// word of other workers; both are the backend's.
// Per-org checkpoints: a rewind puts every row of the org back as the checkpoint saved it (read here row by row,
// straight from the database), its clock and next attempts to the millisecond, cancels what was in flight for the
// org, and leaves every other org alone. One emulator per storage for the file; each test works in orgs of its own.
import {afterAll, afterEach, beforeAll, expect, it} from 'vitest';
import {EmulatorControl, EmulatorControlError} from '../../../src/client/emulator-control.js';
import {MAX_CHECKPOINTS_PER_ORG, RETRY_WAITS_MS} from '../../../src/definitions.js';
import type {Database} from '../../../src/emulator/db/database.js';
import {journalTable} from '../../../src/emulator/db/tables.js';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {CHECKPOINT_TABLES} from '../../../src/schemas/checkpoints.js';
import {EMULATOR_BACKENDS} from '../../helpers/emulator-backends.js';
import {describeEachBackend} from '../../helpers/requirements.js';
import {startHoldReceiver} from '../delivery/hold-receiver.js';
import {answer, type Receiver, startReceiver} from '../delivery/helpers.js';

const START = new Date('2032-02-01T09:00:00.000Z');
const FIRST_WAIT_S = (RETRY_WAITS_MS[0] as number) / 1000;
const SECOND_WAIT_S = (RETRY_WAITS_MS[1] as number) / 1000;
/** Attempts (or rows a rewind wrote back) between two VACUUMs of the delivery tables, on PGlite. */
const VACUUM_EVERY = 300;

/**
 * Every row of the org in each table it owns, as the database holds it (JSON of the whole row, microseconds kept),
 * read with queries of the test's own. A delivery's lease belongs to the worker holding it, not to the org.
 */
async function orgRows(db: Database, orgId: string): Promise<Record<string, unknown[]>> {
  const of = async (sql: string) =>
    (await db.query<{row: unknown}>(sql, [orgId])).rows.map((r) =>
      typeof r.row === 'string' ? JSON.parse(r.row) : r.row,
    );
  return {
    api_keys: await of('SELECT to_jsonb(t) AS row FROM api_keys t WHERE org_id = $1 ORDER BY id'),
    webhook_endpoints: await of(
      'SELECT to_jsonb(t) AS row FROM webhook_endpoints t WHERE org_id = $1 ORDER BY id',
    ),
    relay_endpoints: await of(
      'SELECT to_jsonb(t) AS row FROM relay_endpoints t WHERE org_id = $1 ORDER BY endpoint_id',
    ),
    sandboxes: await of('SELECT to_jsonb(t) AS row FROM sandboxes t WHERE org_id = $1 ORDER BY id'),
    sandbox_links: await of('SELECT to_jsonb(t) AS row FROM sandbox_links t WHERE org_id = $1 ORDER BY id'),
    events: await of('SELECT to_jsonb(t) AS row FROM events t WHERE org_id = $1 ORDER BY id'),
    deliveries: await of(
      `SELECT to_jsonb(t) - 'locked_until' - 'locked_by' AS row FROM deliveries t WHERE org_id = $1 ORDER BY id`,
    ),
    delivery_attempts: await of(
      `SELECT to_jsonb(a) AS row FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
        WHERE d.org_id = $1 ORDER BY a.delivery_id, a.attempt`,
    ),
  };
}

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

describeEachBackend(EMULATOR_BACKENDS, 'org checkpoints ($name)', (backend) => {
  let emu: RunningEmulator;
  let dispose: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const storage = await backend.options();
    dispose = storage.dispose;
    emu = await startEmulator({
      ...storage.options,
      port: 0,
      clock: 'manual',
      clockStart: START,
      allowLocalEndpoints: true,
      delivery: {worker: {vacuumEvery: VACUUM_EVERY}},
    });
  });
  afterAll(async () => {
    await emu?.stop();
    await dispose();
  });

  async function failingReceiver(): Promise<Receiver> {
    const r = await startReceiver(answer(500));
    cleanups.push(() => r.close());
    return r;
  }

  /** An org with a key, a sandbox and a link, an endpoint that fails, and `events` events with one attempt each. */
  async function busyOrg(name: string, events = 2) {
    const control = emu.control;
    const org = await control.createOrg({name});
    const receiver = await failingReceiver();
    const key = await control.createKey({name: 'k', org_id: org.id});
    const hook = await control.createWebhook({url: receiver.url, events: ['sandbox.error'], org_id: org.id});
    const sandbox = await control.createSandbox({org_id: org.id});
    await control.createLink(sandbox.sandbox.id, {kind: 'desktop', key_id: key.id});
    const eventIds: string[] = [];
    for (let i = 0; i < events; i++) {
      const move = await control.trigger({type: 'sandbox.error', org_id: org.id});
      eventIds.push(move.event?.id as string);
    }
    for (const id of eventIds) await control.waitForDelivery({event_id: id, attempts: 1});
    return {org, key, hook, receiver, eventIds};
  }

  it('puts every row of the org back as saved, with its clock and next attempts to the millisecond', async () => {
    const control = emu.control;
    const {org, key, hook, eventIds} = await busyOrg('rewound');
    await control.advanceClock(`${FIRST_WAIT_S}s`, {org: org.id, settle: true});
    const saved = await orgRows(emu.db, org.id);
    const clockThen = await control.orgClock(org.id);
    const checkpoint = await control.checkpoint(org.id, 'two-attempts');
    expect(checkpoint).toMatchObject({
      name: 'two-attempts',
      org_id: org.id,
      clock_now: clockThen.now,
      // The sandbox made and one per trigger, each with its event; the endpoint hears sandbox.error only.
      counts: {api_keys: 1, webhook_endpoints: 1, sandboxes: 3, sandbox_links: 1, events: 3, deliveries: 2},
    });
    expect(checkpoint.counts.delivery_attempts).toBe(4);
    const first = await control.waitForDelivery({event_id: eventIds[0] as string, attempts: 2});
    const dueAt = first.delivery.next_attempt_at as string;

    // The org moves on: a third attempt, a new event, a revoked key and a new one, its endpoint deleted and another
    // made, its sandbox stopped.
    await control.advanceClock(`${SECOND_WAIT_S}s`, {org: org.id, settle: true});
    await control.trigger({type: 'sandbox.error', org_id: org.id});
    await control.revokeKey(key.id);
    await control.createKey({name: 'later', org_id: org.id});
    await control.deleteWebhook(hook.id);
    await control.createWebhook({url: 'http://127.0.0.1:9/x', events: ['sandbox.ready'], org_id: org.id});
    expect(await orgRows(emu.db, org.id)).not.toEqual(saved);

    const rewound = await control.rewind(org.id, 'two-attempts');
    expect(rewound).toMatchObject({...checkpoint, clock_restored: true, cancelled: {endpoints: []}});
    expect(await orgRows(emu.db, org.id)).toEqual(saved);
    expect((await control.orgClock(org.id)).now).toBe(clockThen.now);

    // The schedule goes on from the checkpoint: the third attempt is made at the instant saved, to the millisecond.
    await control.advanceClock(`${SECOND_WAIT_S}s`, {org: org.id, settle: true});
    const again = await control.delivery(first.delivery.id);
    expect(again.attempts).toHaveLength(3);
    expect(again.attempts[2]?.started_at).toBe(dueAt);
    // And the checkpoint stays, to rewind to again.
    await control.rewind(org.id, 'two-attempts');
    expect(await orgRows(emu.db, org.id)).toEqual(saved);
    expect((await control.checkpoints(org.id)).map((c) => c.name)).toEqual(['two-attempts']);
  });

  it('goes back to an earlier checkpoint and forward to a later one, each row for row, and keeps nothing of a deleted one', async () => {
    const control = emu.control;
    const {org, key, hook} = await busyOrg('back and forth');
    const first = await orgRows(emu.db, org.id);
    const firstClock = await control.orgClock(org.id);
    await control.checkpoint(org.id, 'first');

    // Between the two: an attempt, a revoked key, the endpoint deleted (its deliveries and their attempts go
    // with it) and another made with an event delivered to it, twice over the same rows.
    await control.advanceClock(`${FIRST_WAIT_S}s`, {org: org.id, settle: true});
    await control.revokeKey(key.id);
    await control.deleteWebhook(hook.id);
    const receiver = await failingReceiver();
    await control.createWebhook({url: receiver.url, events: ['sandbox.error'], org_id: org.id});
    const move = await control.trigger({type: 'sandbox.error', org_id: org.id});
    await control.waitForDelivery({event_id: move.event?.id as string, attempts: 1});
    await control.advanceClock(`${FIRST_WAIT_S}s`, {org: org.id, settle: true});
    await control.waitForDelivery({event_id: move.event?.id as string, attempts: 2});
    const second = await orgRows(emu.db, org.id);
    const secondClock = await control.orgClock(org.id);
    await control.checkpoint(org.id, 'second');

    await control.createKey({name: 'after both', org_id: org.id});
    await control.advanceClock(`${SECOND_WAIT_S}s`, {org: org.id, settle: true});
    expect(await orgRows(emu.db, org.id)).not.toEqual(second);

    await control.rewind(org.id, 'first');
    expect(await orgRows(emu.db, org.id)).toEqual(first);
    expect(await control.orgClock(org.id)).toEqual(firstClock);
    await control.rewind(org.id, 'second');
    expect(await orgRows(emu.db, org.id)).toEqual(second);
    expect(await control.orgClock(org.id)).toEqual(secondClock);
    await control.createKey({name: 'after the rewinds', org_id: org.id});
    await control.rewind(org.id, 'first');
    expect(await orgRows(emu.db, org.id)).toEqual(first);
    await control.rewind(org.id, 'second');
    expect(await orgRows(emu.db, org.id)).toEqual(second);

    // With its checkpoints gone, nothing of the org's past is kept.
    await control.deleteCheckpoint(org.id, 'first');
    await control.deleteCheckpoint(org.id, 'second');
    await control.revokeKey((await control.createKey({name: 'unjournaled', org_id: org.id})).id);
    for (const table of CHECKPOINT_TABLES) {
      const {rows} = await emu.db.query<{n: number}>(
        `SELECT count(*)::int AS n FROM ${journalTable(table)} WHERE journal_org_id = $1`,
        [org.id],
      );
      expect(rows[0]?.n, table).toBe(0);
    }
  });

  it('vacuums the tables before it answers when it wrote back as many rows as make a VACUUM due (PGlite alone)', async () => {
    const control = emu.control;
    // The events, and the journal's entries of them, which the rewind forgets.
    const vacuums = async () =>
      (
        await emu.db.query<{n: string | number}>(
          // This schema's: test files sharing a PostgreSQL each have their own tables of the same names.
          `SELECT vacuum_count AS n FROM pg_stat_user_tables
            WHERE schemaname = current_schema() AND relname = ANY($1::text[]) ORDER BY relname`,
          [['events', journalTable('events')]],
        )
      ).rows.map((r) => Number(r.n));
    const org = await control.createOrg({name: 'many rows'});
    await control.checkpoint(org.id, 'empty');
    // As many events as make a VACUUM due, written straight to the table: the rewind deletes each.
    await emu.db.query(
      `INSERT INTO events (id, org_id, type, created_at, body)
       SELECT $1 || '_evt_' || g, $1, 'sandbox.ready', now(), '{}' FROM generate_series(1, $2) g`,
      [org.id, VACUUM_EVERY],
    );
    const before = await vacuums();
    await control.rewind(org.id, 'empty');
    // PostgreSQL vacuums its tables itself (autovacuum, not counted here); an emulator sharing one never does.
    expect(await vacuums()).toEqual(backend.name === 'PGlite' ? before.map((n) => n + 1) : before);
    expect((await orgRows(emu.db, org.id)).events).toEqual([]);
  });

  it('hands back every delivery of the org a worker held, whether held when the checkpoint was taken or since', async () => {
    const control = emu.control;
    const {org, eventIds} = await busyOrg('leased', 2);
    const [held, later] = await Promise.all(
      eventIds.map(async (id) => (await control.waitForDelivery({event_id: id, attempts: 1})).delivery.id),
    );
    // As a worker that stopped while it held a delivery leaves it (the worker here leaves these alone: their
    // retries are not due on the org's clock). A lease that has run out: on PostgreSQL a rewind waits for the word
    // of each process holding a live one, and this one's holder is nobody.
    const lease = (id: string | undefined) =>
      emu.db.query(`UPDATE deliveries SET locked_by = 'a-stopped-process', locked_until = $2 WHERE id = $1`, [
        id,
        new Date(Date.now() - 60_000),
      ]);
    const leased = async () =>
      (
        await emu.db.query<{id: string}>(
          `SELECT id FROM deliveries WHERE org_id = $1 AND (locked_by IS NOT NULL OR locked_until IS NOT NULL)`,
          [org.id],
        )
      ).rows.map((r) => r.id);
    // Held while the checkpoint is taken and still held at the rewind: nothing since changed its row.
    await lease(held);
    await control.checkpoint(org.id, 'one-held');
    expect(await leased()).toEqual([held]);
    await control.rewind(org.id, 'one-held');
    expect(await leased()).toEqual([]);
    // None held while the checkpoint is taken; two taken since.
    await control.checkpoint(org.id, 'none-held');
    await lease(held);
    await lease(later);
    await control.rewind(org.id, 'none-held');
    expect(await leased()).toEqual([]);
  });

  it('leaves every other org alone while several orgs rewind at once', async () => {
    const control = emu.control;
    const bystander = await busyOrg('bystander', 1);
    await control.advanceClock(`${FIRST_WAIT_S}s`, {org: bystander.org.id, settle: true});
    const orgs = await Promise.all(['a', 'b', 'c', 'd'].map((n) => busyOrg(`parallel ${n}`, 2)));
    const saved = await Promise.all(
      orgs.map(async ({org}) => {
        await control.checkpoint(org.id, 'start');
        return orgRows(emu.db, org.id);
      }),
    );
    const bystanderRows = await orgRows(emu.db, bystander.org.id);
    const bystanderClock = await control.orgClock(bystander.org.id);
    // Each org moves on and is rewound, all at once.
    await Promise.all(
      orgs.map(async ({org}) => {
        await control.advanceClock(`${FIRST_WAIT_S}s`, {org: org.id, settle: true});
        await control.trigger({type: 'sandbox.error', org_id: org.id});
        await control.rewind(org.id, 'start');
      }),
    );
    for (const [i, {org}] of orgs.entries()) expect(await orgRows(emu.db, org.id)).toEqual(saved[i]);
    expect(await orgRows(emu.db, bystander.org.id)).toEqual(bystanderRows);
    expect(await control.orgClock(bystander.org.id)).toEqual(bystanderClock);
  });

  it('changes no row of 64 orgs running at once while one org is checkpointed and rewound', {
    timeout: 120_000,
  }, async () => {
    const control = emu.control;
    const ok = await startReceiver(answer(200));
    cleanups.push(() => ok.close());
    const target = await busyOrg('checkpointed among many', 2);
    await control.checkpoint(target.org.id, 'start');
    const targetSaved = await orgRows(emu.db, target.org.id);
    // 64 orgs, each with a key, an endpoint and one event delivered.
    const deliverOne = async (orgId: string) => {
      const move = await control.trigger({type: 'sandbox.error', org_id: orgId});
      const eventId = move.event?.id as string;
      await control.waitForDelivery({event_id: eventId, status: 'succeeded'});
      return eventId;
    };
    const others = await Promise.all(
      Array.from({length: 64}, async (_, i) => {
        const org = await control.createOrg({name: `running ${i}`});
        await control.createKey({name: 'k', org_id: org.id});
        await control.createWebhook({url: ok.url, events: ['sandbox.error'], org_id: org.id});
        await deliverOne(org.id);
        return org.id;
      }),
    );
    const before = await Promise.all(
      others.map(async (id) => ({rows: await orgRows(emu.db, id), clock: await control.orgClock(id)})),
    );

    // All at once: each of the 64 delivers another event while the target, three times over, moves on, is rewound,
    // takes a checkpoint, moves on and is rewound to that.
    const [made] = await Promise.all([
      Promise.all(others.map(deliverOne)),
      (async () => {
        for (let round = 0; round < 3; round++) {
          await control.trigger({type: 'sandbox.error', org_id: target.org.id});
          await control.rewind(target.org.id, 'start');
          await control.checkpoint(target.org.id, `round-${round}`);
          await control.trigger({type: 'sandbox.error', org_id: target.org.id});
          await control.rewind(target.org.id, `round-${round}`);
        }
      })(),
    ]);

    expect(await orgRows(emu.db, target.org.id)).toEqual(targetSaved);
    // Every row an org held before is there as it was; the only rows added are its own event's (a trigger makes
    // a sandbox and its event, the endpoint's delivery and its one attempt).
    const added = {sandboxes: 1, events: 1, deliveries: 1, delivery_attempts: 1};
    for (const [i, orgId] of others.entries()) {
      const was = before[i] as (typeof before)[number];
      const now = await orgRows(emu.db, orgId);
      for (const [table, rows] of Object.entries(was.rows)) {
        const after = now[table] ?? [];
        const kept = new Set(after.map((r) => JSON.stringify(r)));
        expect(
          rows.filter((r) => !kept.has(JSON.stringify(r))),
          `${orgId} ${table}`,
        ).toEqual([]);
        expect(after.length - rows.length, `${orgId} ${table}`).toBe(added[table as keyof typeof added] ?? 0);
      }
      expect(now.events?.map((e) => (e as {id: string}).id)).toContain(made[i]);
      expect(await control.orgClock(orgId)).toEqual(was.clock);
    }
  });

  it('cancels an attempt in flight for the org: it is cut short and never recorded', async () => {
    const control = emu.control;
    const org = await control.createOrg({name: 'in flight'});
    const receiver = await startHoldReceiver();
    cleanups.push(() => receiver.close());
    const hook = await control.createWebhook({url: receiver.url, events: ['sandbox.error'], org_id: org.id});
    await control.checkpoint(org.id, 'before');
    const saved = await orgRows(emu.db, org.id);
    const move = await control.trigger({type: 'sandbox.error', org_id: org.id});
    await receiver.arrived(1);

    const rewound = await control.rewind(org.id, 'before');
    expect(rewound.cancelled.endpoints).toEqual([hook.id]);
    receiver.release();
    expect(await orgRows(emu.db, org.id)).toEqual(saved);
    await expect(control.waitForDelivery({event_id: move.event?.id as string, timeout: 1})).rejects.toThrow();
    // The endpoint works on: the next event is delivered.
    receiver.holding = false;
    const next = await control.trigger({type: 'sandbox.error', org_id: org.id});
    expect((await control.waitForDelivery({event_id: next.event?.id as string})).delivery.status).toBe(
      'succeeded',
    );
  });

  it('answers bad input with its status and code, and reaches an org through its own control token', async () => {
    const control = emu.control;
    const org = await control.createOrg({name: 'bad input'});
    const refusal = async (call: Promise<unknown>) => {
      const err = await call.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(EmulatorControlError);
      const e = err as EmulatorControlError;
      return {status: e.status, code: e.code, message: e.message};
    };
    expect(await refusal(control.checkpoint('org_000000000000000000000000', 'x'))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    for (const name of ['', ' x', '-x', 'a/b', 'é', 'x'.repeat(65)]) {
      expect(await refusal(control.checkpoint(org.id, name))).toMatchObject({
        status: 400,
        code: 'invalid_request',
      });
    }
    expect(await refusal(control.rewind(org.id, 'x'.repeat(65)))).toMatchObject({status: 400});
    expect(await refusal(control.rewind(org.id, 'never-taken'))).toMatchObject({
      status: 404,
      code: 'not_found',
      message: expect.stringContaining(`svc emulator orgs checkpoints ${org.id}`),
    });
    expect(await refusal(control.deleteCheckpoint(org.id, 'never-taken'))).toMatchObject({status: 404});
    await control.checkpoint(org.id, 'x'.repeat(64));
    expect(await refusal(control.checkpoint(org.id, 'x'.repeat(64)))).toMatchObject({
      status: 409,
      code: 'conflict',
    });
    for (let i = 1; i < MAX_CHECKPOINTS_PER_ORG; i++) await control.checkpoint(org.id, `n${i}`);
    expect(await refusal(control.checkpoint(org.id, 'one-too-many'))).toMatchObject({
      status: 409,
      message: expect.stringContaining('delete one'),
    });
    expect(await control.deleteCheckpoint(org.id, 'n1')).toEqual({deleted: true, org_id: org.id, name: 'n1'});
    await control.checkpoint(org.id, 'one-too-many');

    // An org's own control token reaches its checkpoints, and not another org's.
    const other = await control.createOrg({name: 'other'});
    const token = await control.createControlToken({org_id: org.id});
    const own = new EmulatorControl({url: emu.apiUrl, adminToken: token.token});
    expect((await own.checkpoints(org.id)).length).toBe(MAX_CHECKPOINTS_PER_ORG);
    await own.rewind(org.id, 'one-too-many');
    expect(await refusal(own.checkpoint(other.id, 'x'))).toMatchObject({status: 403, code: 'forbidden'});
    expect(await refusal(own.rewind(other.id, 'x'))).toMatchObject({status: 403});
  });
});
