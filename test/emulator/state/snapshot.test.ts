// Snapshots: the whole state saved and loaded again, on PGlite and PostgreSQL alike; a pending delivery goes on
// where it was, a damaged or newer file is refused before anything is written. One emulator for the file (the
// snapshot's source, which the refusals are tried on too); the others are loads at start, which are under test.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {itNeeding, POSTGRES, postgresUrl} from '../../helpers/requirements.js';
import {
  EmulatorControlError,
  type RunningEmulator,
  type Snapshot,
  startEmulator,
  type StartEmulatorOptions,
} from '../../../src/emulator/index.js';
import {verifySignature} from '../../../src/webhooks/index.js';
import {scratchSchema} from '../../helpers/pg-schema.js';
import {answer, type Receiver, type ReceivedRequest, startReceiver} from '../delivery/helpers.js';

const KEY = `svc_${'SnapKey'.padEnd(40, '0')}`;
const REVOKED = `svc_${'SnapRevoked'.padEnd(40, '0')}`;
const SIGNING = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const ORG = `org_${'SnapOrg'.padEnd(24, '0')}`;
const SANDBOX = `sbx_${'SnapSandbox'.padEnd(24, '0')}`;
const START = new Date('2031-05-01T08:00:00.000Z');

const dir = mkdtempSync(join(tmpdir(), 'svc-snapshot-'));
const file = (name: string, document: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof document === 'string' ? document : JSON.stringify(document));
  return path;
};

const base: StartEmulatorOptions = {
  port: 0,
  inMemory: true,
  clock: 'manual',
  clockStart: START,
  allowLocalEndpoints: true,
};
const get = (emu: RunningEmulator, path: string, key = KEY) =>
  fetch(`${emu.apiUrl}${path}`, {headers: {authorization: `Bearer ${key}`}});

/** Refuses every attempt with 500, so the delivery stays pending and keeps being retried. */
let receiver: Receiver;
let source: RunningEmulator;
let snapshot: Snapshot;
let endpointId: string;
let linkUrl: string;

beforeAll(async () => {
  receiver = await startReceiver(answer(500, 'not yet'));
  const seed = file('seed.json', {
    svc_emulator_seed: 1,
    orgs: [
      {
        id: ORG,
        name: 'Snap org',
        people: [{email: 'owner@example.com', role: 'owner'}],
        keys: [
          {name: 'ci', secret: KEY},
          {name: 'old', secret: REVOKED},
        ],
        webhooks: [{url: `${receiver.url}/hooks`, events: ['sandbox.ready'], secret: SIGNING}],
        sandboxes: [{id: SANDBOX, name: 'runner', status: 'stopped'}],
      },
    ],
  });
  source = await startEmulator({...base, seed});
  const keys = (await (await get(source, '/v1/api-keys')).json()) as {data: {id: string; name: string}[]};
  await source.control.revokeKey(keys.data.find((k) => k.name === 'old')?.id as string);
  const ciKey = keys.data.find((k) => k.name === 'ci')?.id as string;
  endpointId = ((await (await get(source, '/v1/webhooks')).json()) as {data: {id: string}[]}).data[0]
    ?.id as string;
  // One event, one delivery, two failed attempts: pending, next attempt 2 minutes after the second.
  const resumed = await source.control.sandboxAction(SANDBOX, 'resume');
  const eventId = resumed.event?.id as string;
  // A desktop link the ci key opened onto the running sandbox: part of the state, its token kept only as a hash.
  linkUrl = (await source.control.createLink(SANDBOX, {kind: 'desktop', key_id: ciKey})).url;
  // Each attempt is recorded a moment after the receiver answers it: the next step waits for the record.
  await receiver.received(1);
  await source.control.waitForDelivery({event_id: eventId, attempts: 1});
  await source.control.advanceClock('30s');
  await receiver.received(2);
  await source.control.waitForDelivery({event_id: eventId, attempts: 2});
  snapshot = await source.exportState();
});
afterAll(async () => {
  await source?.stop();
  await receiver?.close();
  rmSync(dir, {recursive: true, force: true});
});

