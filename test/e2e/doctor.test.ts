// `svc doctor` as a user runs it: a real process, a real emulator, faults planted in real files.
import {chmod, mkdir, mkdtemp, rm, stat, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type EmulatorProcess, startEmulatorProcess, stopProcess} from '../emulator/delivery/processes.js';
import {runCommand} from '../helpers/run-cli.js';

interface Report {
  checks: {id: string; lane: string; status: string; detail: string; fix?: string}[];
  ok: number;
  warn: number;
  fail: number;
}

let root: string;
// The file's one emulator: a process of its own (`svc emulator start` notes it under SVC_DATA_DIR, which the last
// test needs), on a data dir that is not the default one of the last test's user.
let emulator: EmulatorProcess | undefined;
const env = (extra: Record<string, string> = {}) => ({
  SVC_CONFIG_DIR: join(root, 'config'),
  SVC_EMULATOR_DATA_DIR: join(root, 'emu'),
  SVC_CACHE_DIR: join(root, 'cache'),
  SVC_API_URL: emulator?.apiUrl as string,
  ...extra,
});

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-doctor-e2e-'));
  emulator = await startEmulatorProcess(join(root, 'emu'), [], {SVC_DATA_DIR: join(root, 'svc-data')});
}, 60_000);
afterAll(async () => {
  await stopProcess(emulator);
  if (root) await rm(root, {recursive: true, force: true});
});

