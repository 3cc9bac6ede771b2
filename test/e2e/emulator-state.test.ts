// The emulator's state as files, from the CLI as a CI job uses it: start from a committed seed with a known key,
// load seeds into running and stopped emulators, and read why a file was refused.
import {mkdir, mkdtemp, readFile, rm, stat, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {spawn} from 'node:child_process';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {type StartedProcess, spawnEmulator} from '../helpers/emulator-process.js';
import {BIN, runCli, runCommand} from '../helpers/run-cli.js';

const KEY = `svc_${'CiKnownKey'.padEnd(40, '7')}`;
const ORG = `org_${'CiOrg'.padEnd(24, '0')}`;

let root: string;
const running = new Set<StartedProcess>();
// The file's running emulator, in this process, seeded, for the loads that are refused; the starts under test
// (from a seed, after an import, from a snapshot, until its followers end) are processes of their own.
let shared: RunningEmulator;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-e2e-state-'));
  shared = await startEmulator({
    port: 0,
    inMemory: true,
    dataDir: join(root, 'shared'),
    seed: await file('for-shared.json', seedWithKey()),
  });
});
afterAll(async () => {
  await shared?.stop();
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await rm(root, {recursive: true, force: true});
});

const env = (dataDir: string) => ({
  SVC_EMULATOR_DATA_DIR: dataDir,
  SVC_CONFIG_DIR: join(root, 'config'),
  SVC_CACHE_DIR: join(root, 'cache'),
});

async function file(name: string, document: unknown): Promise<string> {
  const path = join(root, name);
  await writeFile(path, JSON.stringify(document, null, 2));
  return path;
}

const seedWithKey = () => ({
  svc_emulator_seed: 1,
  orgs: [
    {
      id: ORG,
      name: 'CI org',
      keys: [{name: 'ci', secret: KEY}],
      sandboxes: [{name: 'runner', status: 'running'}],
    },
  ],
});

async function start(args: string[], dataDir: string): Promise<StartedProcess> {
  const p = await spawnEmulator(args, env(dataDir));
  running.add(p);
  return p;
}

describe('svc emulator start --seed', {timeout: 90_000}, () => {
  it('serves the seed with its known key, names it in the ready line, and svc reads it with that key', async () => {
    // The start is under test (its ready line): a process of its own.
    const seed = await file('seed.json', seedWithKey());
    const emu = await start(['--in-memory', '--seed', seed], join(root, 'seeded'));
    expect(emu.ready.seed).toMatchObject({kind: 'seed', default_org_id: ORG});
    // The key the seed gave is never printed back.
    expect(JSON.stringify(emu.ready)).not.toContain(KEY);

    const org = await runCommand(['org', '--json'], {
      env: {...env(join(root, 'seeded')), SVC_API_KEY: KEY, SVC_API_URL: emu.ready.api_url},
    });
    expect(org.code, org.stderr).toBe(0);
    expect(JSON.parse(org.stdout)).toMatchObject({id: ORG, name: 'CI org'});
    expect(await emu.stop()).toBe(0);
  });

  it('does not start from a seed that breaks a rule, and says which file, where and why', async () => {
    const bad = await file('bad-start.json', {
      svc_emulator_seed: 1,
      orgs: [{name: 'X', keys: [{name: 'k', secret: 'svc_123'}]}],
    });
    const r = await runCommand(['emulator', 'start', '--json', '--in-memory', '--port', '0', '--seed', bad], {
      env: env(join(root, 'bad')),
    });
    expect(r.code).toBe(1);
    const error = JSON.parse(r.stdout).error;
    expect(error.code).toBe('invalid_state_file');
    expect(error.message).toContain(`${bad}: orgs[0].keys[0].secret: must be svc_ and 40 letters or digits`);
  });
});