describe('a snapshot', () => {
  it('holds every table, keys as hashes and the clock, and no key secret', () => {
    expect(snapshot).toMatchObject({svc_emulator_snapshot: 1, default_org_id: ORG, clock: {mode: 'manual'}});
    expect(snapshot.api_keys.map((k) => [k.name, k.revoked_at === null])).toEqual(
      expect.arrayContaining([
        ['ci', true],
        ['old', false],
      ]),
    );
    expect(snapshot.webhook_endpoints[0]?.secret).toBe(SIGNING);
    expect(snapshot.deliveries).toHaveLength(1);
    expect(snapshot.deliveries[0]).toMatchObject({status: 'pending', attempts: 2});
    expect(snapshot.delivery_attempts.map((a) => [a.attempt, a.status_code])).toEqual([
      [1, 500],
      [2, 500],
    ]);
    expect(snapshot.sandbox_links).toEqual([
      expect.objectContaining({kind: 'desktop', sandbox_id: SANDBOX, port: null}),
    ]);
    const text = JSON.stringify(snapshot);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(REVOKED);
    expect(text).not.toContain(new URL(linkUrl).pathname.split('/')[2]);
  });

  it('loads into a fresh emulator as the same state, and the pending delivery goes on where it was', async () => {
    const target = await startEmulator({
      ...base,
      clockStart: new Date('2020-01-01T00:00:00Z'),
      importFile: file('state.json', snapshot),
    });
    try {
      expect(target.imported).toMatchObject({kind: 'snapshot', default_org_id: ORG, clock: 'set'});
      expect(target.clock.now().toISOString()).toBe(snapshot.clock.now);
      expect(await target.exportState()).toEqual(snapshot);
      expect((await get(target, '/v1/org')).status).toBe(200);
      expect((await get(target, '/v1/org', REVOKED)).status).toBe(401);
      // The link's URL, on the new emulator's address, opens the same desktop page.
      const link = new URL(linkUrl);
      const page = await fetch(`${target.apiUrl}${link.pathname}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('runner');
      const deliveries = await (await get(target, `/v1/webhooks/${endpointId}/deliveries`)).json();
      expect(deliveries).toEqual(await (await get(source, `/v1/webhooks/${endpointId}/deliveries`)).json());

      // The third attempt, two minutes on, from the emulator that loaded the snapshot, signed with the same secret.
      await target.control.advanceClock('2m');
      const third = (await receiver.received(3))[2] as ReceivedRequest;
      expect(third.headers['svc-delivery-attempt']).toBe('3');
      const t = Number(/t=(\d+)/.exec(String(third.headers['svc-signature']))?.[1]);
      expect(
        verifySignature({
          payload: third.body.toString('utf8'),
          header: String(third.headers['svc-signature']),
          secret: SIGNING,
          now: new Date(t * 1000),
        }).timestamp,
      ).toBe(t);
    } finally {
      await target.stop();
    }
  });

  itNeeding([POSTGRES], 'taken on PGlite loads into PostgreSQL, and back', async () => {
    const schema = await scratchSchema(postgresUrl(), 'svc_snapshot');
    try {
      const onPg = await startEmulator({
        ...base,
        inMemory: true,
        databaseUrl: schema.url,
        importFile: file('to-pg.json', snapshot),
      });
      let fromPg: Snapshot;
      try {
        fromPg = await onPg.exportState();
        expect((await get(onPg, '/v1/org')).status).toBe(200);
      } finally {
        await onPg.stop();
      }
      expect(fromPg).toEqual(snapshot);
      const back = await startEmulator({...base, importFile: file('from-pg.json', fromPg)});
      try {
        expect(await back.exportState()).toEqual(snapshot);
      } finally {
        await back.stop();
      }
    } finally {
      await schema.drop();
    }
  });
});

describe('a snapshot that cannot be loaded', () => {
  // On the snapshot's source: a refused load writes nothing, and the loads here leave it as the snapshot holds it.
  let emu: RunningEmulator;
  beforeAll(() => {
    emu = source;
  });
  afterAll(async () => {
    await emu?.control.importState({source: 'state.json', document: snapshot, mode: 'replace'});
  });

  async function refusal(
    document: unknown,
    mode: 'merge' | 'replace' = 'replace',
  ): Promise<EmulatorControlError> {
    const before = await emu.exportState();
    try {
      await emu.control.importState({source: 'state.json', document, mode});
    } catch (err) {
      if (!(err instanceof EmulatorControlError)) throw err;
      // Nothing was written, not even the wipe of a replace.
      expect(await emu.exportState()).toEqual(before);
      return err;
    }
    throw new Error('expected the snapshot to be refused');
  }

  it('is refused when it comes from a newer svc', async () => {
    const err = await refusal({...snapshot, svc_emulator_snapshot: 2});
    expect(err.message).toContain(
      'state.json: svc_emulator_snapshot: is 2, a snapshot format newer than this svc reads (1)',
    );
  });

  it('is refused when damaged: a broken row, or a reference to something it does not hold', async () => {
    const broken = structuredClone(snapshot) as unknown as {api_keys: Record<string, unknown>[]};
    (broken.api_keys[0] as Record<string, unknown>).secret_hash = 'not-a-hash';
    const shape = await refusal(broken);
    expect(shape.problems.map((p) => p.message)).toEqual([
      'state.json: api_keys[0].secret_hash: must be the lowercase hex SHA-256 of the secret',
    ]);

    const dangling = structuredClone(snapshot);
    dangling.events = [];
    const refs = await refusal(dangling);
    expect(refs.problems[0]?.message).toMatch(
      /^state\.json: deliveries\[0\]\.event_id: names the event evt_\w+, which the file does not hold$/,
    );
  });

  it('is refused when merged into a state that already holds its rows, naming each record and what to do', async () => {
    await emu.control.importState({source: 'state.json', document: snapshot, mode: 'replace'});
    const err = await refusal(snapshot, 'merge');
    // A conflict, in svc's own words: never the database's "Key (id)=(…) already exists".
    expect(err.status).toBe(409);
    expect(err.code).toBe('conflict');
    expect(err.message).not.toMatch(/Key \(|already exists|duplicate key|constraint/);
    const org = snapshot.orgs[0]?.id as string;
    const key = snapshot.api_keys[0]?.id as string;
    expect(err.message).toContain(`state.json: orgs[0].id: the emulator already has the org ${org}`);
    expect(err.message).toContain(`state.json: api_keys[0].id: the emulator already has the API key ${key}`);
    expect(err.problems.map((p) => p.field)).toContain('orgs[0].id');
    expect(err.message).toMatch(/import it without merging \(`svc emulator import FILE` without --merge/);
    expect(err.message).toMatch(/or remove those records from the emulator or from the file first/);
  });

  it('merges a snapshot whose records are all new beside what the emulator holds', async () => {
    // Another emulator's state: a fresh one (an org of its own) with a key.
    await emu.control.resetState();
    await emu.control.createKey({name: 'other'});
    const other = await emu.exportState();
    await emu.control.importState({source: 'state.json', document: snapshot, mode: 'replace'});
    const result = await emu.control.importState({source: 'other.json', document: other, mode: 'merge'});
    expect(result.kind).toBe('snapshot');
    const merged = await emu.exportState();
    expect(merged.orgs.map((o) => o.id)).toEqual(
      expect.arrayContaining([...snapshot.orgs, ...other.orgs].map((o) => o.id)),
    );
    expect(merged.api_keys.map((k) => k.name)).toEqual(expect.arrayContaining(['ci', 'old', 'other']));
  });
});
