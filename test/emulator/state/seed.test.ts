// Seed files: a CI job starts the emulator in a known state (a key it knows, an endpoint whose signing secret it
// knows, sandboxes in given states) with nothing fired; a file that breaks a rule loads nothing and says where.
// Starts from a seed file (JSON, YAML, a broken one) are under test, each an emulator of its own; seeds loaded
// into a running emulator share one.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {EmulatorControlError, type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {verifySignature} from '../../../src/webhooks/index.js';
import {type ReceivedRequest, type Receiver, startReceiver} from '../delivery/helpers.js';

/** A key secret in the service's shape: svc_ and 40 base62 characters. */
const keySecret = (label: string) => `svc_${label.padEnd(40, '0')}`;
const KEY = keySecret('SeedKey');
const SIGNING = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const ORG = 'org_SeedOrg00000000000000001';
const SANDBOX = 'sbx_SeedSandbox0000000000001';

const dir = mkdtempSync(join(tmpdir(), 'svc-seed-'));
afterAll(() => rmSync(dir, {recursive: true, force: true}));

function writeSeed(name: string, document: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(document));
  return path;
}

const v1 = (emu: RunningEmulator, path: string, key = KEY) =>
  fetch(`${emu.apiUrl}${path}`, {headers: {authorization: `Bearer ${key}`}});

describe('an emulator started from a seed', () => {
  let emu: RunningEmulator;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    const seed = writeSeed('seed.json', {
      svc_emulator_seed: 1,
      orgs: [
        {
          id: ORG,
          name: 'CI org',
          people: [{email: 'Owner@Example.com', role: 'owner'}],
          keys: [{name: 'ci', secret: KEY, expires: 30, created_by: 'owner@example.com'}, {name: 'spare'}],
          webhooks: [
            {
              url: `${receiver.url}/hooks`,
              events: ['sandbox.ready'],
              secret: SIGNING,
              description: 'CI receiver',
            },
          ],
          sandboxes: [
            {id: SANDBOX, name: 'runner', status: 'stopped'},
            {name: 'broken', status: 'error', last_error: 'disk full'},
          ],
        },
      ],
    });
    emu = await startEmulator({port: 0, inMemory: true, clock: 'manual', allowLocalEndpoints: true, seed});
  });
  afterAll(async () => {
    await emu?.stop();
    await receiver?.close();
  });

  it('answers /v1 for the key the seed gave, in the seeded org, which is the default org', async () => {
    const org = await v1(emu, '/v1/org');
    expect(org.status).toBe(200);
    expect(await org.json()).toMatchObject({id: ORG, name: 'CI org'});
    expect(emu.orgId).toBe(ORG);

    const keys = (await (await v1(emu, '/v1/api-keys')).json()) as {data: Record<string, unknown>[]};
    const ci = keys.data.find((k) => k.name === 'ci');
    expect(ci).toMatchObject({prefix: KEY.slice(0, 8), created_by: 'owner@example.com', status: 'active'});
    const created = Date.parse(ci?.created_at as string);
    expect(Date.parse(ci?.expires_at as string) - created).toBe(30 * 86_400_000);
  });

  it('reports once the secret it made for a key the seed left without one, and never stores it', async () => {
    const spare = emu.seeded?.orgs[0]?.keys.find((k) => k.name === 'spare');
    expect(spare?.secret).toMatch(/^svc_[0-9A-Za-z]{40}$/);
    expect((await v1(emu, '/v1/org', spare?.secret)).status).toBe(200);
    // The key the seed gave is not repeated back.
    expect(emu.seeded?.orgs[0]?.keys.find((k) => k.name === 'ci')).not.toHaveProperty('secret');
  });

  it('fired no event and made no delivery while loading', async () => {
    const hooks = (await (await v1(emu, '/v1/webhooks')).json()) as {
      data: {id: string; description: string}[];
    };
    expect(hooks.data).toHaveLength(1);
    expect(hooks.data[0]?.description).toBe('CI receiver');
    const deliveries = await v1(emu, `/v1/webhooks/${hooks.data[0]?.id}/deliveries`);
    expect(await deliveries.json()).toEqual({data: []});
    const {rows} = await emu.db.query<{n: string | number}>('SELECT count(*) AS n FROM events');
    expect(Number(rows[0]?.n)).toBe(0);
    expect(receiver.requests).toEqual([]);
  });

  it('keeps sandboxes in the states the seed gave', async () => {
    const {data} = await emu.control.listSandboxes(ORG);
    expect(data.map((s) => [s.name, s.status, s.last_error])).toEqual(
      expect.arrayContaining([
        ['runner', 'stopped', null],
        ['broken', 'error', 'disk full'],
      ]),
    );
    expect(data.find((s) => s.name === 'runner')?.id).toBe(SANDBOX);
  });

  it('signs deliveries to the seeded endpoint with the signing secret the seed gave', async () => {
    await emu.control.sandboxAction(SANDBOX, 'resume');
    const got = (await receiver.received(1))[0] as ReceivedRequest;
    const t = Number(/t=(\d+)/.exec(String(got.headers['svc-signature']))?.[1]);
    // Throws unless the signature was made with SIGNING; the manual clock is far from now, so verify at `t`.
    const verified = verifySignature({
      payload: got.body.toString('utf8'),
      header: String(got.headers['svc-signature']),
      secret: SIGNING,
      now: new Date(t * 1000),
    });
    expect(verified.timestamp).toBe(t);
    expect(JSON.parse(got.body.toString('utf8'))).toMatchObject({
      type: 'sandbox.ready',
      org_id: ORG,
      data: {sandbox: {id: SANDBOX}},
    });
  });
});

