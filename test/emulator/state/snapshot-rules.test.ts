// A snapshot import keeps every rule the other ways in keep (the probe's 14 hostile snapshots and more): each one is refused
// with the file, the path and the rule, every problem at once, and the state is left exactly as it was.
import {createHash} from 'node:crypto';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {
  EmulatorControlError,
  type RunningEmulator,
  type Snapshot,
  startEmulator,
} from '../../../src/emulator/index.js';
import {readStateFile} from '../../../src/emulator/state/file.js';

const id = (prefix: string, tag: string) => `${prefix}_${tag.padEnd(24, '0')}`;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const AT = '2031-03-01T10:00:00.000Z';
const ORG_A = id('org', 'RulesA');
const ORG_B = id('org', 'RulesB');
const KEY_A = id('key', 'RulesA');
const KEY_B = id('key', 'RulesB');
const SBX_A = id('sbx', 'RulesA');
const SBX_B = id('sbx', 'RulesB');
const WE_A = id('we', 'RulesA');
const EVT = id('evt', 'Rules');
const DLV = id('dlv', 'Rules');
const SIGNING = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

const key = (i: number, org = ORG_A) => ({
  id: id('key', `Rules${org === ORG_A ? 'A' : 'B'}${i}`),
  org_id: org,
  name: `key ${i}`,
  prefix: 'svc_abcd',
  secret_hash: sha(`secret ${org} ${i}`),
  created_by: null,
  created_at: AT,
  last_used_at: null,
  expires_at: null,
  revoked_at: null,
});
const endpoint = (i: number, url = 'https://hooks.example.com/svc') => ({
  id: i === 0 ? WE_A : id('we', `Rules${i}`),
  org_id: ORG_A,
  url,
  events: ['sandbox.ready'],
  description: null,
  secret: SIGNING,
  created_at: AT,
});
const sandbox = (sid: string, org: string) => ({
  id: sid,
  org_id: org,
  name: 'runner',
  status: 'running',
  desired_state: 'running',
  last_error: null,
  expires_at: null,
  created_at: AT,
  updated_at: AT,
});

/** A snapshot that keeps every rule: two orgs, a port session in the first, one pending delivery. */
function valid(): Snapshot {
  return {
    svc_emulator_snapshot: 1,
    exported_at: AT,
    clock: {mode: 'real', now: AT},
    default_org_id: ORG_A,
    orgs: [
      {id: ORG_A, name: 'Rules A', created_at: AT},
      {id: ORG_B, name: 'Rules B', created_at: AT},
    ],
    persons: [
      {
        id: id('usr', 'One'),
        email: 'one@example.com',
        created_at: AT,
        last_sign_in_at: null,
        last_org_id: null,
      },
      {
        id: id('usr', 'Two'),
        email: 'two@example.com',
        created_at: AT,
        last_sign_in_at: null,
        last_org_id: null,
      },
    ],
    memberships: [
      {org_id: ORG_A, person_id: id('usr', 'One'), role: 'owner', invited_by: null, created_at: AT},
      {org_id: ORG_A, person_id: id('usr', 'Two'), role: 'admin', invited_by: null, created_at: AT},
    ],
    invitations: [],
    api_keys: [
      {...key(0), id: KEY_A},
      {...key(0, ORG_B), id: KEY_B},
    ],
    webhook_endpoints: [endpoint(0)],
    relay_endpoints: [],
    sandboxes: [sandbox(SBX_A, ORG_A), sandbox(SBX_B, ORG_B)],
    sandbox_links: [
      {
        id: id('lnk', 'Rules'),
        org_id: ORG_A,
        sandbox_id: SBX_A,
        key_id: KEY_A,
        kind: 'port',
        port: 3000,
        token_hash: sha('link token'),
        created_at: AT,
      },
    ],
    events: [{id: EVT, org_id: ORG_A, type: 'sandbox.ready', created_at: AT, body: '{"id":"evt"}'}],
    deliveries: [
      {
        id: DLV,
        org_id: ORG_A,
        event_id: EVT,
        endpoint_id: WE_A,
        event_type: 'sandbox.ready',
        status: 'pending',
        attempts: 1,
        manual_attempts: 0,
        created_at: AT,
        last_attempt_at: AT,
        next_attempt_at: '2031-03-01T10:00:30.000Z',
        last_status_code: 500,
      },
    ],
    delivery_attempts: [
      {
        delivery_id: DLV,
        attempt: 1,
        started_at: AT,
        duration_ms: 12,
        status_code: 500,
        error: null,
        response_body: 'not yet',
        trigger: 'scheduled',
        signature_t: 1930000000,
      },
    ],
  } as Snapshot;
}