describe('svc emulator import and reset', {timeout: 90_000}, () => {
  it('loads a seed into a stopped emulator, which then starts with it; reset empties it', async () => {
    const dataDir = join(root, 'stopped');
    const seed = await file('for-stopped.json', seedWithKey());
    const loaded = await runCommand(['emulator', 'import', seed, '--json'], {env: env(dataDir)});
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(JSON.parse(loaded.stdout)).toMatchObject({kind: 'seed', default_org_id: ORG});

    // The start from the loaded state is under test: a process of its own.
    const emu = await start([], dataDir);
    const org = await fetch(`${emu.ready.api_url}/v1/org`, {headers: {authorization: `Bearer ${KEY}`}});
    expect(org.status).toBe(200);

    const reset = await runCommand(['emulator', 'reset', '--json'], {env: env(dataDir)});
    expect(reset.code, reset.stderr).toBe(0);
    const after = await fetch(`${emu.ready.api_url}/v1/org`, {headers: {authorization: `Bearer ${KEY}`}});
    expect(after.status).toBe(401);
    expect(await emu.stop()).toBe(0);
  });

  it('refuses a damaged or newer file with exit 1 and code invalid_state_file, writing nothing', async () => {
    const dataDir = shared.dataDir;
    const damaged = join(root, 'damaged.json');
    await writeFile(damaged, '{"svc_emulator_seed": 1, "orgs": [');
    const newer = await file('newer.json', {svc_emulator_seed: 9, orgs: []});
    // A good org beside a bad one: the good one must not be loaded either.
    const good = `svc_${'GoodButNotLoaded'.padEnd(40, '1')}`;
    const full = await file('full.json', {
      svc_emulator_seed: 1,
      orgs: [
        {name: 'Good', keys: [{name: 'k', secret: good}]},
        {
          name: 'Full',
          webhooks: Array.from({length: 11}, (_, i) => ({
            url: `https://hooks.example.com/${i}`,
            events: ['sandbox.ready'],
          })),
        },
      ],
    });

    for (const [path, expected] of [
      [damaged, 'is not valid JSON'],
      [newer, 'svc_emulator_seed: is 9, a seed format newer than this svc reads (1)'],
      [full, 'orgs[1].webhooks[10]: is endpoint 11; an org may have at most 10 webhook endpoints'],
    ] as const) {
      const r = await runCommand(['emulator', 'import', path, '--json'], {env: env(dataDir)});
      expect(r.code, path).toBe(1);
      const error = JSON.parse(r.stdout).error;
      expect(error.code).toBe('invalid_state_file');
      expect(error.message).toContain(`${path}: ${expected}`);
    }
    const unloaded = await fetch(`${shared.apiUrl}/v1/org`, {headers: {authorization: `Bearer ${good}`}});
    expect(unloaded.status).toBe(401);
  });

  it('refuses to merge a snapshot whose records the emulator already has, naming each and what to do', async () => {
    // The file's emulator, started from the seed (each load below leaves it with the same records).
    const dataDir = shared.dataDir;
    const out = join(root, 'merge-clash.json');
    const exported = await runCommand(['emulator', 'export', '--out', out], {env: env(dataDir)});
    expect(exported.code, exported.stderr).toBe(0);

    const json = await runCommand(['emulator', 'import', out, '--merge', '--json'], {env: env(dataDir)});
    expect(json.code).toBe(1);
    const error = JSON.parse(json.stdout).error;
    expect(error.code).toBe('conflict');
    // The snapshot holds the seeded org beside the emulator's own default org, each named by its place.
    expect(error.message).toMatch(
      new RegExp(`: orgs\\[\\d\\]\\.id: the emulator already has the org ${ORG}\\n`),
    );
    expect(error.message).toContain(`${out}: orgs[`);

    const said = await runCommand(['emulator', 'import', out, '--merge'], {env: env(dataDir)});
    expect(said.code).toBe(1);
    expect(said.stderr).toContain(`.id: the emulator already has the org ${ORG}`);
    expect(said.stderr).toContain('without --merge');
    // svc's own words, never the database's.
    expect(said.stderr).not.toMatch(/Key \(|already exists|duplicate key|constraint/);

    // Without --merge the same file replaces the state.
    const replaced = await runCommand(['emulator', 'import', out, '--json'], {env: env(dataDir)});
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(JSON.parse(replaced.stdout)).toMatchObject({kind: 'snapshot', default_org_id: ORG});
  });
});

describe('snapshots: svc emulator export, start --import and --export-on-exit', {timeout: 90_000}, () => {
  it('saves the state on exit, owner-only, and a new emulator started from it serves the same key', async () => {
    const seed = await file('for-snapshot.json', seedWithKey());
    const saved = join(root, 'artifact', 'state.json');
    const missingFolder = await runCommand(
      ['emulator', 'start', '--json', '--in-memory', '--port', '0', '--export-on-exit', saved],
      {env: env(join(root, 'no-folder'))},
    );
    expect(missingFolder.code).toBe(2);
    expect(JSON.parse(missingFolder.stdout).error.message).toContain('does not exist or is not writable');

    await mkdir(join(root, 'artifact'));
    // Both starts are under test (the state saved on exit, the start from it): processes of their own.
    const first = await start(
      ['--in-memory', '--clock', 'manual', '--seed', seed, '--export-on-exit', saved],
      join(root, 'first'),
    );
    const exported = await runCommand(
      ['emulator', 'export', '--out', join(root, 'artifact', 'now.json'), '--json'],
      {
        // An in-memory emulator keeps its emulator.json in a folder of its own, named in its ready line.
        env: env(first.ready.data_dir),
      },
    );
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({rows: {orgs: 2, api_keys: 1, sandboxes: 1}});
    expect((await stat(join(root, 'artifact', 'now.json'))).mode & 0o777).toBe(0o600);

    expect(await first.stop()).toBe(0);
    expect(first.stderr()).toContain(`state saved to ${saved}`);
    expect((await stat(saved)).mode & 0o777).toBe(0o600);
    const snapshot = JSON.parse(await readFile(saved, 'utf8'));
    expect(snapshot).toMatchObject({svc_emulator_snapshot: 1, default_org_id: ORG});
    expect(JSON.stringify(snapshot)).not.toContain(KEY);

    const second = await start(['--in-memory', '--import', saved], join(root, 'second'));
    expect(second.ready.import).toMatchObject({kind: 'snapshot', default_org_id: ORG});
    const org = await fetch(`${second.ready.api_url}/v1/org`, {headers: {authorization: `Bearer ${KEY}`}});
    expect(org.status).toBe(200);
    expect(await second.stop()).toBe(0);
  });
});

describe('svc emulator exec with a seed and --export-on-exit', {timeout: 90_000}, () => {
  it('runs the command against the seeded org and saves the state after it, keeping its exit code', async () => {
    const seed = await file('for-exec.json', seedWithKey());
    const saved = join(root, 'exec-state.json');
    const script =
      "fetch(process.env.SVC_API_URL + '/v1/org', {headers: {authorization: 'Bearer ' + process.env.SVC_API_KEY}})" +
      '.then((r) => r.json()).then((o) => { console.log(o.id); process.exit(3); })';
    // Spawned: the command exec runs writes to the stdout it inherits, a pipe only a process of its own has.
    const r = await runCli(
      ['emulator', 'exec', '--seed', seed, '--export-on-exit', saved, '--', process.execPath, '-e', script],
      {env: env(join(root, 'exec')), timeoutMs: 60_000},
    );
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout.trim()).toBe(ORG);
    expect((await stat(saved)).mode & 0o777).toBe(0o600);
    const snapshot = JSON.parse(await readFile(saved, 'utf8'));
    expect(snapshot.default_org_id).toBe(ORG);
    // The seed's key and the key exec made for the command.
    expect(snapshot.api_keys.map((k: {name: string}) => k.name).sort()).toEqual(['ci', 'exec']);
  });
});

