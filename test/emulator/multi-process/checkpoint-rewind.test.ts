// A rewind across emulator processes on one PostgreSQL: an org rewound through one process is the rewound org on
// the very next request to the other, which had read it before and kept its key and endpoint in memory: the key
// revoked since the checkpoint works again, the endpoint deleted since is listed again, the org's clock is back at
// the checkpoint's time and its delivery has the attempts and next attempt time saved. No waits: each read is the
// next request after the rewind answered.
// A checkpoint is a mark in the journal of the org's changes on PostgreSQL too, so no transaction of another
// process may have journal entries on both sides of it: one in flight when it is taken, or begun before it and
// writing after, is undone whole by the rewind, never in part. Those transactions are the test's own, on a
// connection of its own, as another process would make them.
import {randomBytes} from 'node:crypto';
import pg from 'pg';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {RETRY_WAITS_MS} from '../../../src/definitions.js';
import {describeNeeding, POSTGRES} from '../../helpers/requirements.js';
import {answer, type Receiver, startReceiver} from '../delivery/helpers.js';
import {apiGet, type EmulatorProcess, freshSchema, type Schema, startProcess} from './cluster.js';

const START = '2032-03-01T10:00:00.000Z';
const FIRST_WAIT_S = (RETRY_WAITS_MS[0] as number) / 1000;

