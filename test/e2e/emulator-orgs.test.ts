// Orgs as the unit of isolation from the CLI, as a CI script uses them: make an org, act on it with --org (keys,
// endpoints, triggers, its own clock), reset and delete it; and the secrets a seed left, kept out of piped logs.
import {lstat, mkdtemp, readFile, rm, stat, symlink, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {type StartedProcess, spawnEmulator} from '../helpers/emulator-process.js';
import {runCli, runCommand} from '../helpers/run-cli.js';

let root: string;
// The file's emulator, in this process, on a manual clock; the org commands find it by its data dir.
let emu: RunningEmulator;
const running = new Set<StartedProcess>();
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-e2e-orgs-'));
  emu = await startEmulator({port: 0, inMemory: true, dataDir: join(root, 'orgs'), clock: 'manual'});
});
afterAll(async () => {
  await emu?.stop();
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await rm(root, {recursive: true, force: true});
});

const env = (dataDir: string) => ({
  SVC_EMULATOR_DATA_DIR: dataDir,
  SVC_CONFIG_DIR: join(root, 'config'),
  SVC_CACHE_DIR: join(root, 'cache'),
});

async function start(args: string[], dataDir: string): Promise<StartedProcess> {
  const p = await spawnEmulator(args, env(dataDir));
  running.add(p);
  return p;
}