type Change = (s: Snapshot) => void;
const link = (s: Snapshot) => s.sandbox_links[0] as Snapshot['sandbox_links'][number];
const delivery = (s: Snapshot) => s.deliveries[0] as Snapshot['deliveries'][number];

/** The probe's hostile snapshots: what each changes, and the path and rule the refusal must name. */
const HOSTILE: [string, Change, string, RegExp][] = [
  [
    '30 active keys in one org',
    (s) => s.api_keys.push(...Array.from({length: 29}, (_, i) => key(i + 1))),
    'api_keys[26]',
    /at most 25 active keys/,
  ],
  [
    '12 endpoints in one org',
    (s) => s.webhook_endpoints.push(...Array.from({length: 11}, (_, i) => endpoint(i + 1))),
    'webhook_endpoints[10]',
    /at most 10 webhook endpoints/,
  ],
  [
    'an http:// endpoint',
    (s) => {
      s.webhook_endpoints[0] = endpoint(0, 'http://hooks.example.com/svc');
    },
    'webhook_endpoints[0].url',
    /https/,
  ],
  [
    'a private endpoint address',
    (s) => {
      s.webhook_endpoints[0] = endpoint(0, 'https://10.1.2.3/svc');
    },
    'webhook_endpoints[0].url',
    /./,
  ],
  [
    'an endpoint whose host resolves to a private address',
    (s) => {
      s.webhook_endpoints[0] = endpoint(0, 'https://intranet.example.com/svc');
    },
    'webhook_endpoints[0].url',
    /resolves to a private, loopback or reserved address/,
  ],
  [
    'a file: endpoint',
    (s) => {
      s.webhook_endpoints[0] = endpoint(0, 'file:///etc/passwd');
    },
    'webhook_endpoints[0].url',
    /./,
  ],
  [
    'an endpoint that is no URL',
    (s) => {
      s.webhook_endpoints[0] = endpoint(0, 'not a url');
    },
    'webhook_endpoints[0].url',
    /./,
  ],
  [
    "a link opened with another org's key",
    (s) => {
      link(s).key_id = KEY_B;
    },
    'sandbox_links[0].key_id',
    /nothing crosses orgs/,
  ],
  [
    "a link onto another org's sandbox",
    (s) => {
      link(s).sandbox_id = SBX_B;
    },
    'sandbox_links[0].sandbox_id',
    /nothing crosses orgs/,
  ],
  [
    'a port session to port null',
    (s) => {
      link(s).port = null;
    },
    'sandbox_links[0].port',
    /from 1 to 65535/,
  ],
  [
    'a port session to port 70000',
    (s) => {
      link(s).port = 70000;
    },
    'sandbox_links[0].port',
    /from 1 to 65535/,
  ],
  [
    'a port session to port -5',
    (s) => {
      link(s).port = -5;
    },
    'sandbox_links[0].port',
    /from 1 to 65535/,
  ],
  [
    'a delivery at attempt 50',
    (s) => {
      delivery(s).attempts = 50;
    },
    'deliveries[0].attempts',
    /at most 9/,
  ],
  [
    'NUL in a name',
    (s) => {
      (s.orgs[0] as {name: string}).name = 'nul\u0000org';
    },
    'orgs[0].name',
    /NUL/,
  ],
  [
    'two owners of one org',
    (s) => {
      (s.memberships[1] as {role: string}).role = 'owner';
    },
    'memberships[1].role',
    /one owner at most/,
  ],
];

