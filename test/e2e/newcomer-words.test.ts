// What a newcomer met in the CLI's words, each fixed: times counted on the emulator's clock, a next step for an
// unknown delivery, usage exit codes, a flag spelled wrong, help that names what a flag takes.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {runCli, runCommand} from '../helpers/run-cli.js';

let root: string;
let dataDir: string;
let emulator: RunningEmulator | undefined;
let env: NodeJS.ProcessEnv;
const svc = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCommand(args, {env: {...env, ...extra}});

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-words-'));
  dataDir = join(root, 'emulator');
  env = {HOME: root, SVC_CONFIG_DIR: join(root, 'config'), SVC_DATA_DIR: join(root, 'data')};
  // What `svc emulator start --data-dir … --clock manual --allow-local-endpoints` runs (its start is not under
  // test here), in this process: the commands find it through the runtime file in its data dir.
  emulator = await startEmulator({
    port: 0,
    dataDir,
    inMemory: true,
    clock: 'manual',
    allowLocalEndpoints: true,
  });
  // Never expiring: a test below moves the clock years ahead.
  const key = await svc([
    'emulator',
    'keys',
    'create',
    '--name',
    'words',
    '--expires',
    'never',
    '--data-dir',
    dataDir,
  ]);
  expect(key.code, key.stderr).toBe(0);
  env = {
    ...env,
    SVC_API_KEY: key.stdout.trim(),
    SVC_API_URL: emulator.apiUrl,
    SVC_EMULATOR_DATA_DIR: dataDir,
  };
}, 120_000);
afterAll(async () => {
  await emulator?.stop();
  await rm(root, {recursive: true, force: true});
});

describe('svc webhooks deliveries show', {timeout: 120_000}, () => {
  it("counts relative times on the emulator's clock, as the lists do", async () => {
    // Years from the machine's clock: a time counted from the machine's clock cannot read "just now".
    expect((await svc(['emulator', 'clock', 'set', '2031-03-01T00:00:00Z'])).code).toBe(0);
    const hook = await svc([
      'emulator',
      'webhooks',
      'create',
      '--url',
      'http://127.0.0.1:1/h',
      '--events',
      'sandbox.error',
      '--json',
    ]);
    expect(hook.code, hook.stderr).toBe(0);
    const webhookId = (JSON.parse(hook.stdout) as {id: string}).id;
    expect((await svc(['trigger', 'sandbox.error', '--last-error', 'disk full'])).code).toBe(0);
    const list = await svc(['webhooks', 'deliveries', webhookId, '--json']);
    const id = (JSON.parse(list.stdout) as {data: {id: string}[]}).data[0]?.id as string;
    const shown = await svc(['webhooks', 'deliveries', 'show', id]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^Created +2031-03-01 00:00:00Z \(just now\)$/m);
  });

  it('answers an unknown delivery id with the way to find one', async () => {
    const r = await svc(['webhooks', 'deliveries', 'show', `dlv_${'0'.repeat(24)}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no delivery dlv_${'0'.repeat(24)} in this org`);
    expect(r.stderr).toContain('svc webhooks list');
  });
});

describe('exit codes and words', {timeout: 60_000}, () => {
  it('refuses a control character in --last-error as a usage error (exit 2)', async () => {
    const r = await svc(['trigger', 'sandbox.error', '--last-error', 'disk\u0007full']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('control characters');
  });

  it('suggests the flag meant when one is misspelled', async () => {
    const r = await svc(['org', '--jsn']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Did you mean --json?');
  });

  it('says what a chaos delay may be when it is too long', async () => {
    // Spawned: were the refusal to regress, this would start an emulator that runs until a signal.
    const r = await runCli(['emulator', 'start', '--in-memory', '--port', '0', '--chaos', 'delay=0-2h'], {
      env,
      timeoutMs: 60_000,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('delay=0-2h is longer than chaos delays go: at most 60s');
  });

  it('help names what each flag takes', async () => {
    expect((await svc(['emulator', 'exec', '--help'])).stdout).toContain('JSON, or YAML');
    const importHelp = (await svc(['emulator', 'import', '--help'])).stdout;
    expect(importHelp).toMatch(/Load a snapshot or seed file/);
    // oclif wraps help at 80 columns.
    expect((await svc(['org', '--help'])).stdout.replace(/\s+/g, ' ')).toContain(
      'default: SVC_API_URL, then the address of the latest svc login',
    );
  });
});