describe('svc emulator orgs and --org', {timeout: 120_000}, () => {
  it('makes an org, acts on it alone with --org, moves its own clock, resets and deletes it', async () => {
    const e = env(emu.dataDir);
    const made = await runCommand(['emulator', 'orgs', 'create', '--name', 'file a'], {env: e});
    expect(made.code, made.stderr).toBe(0);
    const org = made.stdout.trim();
    expect(org).toMatch(/^org_[0-9A-Za-z]{24}$/);

    const key = await runCommand(['emulator', 'keys', 'create', '--name', 'ci', '--org', org, '--json'], {
      env: e,
    });
    expect(key.code, key.stderr).toBe(0);
    // Keys expire unless told otherwise: the account page's default.
    expect(JSON.parse(key.stdout).expires_at).not.toBeNull();
    const whoami = await runCommand(['org', '--json'], {
      env: {...e, SVC_API_KEY: JSON.parse(key.stdout).secret, SVC_API_URL: emu.apiUrl},
    });
    expect(JSON.parse(whoami.stdout).id).toBe(org);

    const trig = await runCommand(['trigger', 'sandbox.ready', '--org', org, '--json'], {env: e});
    expect(trig.code, trig.stderr).toBe(0);
    expect(JSON.parse(trig.stdout).event.org_id).toBe(org);

    const moved = await runCommand(['emulator', 'clock', 'advance', '30s', '--org', org, '--json'], {env: e});
    expect(moved.code, moved.stderr).toBe(0);
    expect(JSON.parse(moved.stdout)).toMatchObject({org_id: org, own: true});
    const emulatorClock = await runCommand(['emulator', 'clock', '--json'], {env: e});
    expect(Date.parse(JSON.parse(moved.stdout).now) - Date.parse(JSON.parse(emulatorClock.stdout).now)).toBe(
      30_000,
    );

    const reset = await runCommand(['emulator', 'orgs', 'reset', org], {env: e});
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toBe(`Emptied ${org}.\n`);
    const deleted = await runCommand(['emulator', 'orgs', 'delete', org, '--json'], {env: e});
    expect(JSON.parse(deleted.stdout)).toEqual({deleted: true, org_id: org});
    const again = await runCommand(['emulator', 'orgs', 'delete', org, '--json'], {env: e});
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout).error.code).toBe('not_found');
  });

  it('takes a checkpoint of an org, lists it, and rewinds the org to it', async () => {
    const e = env(emu.dataDir);
    const org = (
      await runCommand(['emulator', 'orgs', 'create', '--name', 'rewound'], {env: e})
    ).stdout.trim();
    await runCommand(['trigger', 'sandbox.ready', '--org', org], {env: e});
    const taken = await runCommand(['emulator', 'orgs', 'checkpoint', org, 'one-sandbox'], {env: e});
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.stdout).toMatch(
      new RegExp(
        `^Saved one-sandbox of ${org}: 0 deliveries \\(0 attempts\\), 1 event, 0 keys, 0 endpoints, 1 sandbox; its time \\S+\\.\\n$`,
      ),
    );
    await runCommand(['trigger', 'sandbox.ready', '--org', org], {env: e});
    await runCommand(['emulator', 'clock', 'advance', '1h', '--org', org], {env: e});

    const rewound = await runCommand(['emulator', 'orgs', 'rewind', org, 'one-sandbox', '--json'], {env: e});
    expect(rewound.code, rewound.stderr).toBe(0);
    const record = JSON.parse(rewound.stdout);
    expect(record).toMatchObject({name: 'one-sandbox', org_id: org, clock_restored: true});
    expect(record.counts.sandboxes).toBe(1);
    const clock = await runCommand(['emulator', 'clock', '--org', org, '--json'], {env: e});
    expect(JSON.parse(clock.stdout).now).toBe(record.clock_now);

    const list = await runCommand(['emulator', 'orgs', 'checkpoints', org, '--json'], {env: e});
    expect(JSON.parse(list.stdout).data.map((c: {name: string}) => c.name)).toEqual(['one-sandbox']);
    const table = await runCommand(['emulator', 'orgs', 'checkpoints', org], {env: e});
    expect(table.stdout).toMatch(/^NAME\s+ORG TIME\s+TAKEN AT\s+DELIVERIES\s+EVENTS\none-sandbox\s/);

    const unknown = await runCommand(['emulator', 'orgs', 'rewind', org, 'nope', '--json'], {env: e});
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error).toMatchObject({code: 'not_found'});
    const bad = await runCommand(['emulator', 'orgs', 'checkpoint', org, 'no/slash'], {env: e});
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('name must be 1-64 characters');
  });

  it('writes the secrets a seed left to --secrets-out (owner-only), and never into a piped log', async () => {
    const seed = join(root, 'seed.json');
    await writeFile(
      seed,
      JSON.stringify({svc_emulator_seed: 1, orgs: [{name: 'CI org', keys: [{name: 'made-here'}]}]}),
    );
    const out = join(root, 'secrets.json');
    const dataDir = join(root, 'seeded');
    // The start is under test (its ready line, its stderr, its exit): a process of its own.
    const seeded = await start(['--in-memory', '--seed', seed, '--secrets-out', out], dataDir);
    const written = JSON.parse(await readFile(out, 'utf8'));
    const secret = written.orgs[0].keys[0].secret as string;
    expect(secret).toMatch(/^svc_/);
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    expect(seeded.ready.secrets_out).toBe(out);
    expect(JSON.stringify(seeded.ready)).not.toContain(secret);
    expect(seeded.stderr()).not.toContain(secret);
    expect(await seeded.stop()).toBe(0);
    expect(seeded.stderr()).not.toContain(secret);
  });

  it('refuses --secrets-out through a symbolic link, leaves what it points to untouched, and stops', async () => {
    const seed = join(root, 'seed-link.json');
    await writeFile(
      seed,
      JSON.stringify({svc_emulator_seed: 1, orgs: [{name: 'CI org', keys: [{name: 'made-here'}]}]}),
    );
    const victim = join(root, 'victim.txt');
    await writeFile(victim, 'not for svc\n', {mode: 0o644});
    const link = join(root, 'secrets-link.json');
    await symlink(victim, link);
    const r = await runCli(
      ['emulator', 'start', '--json', '--port', '0', '--in-memory', '--seed', seed, '--secrets-out', link],
      {env: env(join(root, 'seeded-link')), timeoutMs: 60_000},
    );
    expect(r.code, r.stderr).toBe(1);
    const error = JSON.parse(r.stdout).error;
    expect(error.code).toBe('secrets_out_failed');
    expect(error.message).toBe(
      `svc did not write --secrets-out ${link}: it is a symbolic link, and svc never writes through one`,
    );
    expect(r.stdout + r.stderr).not.toMatch(/svc_[0-9A-Za-z]{20,}/);
    expect(await readFile(victim, 'utf8')).toBe('not for svc\n');
    expect((await stat(victim)).mode & 0o777).toBe(0o644);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
  });
});