/** DNS as the test sees it: one name resolves to a private address, every other to a public one. */
const lookup = async (host: string) => [
  {address: host === 'intranet.example.com' ? '10.9.8.7' : '93.184.215.14', family: 4},
];

let emu: RunningEmulator;
let before: Snapshot;
const dir = mkdtempSync(join(tmpdir(), 'svc-snapshot-rules-'));

beforeAll(async () => {
  emu = await startEmulator({port: 0, inMemory: true, clock: 'manual', clockStart: new Date(AT), lookup});
  await emu.control.createKey({name: 'already here'});
  before = await emu.exportState();
});
afterAll(async () => {
  await emu?.stop();
  rmSync(dir, {recursive: true, force: true});
});

async function refusal(
  document: unknown,
  mode: 'merge' | 'replace' = 'replace',
): Promise<EmulatorControlError> {
  const err = await emu.control
    .importState({source: 'hostile.json', document, mode})
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(EmulatorControlError);
  return err as EmulatorControlError;
}

describe('a snapshot import', () => {
  it('loads the valid snapshot, and its summary counts the links', async () => {
    const other = await startEmulator({port: 0, inMemory: true, lookup});
    try {
      const loaded = await other.control.importState({
        source: 'valid.json',
        document: valid(),
        mode: 'replace',
      });
      expect(loaded).toMatchObject({kind: 'snapshot', rows: {sandbox_links: 1, api_keys: 2}});
    } finally {
      await other.stop();
    }
  });

  for (const [what, change, field, rule] of HOSTILE) {
    it(`refuses ${what} with 400, the file, the path and the rule, and changes nothing`, async () => {
      const document = valid();
      change(document);
      for (const mode of ['replace', 'merge'] as const) {
        const err = await refusal(document, mode);
        expect(err.status).toBe(400);
        const problem = err.problems.find((p) => p.field === field);
        expect(problem?.message, err.message).toMatch(rule);
        expect(problem?.message).toContain('hostile.json');
      }
      expect(await emu.exportState()).toEqual(before);
    });
  }

  it('reports every problem of a file at once', async () => {
    const document = valid();
    for (const [, change] of HOSTILE.filter(([w]) => !/null|-5|link opened/.test(w))) change(document);
    const err = await refusal(document);
    const fields = err.problems.map((p) => p.field);
    for (const f of [
      'api_keys[26]',
      'webhook_endpoints[10]',
      'sandbox_links[0].sandbox_id',
      'sandbox_links[0].port',
      'deliveries[0].attempts',
      'memberships[1].role',
    ]) {
      expect(fields).toContain(f);
    }
    expect(await emu.exportState()).toEqual(before);
  });

  it('refuses a 100 MB name by its size, as soon as the file is read', async () => {
    const document = valid();
    (document.orgs[0] as {name: string}).name = 'x'.repeat(100 * 1024 * 1024);
    const path = join(dir, 'huge.json');
    writeFileSync(path, JSON.stringify(document));
    const err = await readStateFile(path).catch((e: unknown) => e as Error);
    expect((err as Error).message).toMatch(
      /orgs\[0\]\.name: is 104857600 characters long; a state file's strings are at most/,
    );
    // Posted to the control route directly, a long name is refused just the same, before anything is written.
    (document.orgs[0] as {name: string}).name = 'x'.repeat(2 * 1024 * 1024);
    const posted = await refusal(document);
    expect(posted.problems.map((p) => p.field)).toEqual(['orgs[0].name']);
    expect(await emu.exportState()).toEqual(before);
  });
});