/** The running emulator seeds are loaded into; each test counts from what it finds, or replaces it all. */
let running: RunningEmulator | undefined;
beforeAll(async () => {
  running = await startEmulator({port: 0, inMemory: true});
});
afterAll(() => running?.stop());

describe('a seed that breaks the rules', () => {
  let emu: RunningEmulator;
  beforeAll(() => {
    emu = running as RunningEmulator;
  });

  async function refusal(document: unknown, source = 'ci/seed.json'): Promise<EmulatorControlError> {
    try {
      await emu.control.importState({source, document, mode: 'merge'});
    } catch (err) {
      if (err instanceof EmulatorControlError) return err;
      throw err;
    }
    throw new Error('expected the seed to be refused');
  }

  const orgCount = async () =>
    Number((await emu.db.query<{n: string}>('SELECT count(*) AS n FROM orgs')).rows[0]?.n);

  it('names the file, the path and the rule of every problem, and loads nothing', async () => {
    const before = await orgCount();
    const err = await refusal({
      svc_emulator_seed: 1,
      orgs: [
        {name: 'Fine org', keys: [{name: 'fine'}]},
        {
          id: 'org_short',
          name: 'Too big',
          keys: Array.from({length: 26}, (_, i) => ({name: `k${i}`})),
          webhooks: Array.from({length: 11}, (_, i) => ({
            url: `https://hooks.example.com/${i}`,
            events: ['sandbox.ready'],
          })),
          sandboxes: [{id: 'sbx_1', name: 's', status: 'running'}],
        },
        {
          name: 'Bad secrets',
          keys: [{name: 'k', secret: 'svc_tooShort'}],
          webhooks: [{url: 'https://hooks.example.com', events: ['sandbox.ready'], secret: 'whsec_abc'}],
        },
      ],
    });
    expect(err.status).toBe(400);
    expect(err.code).toBe('invalid_request');
    const lines = err.problems.map((p) => p.message);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ci\/seed\.json: orgs\[1\]\.id: must be org_ and 24 letters or digits$/),
        expect.stringMatching(
          /^ci\/seed\.json: orgs\[1\]\.keys\[25\]: is active key 26; an org may have at most 25/,
        ),
        expect.stringMatching(
          /^ci\/seed\.json: orgs\[1\]\.webhooks\[10\]: is endpoint 11; an org may have at most 10/,
        ),
        expect.stringMatching(/^ci\/seed\.json: orgs\[1\]\.sandboxes\[0\]\.id: must be sbx_/),
        expect.stringMatching(/^ci\/seed\.json: orgs\[2\]\.keys\[0\]\.secret: must be svc_ and 40/),
        expect.stringMatching(/^ci\/seed\.json: orgs\[2\]\.webhooks\[0\]\.secret: must be whsec_/),
      ]),
    );
    expect(lines).toHaveLength(6);
    expect(await orgCount()).toBe(before);
  });

  it('refuses a key secret the emulator already holds, and a newer seed format, by name', async () => {
    const known = await emu.control.createKey({name: 'existing'});
    const taken = await refusal({
      svc_emulator_seed: 1,
      orgs: [{name: 'X', keys: [{name: 'k', secret: known.secret}]}],
    });
    expect(taken.problems.map((p) => p.message)).toEqual([
      'ci/seed.json: orgs[0].keys[0].secret: is the secret of a key the emulator already has',
    ]);
    // The message never repeats the secret itself.
    expect(taken.message).not.toContain(known.secret);

    const newer = await refusal({svc_emulator_seed: 2, orgs: []});
    expect(newer.message).toContain('svc_emulator_seed: is 2, a seed format newer than this svc reads (1)');
  });

  it('refuses unknown fields and wrong types with their paths', async () => {
    const err = await refusal({svc_emulator_seed: 1, orgs: [{name: 'X', keys: [{name: 5, secrett: 'x'}]}]});
    const lines = err.problems.map((p) => p.message);
    expect(
      lines.some((l) => l.startsWith('ci/seed.json: orgs[0].keys[0].secrett: is not a field svc knows here')),
    ).toBe(true);
    expect(lines.some((l) => l.startsWith('ci/seed.json: orgs[0].keys[0].name:'))).toBe(true);
  });
});