describe('svc emulator logs', {timeout: 90_000}, () => {
  it('tells why a CI key was refused, as JSON lines, and a follower ends when the emulator stops', async () => {
    const seed = await file('for-logs.json', seedWithKey());
    // The stop is under test (its exit code, and the follower ending with it): a process of its own.
    const emu = await start(['--in-memory', '--seed', seed], join(root, 'logs'));
    const logEnv = env(emu.ready.data_dir);
    // Spawned: `logs --follow` runs until the emulator stops.
    const follower = spawn(process.execPath, [BIN, 'emulator', 'logs', '--follow', '--json'], {
      env: {PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...logEnv},
    });
    let followed = '';
    let followErr = '';
    const followedRefusal = new Promise<void>((resolve) =>
      follower.stdout.on('data', (d) => {
        followed += d;
        if (followed.includes('"reason":"unknown_key"')) resolve();
      }),
    );
    follower.stderr.on('data', (d) => {
      followErr += d;
    });
    const followerExit = new Promise<number | null>((r) => follower.on('exit', (code) => r(code)));

    const wrong = `svc_${'WrongKey'.padEnd(40, '0')}`;
    const answer = await fetch(`${emu.ready.api_url}/v1/org`, {headers: {authorization: `Bearer ${wrong}`}});
    expect(answer.status).toBe(401);

    const logs = await runCommand(['emulator', 'logs', '--json', '--since', '10m'], {env: logEnv});
    expect(logs.code, logs.stderr).toBe(0);
    const lines = logs.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.at(-1)).toEqual({
      time: expect.any(String),
      method: 'GET',
      path: '/v1/org',
      status: 401,
      duration_ms: expect.any(Number),
      key_prefix: wrong.slice(0, 8),
      reason: 'unknown_key',
    });
    expect(logs.stdout).not.toContain(wrong);

    // Pushed: the follower's output is checked as it arrives.
    await followedRefusal;
    expect(followed).toContain('"reason":"unknown_key"');
    expect(await emu.stop()).toBe(0);
    expect(await followerExit).toBe(0);
    expect(followErr).toContain('The emulator stopped.');
  });
});