describeNeeding([POSTGRES], 'a rewind across processes', () => {
  const vaultKey = randomBytes(32);
  let schema: Schema;
  let a: EmulatorProcess;
  let b: EmulatorProcess;
  let receiver: Receiver;

  beforeAll(async () => {
    schema = await freshSchema();
    receiver = await startReceiver(answer(500));
    [a, b] = await Promise.all([
      startProcess(schema.url, vaultKey, {clock: 'manual', clockStart: START}),
      startProcess(schema.url, vaultKey, {clock: 'manual', clockStart: START}),
    ]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await receiver?.close();
    await schema?.drop();
  });

  /** What process `p` answers about the org now: its key, its endpoints, its clock and its delivery. */
  async function seenBy(p: EmulatorProcess, orgId: string, secret: string, deliveryId: string) {
    const key = await apiGet(p.apiUrl, '/v1/org', secret);
    const hooks = key.status === 200 ? await apiGet(p.apiUrl, '/v1/webhooks', secret) : undefined;
    const delivery = await p.control.delivery(deliveryId);
    return {
      keyStatus: key.status,
      endpoints: ((hooks?.body as {data?: {id: string}[]} | undefined)?.data ?? []).map((h) => h.id),
      now: (await p.control.orgClock(orgId)).now,
      attempts: delivery.attempts.length,
      nextAttemptAt: delivery.delivery.next_attempt_at,
    };
  }

  it('is the rewound org on the next request to the other process, either way round', {
    timeout: 90_000,
  }, async () => {
    const org = await a.control.createOrg({name: 'rewound elsewhere'});
    const key = await a.control.createKey({name: 'k', org_id: org.id});
    const hook = await a.control.createWebhook({
      url: receiver.url,
      events: ['sandbox.error'],
      org_id: org.id,
    });
    const move = await a.control.trigger({type: 'sandbox.error', org_id: org.id});
    const first = await a.control.waitForDelivery({event_id: move.event?.id as string, attempts: 1});
    const deliveryId = first.delivery.id;

    const saved = await seenBy(b, org.id, key.secret, deliveryId);
    expect(saved).toMatchObject({keyStatus: 200, endpoints: [hook.id], now: START, attempts: 1});
    expect(await seenBy(a, org.id, key.secret, deliveryId)).toEqual(saved);
    const checkpoint = await a.control.checkpoint(org.id, 'one-attempt');
    expect(checkpoint.clock_now).toBe(START);

    // Each way round: the org moves on through one process (a second attempt, the key revoked, the endpoint and so
    // its delivery deleted) and is rewound through the other.
    for (const [moving, rewinding] of [
      [b, a],
      [a, b],
    ] as const) {
      await moving.control.advanceClock(`${FIRST_WAIT_S}s`, {org: org.id, settle: true});
      expect((await moving.control.delivery(deliveryId)).attempts).toHaveLength(2);
      await moving.control.revokeKey(key.id);
      await moving.control.deleteWebhook(hook.id);
      expect((await apiGet(moving.apiUrl, '/v1/org', key.secret)).status).toBe(401);
      expect((await apiGet(rewinding.apiUrl, '/v1/org', key.secret)).status).toBe(401);

      const rewound = await rewinding.control.rewind(org.id, 'one-attempt');
      expect(rewound.clock_restored).toBe(true);
      // The very next request to the process that did not rewind, then to the one that did.
      expect(await seenBy(moving, org.id, key.secret, deliveryId)).toEqual(saved);
      expect(await seenBy(rewinding, org.id, key.secret, deliveryId)).toEqual(saved);
    }
  });

  /** The org's events, and whether its checkpoint `name` is a mark in the journal (or a copy of its rows). */
  async function eventsAndKind(orgId: string, name: string) {
    const events = await schema.admin.query<{id: string}>(
      'SELECT id FROM events WHERE org_id = $1 ORDER BY id',
      [orgId],
    );
    const kept = await schema.admin.query<{journaled: boolean}>(
      'SELECT journal_seq IS NOT NULL AS journaled FROM org_checkpoints WHERE org_id = $1 AND name = $2',
      [orgId, name],
    );
    return {events: events.rows.map((r) => r.id), journaled: kept.rows[0]?.journaled};
  }

  /** Another process's transaction: begun, and then writing the org's events one statement at a time. */
  async function otherTransaction() {
    const client = new pg.Client({connectionString: schema.url});
    await client.connect();
    await client.query('BEGIN');
    return {
      event: (orgId: string, id: string) =>
        client.query(
          `INSERT INTO events (id, org_id, type, created_at, body) VALUES ($1, $2, 'sandbox.ready', now(), '{}')`,
          [id, orgId],
        ),
      commit: async () => {
        await client.query('COMMIT');
        await client.end();
      },
    };
  }

  /**
   * Another process's transaction writes two events of the org, the first before the checkpoint `name` is taken
   * (`firstBefore`) or after it, the second after it. Both are there once it commits; the rewind takes both, and
   * leaves the org's events `kept`. What the checkpoint counted, and whether it is a mark in the journal.
   */
  async function straddled(orgId: string, name: string, firstBefore: boolean, kept: string[]) {
    const other = await otherTransaction();
    if (firstBefore) await other.event(orgId, `evt_${name}_first`);
    const taken = await a.control.checkpoint(orgId, name);
    if (!firstBefore) await other.event(orgId, `evt_${name}_first`);
    await other.event(orgId, `evt_${name}_second`);
    await other.commit();
    const committed = await eventsAndKind(orgId, name);
    expect(committed.events).toEqual([...kept, `evt_${name}_first`, `evt_${name}_second`].sort());
    await b.control.rewind(orgId, name);
    expect((await eventsAndKind(orgId, name)).events).toEqual(kept);
    return {counted: taken.counts.events, journaled: committed.journaled};
  }

  it('undoes whole a transaction that wrote the org while the checkpoint was taken, or began before it', {
    timeout: 60_000,
  }, async () => {
    const org = await a.control.createOrg({name: 'mid-transaction'});
    const move = await a.control.trigger({type: 'sandbox.ready', org_id: org.id});
    const kept = [move.event?.id as string];
    // Begun before the checkpoint, writing only after it: journaled, so undone.
    expect(await straddled(org.id, 'late', false, kept)).toEqual({counted: 1, journaled: true});
    // Holding a write of the org's past every wait the checkpoint makes for it: the checkpoint is a copy of the org
    // without that write.
    expect(await straddled(org.id, 'held', true, kept)).toEqual({counted: 1, journaled: false});
  });
});