describe('importing a seed into a running emulator', () => {
  let emu: RunningEmulator;
  beforeAll(() => {
    emu = running as RunningEmulator;
  });

  const seed = (secret: string, orgId: string) => ({
    svc_emulator_seed: 1,
    orgs: [{id: orgId, name: 'Imported', keys: [{name: 'ci', secret}]}],
  });

  it('merge keeps what is there; replace leaves only the file, and its first org becomes the default', async () => {
    const old = await emu.control.createKey({name: 'before'});
    const first = keySecret('First');
    const merged = await emu.control.importState({
      source: 'a.json',
      document: seed(first, 'org_Merged000000000000000001'),
      mode: 'merge',
    });
    expect(merged.default_org_id).toBe(emu.orgId);
    expect((await v1(emu, '/v1/org', old.secret)).status).toBe(200);
    expect((await v1(emu, '/v1/org', first)).status).toBe(200);

    const second = keySecret('Second');
    const replaced = await emu.control.importState({
      source: 'b.json',
      document: seed(second, 'org_Replaced0000000000000001'),
      mode: 'replace',
    });
    expect(replaced.default_org_id).toBe('org_Replaced0000000000000001');
    expect((await v1(emu, '/v1/org', old.secret)).status).toBe(401);
    expect((await v1(emu, '/v1/org', first)).status).toBe(401);
    expect((await v1(emu, '/v1/org', second)).status).toBe(200);
    expect((await emu.control.health()).org_id).toBe('org_Replaced0000000000000001');
  });
});

describe('a seed written in YAML', () => {
  it('loads like its JSON twin, and a broken one names the line', async () => {
    const secret = keySecret('Yaml');
    const path = join(dir, 'seed.yaml');
    writeFileSync(
      path,
      [
        'svc_emulator_seed: 1',
        'orgs:',
        `  - id: org_${'Yaml'.padEnd(24, '0')}`,
        '    name: YAML org',
        '    keys:',
        `      - {name: ci, secret: ${secret}, expires: 90}`,
        '    sandboxes:',
        '      - {name: idle, status: standby}',
        '',
      ].join('\n'),
    );
    const emu = await startEmulator({port: 0, inMemory: true, seed: path});
    try {
      expect((await v1(emu, '/v1/org', secret)).status).toBe(200);
      expect((await emu.control.listSandboxes()).data.map((s) => [s.name, s.status])).toEqual([
        ['idle', 'standby'],
      ]);
    } finally {
      await emu.stop();
    }

    const broken = join(dir, 'broken.yml');
    writeFileSync(broken, 'svc_emulator_seed: 1\norgs:\n  - name: a\n    name: b\n');
    await expect(startEmulator({port: 0, inMemory: true, seed: broken})).rejects.toThrow(
      `${broken}: is not valid YAML: Map keys must be unique at line 4, column 5`,
    );
  });
});
