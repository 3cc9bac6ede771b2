// Several emulator processes on one PostgreSQL share orgs, keys, endpoints, events, the delivery queue and the
// manual clock, and every write through one is seen by the very next request to another. Two processes for the
// file; a third is started only where joining late is under test.
import {randomBytes} from 'node:crypto';
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {signalsConnectionName} from '../../../src/emulator/db/notify.js';
import {describeNeeding, itNeeding, POSTGRES, ROOT} from '../../helpers/requirements.js';
import {apiGet, type EmulatorProcess, freshSchema, type Schema, startProcess} from './cluster.js';

interface Arrival {
  deliveryId: string;
  eventId: string;
  attempt: string;
}

describeNeeding([POSTGRES], 'emulator processes sharing one PostgreSQL', () => {
  const vaultKey = randomBytes(32);
  const start = '2030-01-01T00:00:00.000Z';
  let schema: Schema;
  let a: EmulatorProcess;
  let b: EmulatorProcess;
  let receiver: Server;
  let receiverUrl: string;
  const arrivals: Arrival[] = [];
  let arrived: (() => void) | undefined;

  beforeAll(async () => {
    schema = await freshSchema();
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        arrivals.push({
          deliveryId: String(req.headers['svc-delivery-id']),
          eventId: String(req.headers['svc-event-id']),
          attempt: String(req.headers['svc-delivery-attempt']),
        });
        res.end('ok');
        arrived?.();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    // A delivers and would look for work on its own only every two minutes; B serves requests but delivers
    // nothing (no lanes), so whatever B records reaches the receiver only if A hears of it.
    [a, b] = await Promise.all([
      startProcess(schema.url, vaultKey, {
        clock: 'manual',
        clockStart: start,
        delivery: {worker: {idleMs: 120_000}},
      }),
      startProcess(schema.url, vaultKey, {
        clock: 'manual',
        clockStart: start,
        delivery: {worker: {maxLanes: 0}},
      }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await new Promise((resolve) => receiver?.close(resolve));
    await schema?.drop();
  });

  it('start as one deployment: the same default org, made once', async () => {
    expect(a.orgId).toBe(b.orgId);
    const {rows} = await schema.admin.query('SELECT count(*)::int AS n FROM orgs');
    expect(rows[0].n).toBe(1);
  });

  it('refuse a key revoked through one process on the very next request to the other', async () => {
    for (let i = 0; i < 10; i++) {
      const key = await a.control.createKey({name: `revoke-${i}`});
      // Read through both first, so each process holds the key in memory.
      expect((await apiGet(b.apiUrl, '/v1/org', key.secret)).status).toBe(200);
      expect((await apiGet(a.apiUrl, '/v1/org', key.secret)).status).toBe(200);
      await (i % 2 === 0 ? a : b).control.revokeKey(key.id);
      expect((await apiGet(b.apiUrl, '/v1/org', key.secret)).status).toBe(401);
      expect((await apiGet(a.apiUrl, '/v1/org', key.secret)).status).toBe(401);
    }
  });

  itNeeding(
    [ROOT],
    'answer from the database while word of other writes cannot reach them (their listening backend paused)',
    async () => {
      const key = await a.control.createKey({name: 'unheard'});
      const revoked = await a.control.createKey({name: 'unheard, revoked'});
      const hook = await a.control.createWebhook({
        url: `${receiverUrl}?unheard`,
        events: ['sandbox.stopped'],
      });
      const list = async () =>
        ((await apiGet(b.apiUrl, '/v1/webhooks', key.secret)).body as {data: {id: string}[]}).data.map(
          (e) => e.id,
        );
      const org = async () => (await apiGet(b.apiUrl, '/v1/org', revoked.secret)).status;
      // Read through b twice (a key's first use writes its last_used_at): its caches now hold all three.
      for (let i = 0; i < 2; i++) {
        expect(await list()).toContain(hook.id);
        expect(await org()).toBe(200);
      }
      // b's listening connection's backend, stopped: word of a write is sent at its commit and never reaches b,
      // as when, under load, the next request arrives before it. (Only b's: other files' emulators share the server.)
      const {rows} = await schema.admin.query(
        'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
        [signalsConnectionName(schema.appName, b.child.pid as number)],
      );
      expect(rows).toHaveLength(1);
      const listener = rows[0].pid as number;
      process.kill(listener, 'SIGSTOP');
      try {
        await schema.admin.query('DELETE FROM webhook_endpoints WHERE id = $1', [hook.id]);
        await schema.admin.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [revoked.id]);
        // Both at once: each waits for word it cannot get (one sync timeout), then reads the database.
        const [listed, status] = await Promise.all([list(), org()]);
        expect(listed).not.toContain(hook.id);
        expect(status).toBe(401);
      } finally {
        process.kill(listener, 'SIGCONT');
      }
      // Heard again, and still the database's answer.
      expect(await org()).toBe(401);
      expect(await list()).not.toContain(hook.id);
    },
  );

  it('show an endpoint added or removed through one process in the next list of the other', async () => {
    const key = await a.control.createKey({name: 'lists'});
    const list = async (p: EmulatorProcess) =>
      ((await apiGet(p.apiUrl, '/v1/webhooks', key.secret)).body as {data: {id: string}[]}).data.map(
        (e) => e.id,
      );
    // Twice, so the key's first use (which writes its last_used_at, and so empties B's own cache) is behind us.
    await list(a);
    await list(b);
    const before = await list(b);
    const created = await a.control.createWebhook({url: `${receiverUrl}?lists`, events: ['sandbox.stopped']});
    expect(await list(b)).toEqual([created.id, ...before]);
    await b.control.deleteWebhook(created.id);
    expect(await list(a)).toEqual(before);
  });

  it('know an org created through one process in the other at once', async () => {
    const org = await a.control.createOrg({name: 'second team'});
    const key = await b.control.createKey({name: 'theirs', org_id: org.id});
    const read = await apiGet(a.apiUrl, '/v1/org', key.secret);
    expect(read.status).toBe(200);
    expect((read.body as {id: string}).id).toBe(org.id);
  });

  it('share one manual clock: a move through one process is the time of every process', async () => {
    const before = await a.control.clock();
    expect(before.now).toBe((await b.control.clock()).now);
    const moved = await a.control.advanceClock('1h');
    expect(new Date(moved.now).getTime() - new Date(before.now).getTime()).toBe(3_600_000);
    expect((await b.control.clock()).now).toBe(moved.now);
    const set = await b.control.setClock('2030-06-01T00:00:00.000Z');
    expect((await a.control.clock()).now).toBe(set.now);

    // Key expiry follows the shared clock in every process.
    const key = await b.control.createKey({name: 'expiring', expires: '30'});
    expect((await apiGet(a.apiUrl, '/v1/org', key.secret)).status).toBe(200);
    await b.control.advanceClock('31d');
    expect((await apiGet(a.apiUrl, '/v1/org', key.secret)).status).toBe(401);
  });

  it('add up moves made through both processes at once, and agree on the result', async () => {
    const before = new Date((await a.control.clock()).now).getTime();
    await Promise.all(Array.from({length: 20}, (_, i) => (i % 2 ? a : b).control.advanceClock('1m')));
    const [onA, onB] = await Promise.all([a.control.clock(), b.control.clock()]);
    expect(new Date(onA.now).getTime() - before).toBe(20 * 60_000);
    expect(onB.now).toBe(onA.now);
  });

  it('take the shared time when a process joins later, whatever time it was started with', async () => {
    const c = await startProcess(schema.url, vaultKey, {
      clock: 'manual',
      clockStart: '2040-01-01T00:00:00.000Z',
    });
    try {
      expect((await c.control.clock()).now).toBe((await a.control.clock()).now);
    } finally {
      await c.stop();
    }
  });

  it('deliver events triggered through a process that does not deliver, each once, without polling', async () => {
    const endpoint = await b.control.createWebhook({url: receiverUrl, events: ['sandbox.ready']});
    const triggered = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const move = await b.control.trigger({type: 'sandbox.ready'});
      triggered.add(move.event?.id as string);
    }
    // A's own look for work comes every two minutes: these arrive only because B's events woke it.
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${arrivals.length} of 20 arrived`)), 20_000);
      arrived = () => {
        if (arrivals.length >= triggered.size) {
          clearTimeout(timer);
          resolve();
        }
      };
      arrived();
    });
    expect(new Set(arrivals.map((x) => x.eventId))).toEqual(triggered);
    expect(new Set(arrivals.map((x) => x.deliveryId)).size).toBe(arrivals.length);
    expect(arrivals.every((x) => x.attempt === '1')).toBe(true);
    // Recorded by A a moment after the receiver answered; B hears of each record and answers the wait.
    for (const eventId of triggered) {
      const detail = await b.control.waitForDelivery({event_id: eventId, status: 'succeeded'});
      expect(detail.endpoint_id).toBe(endpoint.id);
    }
    const {rows} = await schema.admin.query(
      `SELECT status, count(*)::int AS n FROM deliveries WHERE endpoint_id = $1 GROUP BY status`,
      [endpoint.id],
    );
    expect(rows).toEqual([{status: 'succeeded', n: 20}]);
    await b.control.deleteWebhook(endpoint.id);
  });

  it('bypass its caches while its notification connection is down, and trust them again once it is back', async () => {
    const key = await a.control.createKey({name: 'outage'});
    expect((await apiGet(b.apiUrl, '/v1/org', key.secret)).status).toBe(200);
    const bPid = b.child.pid;
    // Cut every listening connection of the emulators (each process has one).
    await schema.admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name LIKE $1 || ' % signals' AND query LIKE 'LISTEN%' AND datname = current_database()`,
      [schema.appName],
    );
    await b.stderrUntil('lost the database notification connection');
    await a.control.revokeKey(key.id);
    expect((await apiGet(b.apiUrl, '/v1/org', key.secret)).status).toBe(401);
    await b.stderrUntil('notification connection is back');
    const again = await a.control.createKey({name: 'after the outage'});
    expect((await apiGet(b.apiUrl, '/v1/org', again.secret)).status).toBe(200);
    await a.control.revokeKey(again.id);
    expect((await apiGet(b.apiUrl, '/v1/org', again.secret)).status).toBe(401);
    expect(b.child.pid).toBe(bPid);
  });
});
