// The probe's hostile state files and outputs, replayed against the built CLI as a user runs it: each gets svc's
// own sentence (the file, the path, the rule), never "This is a bug" or "is it running?"; a snapshot written to a
// redirected stdout is owner-only; --json shows no raw control or invisible character.
import {spawn} from 'node:child_process';
import {closeSync, openSync} from 'node:fs';
import {mkdtemp, readFile, rm, stat, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {type Receiver, startReceiver} from '../emulator/delivery/helpers.js';
import {BIN, runCommand} from '../helpers/run-cli.js';

let root: string;
// The file's emulator, in this process; the commands find it by its data dir.
let emulator: RunningEmulator | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-e2e-hostile-state-'));
  env = {
    SVC_EMULATOR_DATA_DIR: join(root, 'data'),
    SVC_CONFIG_DIR: join(root, 'config'),
    SVC_CACHE_DIR: join(root, 'cache'),
  };
  emulator = await startEmulator({port: 0, inMemory: true, dataDir: env.SVC_EMULATOR_DATA_DIR});
}, 60_000);
afterAll(async () => {
  await emulator?.stop();
  await rm(root, {recursive: true, force: true});
});

const NEVER = /This is a bug|is it running|internal error|already exists/i;

async function importFile(name: string, text: string) {
  const path = join(root, name);
  await writeFile(path, text);
  return {path, result: await runCommand(['emulator', 'import', path], {env})};
}

describe('hostile state files', {timeout: 90_000}, () => {
  it('refuses a YAML alias bomb by name', async () => {
    let bomb = 'svc_emulator_seed: 1\na: &a [x, x, x, x, x, x, x, x, x, x]\n';
    let previous = 'a';
    for (const n of 'bcdefghi') {
      bomb += `${n}: &${n} [${Array(10).fill(`*${previous}`).join(', ')}]\n`;
      previous = n;
    }
    const {path, result} = await importFile('bomb.yaml', bomb);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`${path}: expands its YAML aliases too far`);
    expect(result.stderr).not.toMatch(NEVER);
  });

  it('refuses a YAML alias that refers to itself, naming where', async () => {
    const {path, result} = await importFile(
      'loop.yaml',
      'svc_emulator_seed: 1\norgs: &o\n  - name: x\n    keys: *o\n',
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`${path}: orgs[0].keys[0].keys`);
    expect(result.stderr).toMatch(/nests deeper than \d+ levels/);
    expect(result.stderr).not.toMatch(NEVER);
  });

  it('refuses JSON nested 200,000 deep', async () => {
    const depth = 200_000;
    const {result} = await importFile(
      'deep.json',
      `{"svc_emulator_seed":1,"orgs":${'['.repeat(depth)}${']'.repeat(depth)}}`,
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/orgs(\[0\])+: nests deeper than \d+ levels/);
    expect(result.stderr).not.toMatch(NEVER);
  });

  it('refuses NUL in a snapshot string and a replace with two owners, each by its path and rule', async () => {
    const snapshot = JSON.parse((await runCommand(['emulator', 'export'], {env})).stdout) as Record<
      string,
      unknown[]
    > & {default_org_id: string};
    const at = snapshot.exported_at as unknown as string;
    const person = (tag: string) => `usr_${tag.padEnd(24, '0')}`;
    const hostile = {
      ...snapshot,
      orgs: [{...(snapshot.orgs[0] as object), name: 'nul\u0000name'}],
      persons: ['One', 'Two'].map((t) => ({
        id: person(t),
        email: `${t.toLowerCase()}@example.com`,
        created_at: at,
        last_sign_in_at: null,
        last_org_id: null,
      })),
      memberships: ['One', 'Two'].map((t) => ({
        org_id: snapshot.default_org_id,
        person_id: person(t),
        role: 'owner',
        invited_by: null,
        created_at: at,
      })),
    };
    const {path, result} = await importFile('hostile-snapshot.json', JSON.stringify(hostile));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`${path}: orgs[0].name: must not contain NUL (U+0000)`);
    expect(result.stderr).toContain(`${path}: memberships[1].role: makes a second owner of org`);
    expect(result.stderr).not.toMatch(NEVER);
  });
});

describe('secrets and text on the way out', {timeout: 90_000}, () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver((_q, res) => {
      res.statusCode = 200;
      res.end('ok \u009b31m\u202egnp.exe\u200b\u{e0041}');
    });
  });
  afterAll(() => receiver?.close());

  it('makes a snapshot written to a redirected stdout owner-only', async () => {
    const path = join(root, 'redirected.json');
    const fd = openSync(path, 'w', 0o644);
    try {
      const code = await new Promise<number | null>((resolve, reject) => {
        // Spawned: stdout is a file opened here, a file descriptor that only a process of its own can be given.
        const child = spawn(process.execPath, [BIN, 'emulator', 'export'], {
          env: {PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env},
          stdio: ['ignore', fd, 'ignore'],
        });
        child.on('error', reject);
        child.on('close', resolve);
      });
      expect(code).toBe(0);
    } finally {
      closeSync(fd);
    }
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({svc_emulator_snapshot: 1});
  });

  it("writes a receiver's C1 controls, bidi overrides, zero-width and tag characters escaped in --json", async () => {
    const r = await runCommand(['webhooks', 'send', `${receiver.url}/hooks`, '--json'], {
      env: {SVC_WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 1).toString('base64')}`},
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0080-\u009f\u202e\u200b]|\u{e0041}/u);
    expect(r.stdout).toContain('\\u009b31m\\u202egnp.exe\\u200b\\udb40\\udc41');
    expect(JSON.stringify(JSON.parse(r.stdout))).toContain('ok \u009b31m\u202egnp.exe\u200b\u{e0041}');
  });

  it('refuses an event id with CR/LF in webhooks send --data with a usage error', async () => {
    const body = join(root, 'crlf.json');
    await writeFile(body, JSON.stringify({id: 'evt_1\r\nX-Injected: yes', type: 'sandbox.ready'}));
    const r = await runCommand(['webhooks', 'send', `${receiver.url}/hooks`, '--data', body], {
      env: {SVC_WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 1).toString('base64')}`},
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot be sent as its Svc-Event-Id header');
    expect(r.stderr).not.toMatch(NEVER);
  });
});