describe('svc doctor', {timeout: 60_000}, () => {
  it('reports every lane in the contract shape; a working key and emulator fail nothing (exit 0)', async () => {
    const key = JSON.parse(
      (await runCommand(['emulator', 'keys', 'create', '--name', 'doc', '--json'], {env: env()})).stdout,
    ) as {secret: string};
    const login = await runCommand(['login', '--api-url', emulator?.apiUrl as string], {
      env: env(),
      input: `${key.secret}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    const r = await runCommand(['doctor', '--json'], {env: env()});
    const report = JSON.parse(r.stdout) as Report;
    expect(r.code, r.stdout).toBe(report.fail > 0 ? 1 : 0);
    expect(Object.keys(report).sort()).toEqual(['checks', 'fail', 'ok', 'warn']);
    expect(new Set(report.checks.map((c) => c.lane))).toEqual(
      new Set(['system', 'clock', 'network', 'auth', 'emulator']),
    );
    for (const c of report.checks) {
      expect(['ok', 'warn', 'fail']).toContain(c.status);
      if (c.status !== 'ok') expect(c.fix, c.id).toBeTruthy();
    }
    const byId = Object.fromEntries(report.checks.map((c) => [c.id, c]));
    expect(byId.api_key).toMatchObject({status: 'ok'});
    expect(byId.emulator_json).toMatchObject({status: 'ok'});
    expect(byId.emulator_clock).toMatchObject({status: 'ok'});
    expect(byId.api_clock?.status).not.toBe('fail');
    expect(byId.credentials_file).toMatchObject({status: 'ok'});
    expect(r.stdout).not.toContain(key.secret);
    expect(report.ok + report.warn + report.fail).toBe(report.checks.length);

    const text = await runCommand(['doctor'], {env: env()});
    expect(text.stdout).toMatch(/^system\n {2}(ok {2}|WARN) {2}node: Node\.js v/);
    expect(text.stdout).toMatch(/\d+ ok, \d+ warnings?, \d+ failed\n$/);
  });

  it('exits 1 on a failed check: a credentials file others can read; a stale emulator.json only warns', async () => {
    await chmod(join(root, 'config', 'credentials.json'), 0o644);
    const r = await runCommand(['doctor', '--json'], {env: env()});
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.checks.find((c) => c.id === 'credentials_file')).toMatchObject({status: 'fail'});
    await chmod(join(root, 'config', 'credentials.json'), 0o600);

    const stale = join(root, 'stale');
    await mkdir(stale, {mode: 0o700});
    await writeFile(
      join(stale, 'emulator.json'),
      JSON.stringify({
        api_url: 'http://127.0.0.1:9',
        account_url: '',
        admin_token: 't',
        pid: 2 ** 22 + 7,
        data_dir: stale,
      }),
      {mode: 0o600},
    );
    const s = await runCommand(['doctor', '--json', '--data-dir', stale], {env: env()});
    const staleReport = JSON.parse(s.stdout) as Report;
    expect(staleReport.checks.find((c) => c.id === 'emulator_json')).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/is stale: it names process 4194311/),
    });
  });

  it('checks where a --forward-to server listens', async () => {
    const r = await runCommand(['doctor', '--json', '--forward-to', 'http://127.0.0.1:9/hooks'], {
      env: env(),
    });
    const report = JSON.parse(r.stdout) as Report;
    expect(report.checks.find((c) => c.id === 'forward_to')).toMatchObject({
      lane: 'network',
      status: 'fail',
      detail: expect.stringMatching(/nothing listens/),
    });
    expect(r.code).toBe(1);
  });

  it('looks at the emulator serving the address in use, not the default data dir', async () => {
    // The file's emulator runs on a data dir of its own (not this user's default, svc-data/emulator), noted where
    // this user's commands find running emulators.
    const svcData = join(root, 'svc-data');
    const own = join(root, 'emu');
    const apiUrl = emulator?.apiUrl as string;
    const r = await runCommand(['doctor', '--json'], {
      env: {
        SVC_CONFIG_DIR: join(root, 'config-second'),
        SVC_CACHE_DIR: join(root, 'cache'),
        SVC_DATA_DIR: svcData,
        SVC_API_URL: apiUrl,
      },
    });
    const byId = Object.fromEntries((JSON.parse(r.stdout) as Report).checks.map((c) => [c.id, c]));
    expect(byId.emulator_json).toMatchObject({status: 'ok', detail: expect.stringContaining(own)});
    expect(byId.emulator_json?.detail).toContain(apiUrl);
    expect(byId.data_dir?.detail).toContain(own);
    const port = new URL(apiUrl).port;
    expect(byId.dot_localhost?.detail).toContain(`svc-${port}.localhost`);
  });
  it('only looks: a credentials file others can read is reported with its fix and left as it was', async () => {
    // No SVC_API_URL: the address is the latest login's, read from that very file.
    const {SVC_API_URL: _, ...fromLogin} = env();
    const file = join(root, 'config', 'credentials.json');
    await chmod(file, 0o644);
    try {
      const r = await runCommand(['doctor', '--json'], {env: fromLogin});
      const report = JSON.parse(r.stdout) as Report;
      expect(report.checks.find((c) => c.id === 'credentials_file')).toMatchObject({
        status: 'fail',
        detail: expect.stringMatching(/open to other users \(mode 644\)/),
        fix: expect.stringContaining(`chmod 600 ${file}`),
      });
      expect(r.code).toBe(1);
      expect((await stat(file)).mode & 0o777).toBe(0o644);
    } finally {
      await chmod(file, 0o600);
    }
  });

  it('says why there is no address to check: none given, a key from SVC_API_KEY alone, or one not valid', async () => {
    const addressOf = async (extra: Record<string, string>, config: string) => {
      const {SVC_API_URL: _, ...rest} = env();
      const r = await runCommand(['doctor', '--json'], {env: {...rest, SVC_CONFIG_DIR: config, ...extra}});
      return (JSON.parse(r.stdout) as Report).checks.find((c) => c.id === 'api_address');
    };
    const none = await addressOf({}, join(root, 'config-none'));
    expect(none).toMatchObject({status: 'warn', detail: expect.stringContaining('none was given')});
    expect(none?.detail).not.toContain('not valid');

    // A stored login, and a key in SVC_API_KEY, which is never sent to the login's address.
    const apiUrl = emulator?.apiUrl as string;
    const envKey = await addressOf({SVC_API_KEY: `svc_${'a'.repeat(40)}`}, join(root, 'config'));
    expect(envKey?.detail).toContain(`SVC_API_KEY is set, but no address to send it to`);
    expect(envKey?.detail).toContain(`the stored login (${apiUrl})`);
    expect(envKey?.detail).not.toContain('none was given');
    expect(envKey?.fix).toContain(`Set SVC_API_URL=${apiUrl}`);
    expect(envKey?.fix).not.toContain('svc login');

    const invalid = await addressOf({SVC_API_URL: 'ftp://example.com'}, join(root, 'config-none'));
    expect(invalid).toMatchObject({status: 'fail', detail: expect.stringContaining('is not valid')});
  });

  it('says of the keychain what `svc login --keychain` finds on this machine', async () => {
    const config = join(root, 'config-keychain');
    const key = JSON.parse(
      (await runCommand(['emulator', 'keys', 'create', '--name', 'kc', '--json'], {env: env()})).stdout,
    ) as {secret: string};
    const login = await runCommand(['login', '--keychain', '--json'], {
      env: env({SVC_CONFIG_DIR: config}),
      input: `${key.secret}\n`,
    });
    const r = await runCommand(['doctor', '--json'], {env: env({SVC_CONFIG_DIR: join(root, 'config-none')})});
    const keychain = (JSON.parse(r.stdout) as Report).checks.find((c) => c.id === 'keychain');
    if (login.code === 0) {
      await runCommand(['logout'], {env: env({SVC_CONFIG_DIR: config})});
      expect(keychain?.detail).toMatch(/stores, reads and removes keys/);
    } else {
      // Where no secret service runs, @napi-rs/keyring refuses to store (AccessDenied) but reads "nothing".
      expect(JSON.parse(login.stdout).error.code).toBe('keychain_unavailable');
      expect(keychain?.detail).toMatch(/cannot keep keys here \(.+\), so `svc login --keychain` fails/);
      expect(keychain?.detail).not.toMatch(/answers/);
    }
  });
});
