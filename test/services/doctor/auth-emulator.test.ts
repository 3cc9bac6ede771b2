// The auth and emulator lanes of `svc doctor`, each fault planted in real files and a real emulator: a
// credentials file others can read, a damaged one, a revoked key (401), a keychain that refuses at once or never
// answers, a data dir open to others, a stale emulator.json, an incomplete database template.
import {spawnSync} from 'node:child_process';
import {chmod, mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import type {KeyringEntryFactory} from '../../../src/auth/keychain-store.js';
import {writeRuntimeFile} from '../../../src/emulator-layout/runtime.js';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {checkApiKey, checkCredentialsFile, checkKeychain} from '../../../src/services/doctor/auth.js';
import {
  checkDataDir,
  checkRuntimeFile,
  checkTemplate,
  TEMPLATE_CACHE_FOLDER,
} from '../../../src/services/doctor/emulator.js';
import {KeychainStore} from '../../../src/auth/keychain-store.js';

let dir: string;
afterEach(async () => {
  if (dir) await rm(dir, {recursive: true, force: true});
});
const fresh = async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-doctor-'));
  return dir;
};

async function credentials(configDir: string, content: string, mode: number) {
  await mkdir(configDir, {recursive: true, mode: 0o700});
  await writeFile(join(configDir, 'credentials.json'), content, {mode});
  await chmod(join(configDir, 'credentials.json'), mode);
}

describe('auth: credentials_file', () => {
  it('fails a file other users can read, and leaves its mode as it was (read-only)', async () => {
    const config = join(await fresh(), 'config');
    await credentials(
      config,
      JSON.stringify({
        version: 1,
        credentials: {'http://127.0.0.1:4010': {store: 'file', api_key: 'x', stored_at: ''}},
      }),
      0o644,
    );
    const r = await checkCredentialsFile(config);
    expect(r.check).toMatchObject({
      lane: 'auth',
      status: 'fail',
      detail: expect.stringMatching(/open to other users \(mode 644\)/),
    });
    expect(r.check.fix).toMatch(/chmod 600/);
    expect(r.check.detail).not.toContain('"x"');
    const {statSync} = await import('node:fs');
    expect(statSync(join(config, 'credentials.json')).mode & 0o777).toBe(0o644);
  });

  it('fails a damaged file, passes an owner-only one and a missing one', async () => {
    const config = join(await fresh(), 'config');
    expect((await checkCredentialsFile(config)).check.status).toBe('ok');
    await credentials(config, '{not json', 0o600);
    expect((await checkCredentialsFile(config)).check).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/damaged/),
    });
    await credentials(config, JSON.stringify({version: 1, credentials: {}}), 0o600);
    expect((await checkCredentialsFile(config)).check).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/mode 600: no key stored/),
    });
  });
});

describe('auth: api_key, against a real emulator', {timeout: 60_000}, () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({inMemory: true, port: 0});
  });
  afterAll(async () => {
    await emu?.stop();
  });
  const keychain = new KeychainStore({entry: () => Promise.reject(new Error('unused')), timeoutMs: 100});

  it('passes a working key, fails a revoked one with 401, warns where no key is stored for the address', async () => {
    const key = await emu.control.createKey({name: 'doctor'});
    const logins = {credentials: {[emu.apiUrl]: {store: 'file', api_key: key.secret}}};
    const ok = await checkApiKey({apiUrl: emu.apiUrl, env: {}, logins, keychain, timeoutMs: 15_000});
    expect(ok).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/the key from the credentials file works/),
    });
    await emu.control.revokeKey(key.id);
    const revoked = await checkApiKey({apiUrl: emu.apiUrl, env: {}, logins, keychain, timeoutMs: 15_000});
    expect(revoked).toMatchObject({status: 'fail', detail: expect.stringMatching(/answers 401/)});
    expect(JSON.stringify(revoked)).not.toContain(key.secret);
    const elsewhere = await checkApiKey({
      apiUrl: 'http://127.0.0.1:9',
      env: {},
      logins,
      keychain,
      timeoutMs: 15_000,
    });
    expect(elsewhere).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/no key for http:\/\/127\.0\.0\.1:9; keys are stored for/),
    });
    const fromEnv = await checkApiKey({
      apiUrl: emu.apiUrl,
      env: {SVC_API_KEY: key.secret},
      keychain,
      timeoutMs: 15_000,
    });
    expect(fromEnv.detail).toMatch(/SVC_API_KEY/);
  });
});

describe('auth: keychain', () => {
  // As @napi-rs/keyring answers where no secret service runs: a read finds nothing, a write is refused.
  const denied: KeyringEntryFactory = () => ({
    getPassword: () => Promise.resolve(null),
    setPassword: () => Promise.reject(new Error("Couldn't access platform storage: AccessDenied")),
    deleteCredential: () => Promise.resolve(true),
  });
  const silent: KeyringEntryFactory = () => ({
    getPassword: () => new Promise(() => undefined),
    setPassword: () => new Promise(() => undefined),
    deleteCredential: () => new Promise(() => undefined),
  });
  /** A keychain that keeps what it is given, as a working secret service does. */
  const working = () => {
    const kept = new Map<string, string>();
    const entry: KeyringEntryFactory = (service, account) => ({
      getPassword: async () => kept.get(`${service}/${account}`) ?? null,
      setPassword: async (value) => {
        kept.set(`${service}/${account}`, value);
      },
      deleteCredential: async () => kept.delete(`${service}/${account}`),
    });
    return {entry, kept};
  };
  const keychainLogin = {credentials: {'https://api.example': {store: 'keychain'}}};

  it('fails a keychain that refuses or never answers when a login keeps its key there', async () => {
    const refused = await checkKeychain({
      apiUrl: 'https://api.example',
      logins: keychainLogin,
      entry: denied,
      timeoutMs: 500,
    });
    expect(refused).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/AccessDenied.*https:\/\/api\.example/),
    });
    const hung = await checkKeychain({
      apiUrl: 'https://api.example',
      logins: keychainLogin,
      entry: silent,
      timeoutMs: 100,
    });
    expect(hung).toMatchObject({status: 'fail', detail: expect.stringMatching(/no answer within 0\.1 s/)});
  });

  it('tries what `svc login --keychain` does: a keychain that reads but refuses to store is not "answering"', async () => {
    const r = await checkKeychain({
      apiUrl: 'https://api.example',
      logins: {credentials: {}},
      entry: denied,
      timeoutMs: 500,
    });
    expect(r).toMatchObject({status: 'ok', detail: expect.stringMatching(/no login uses it/)});
    expect(r.detail).toMatch(/cannot keep keys here \(Couldn't access platform storage: AccessDenied\)/);
    expect(r.detail).toContain('`svc login --keychain` fails');
    expect(r.detail).not.toMatch(/answers/);
  });

  it('passes a keychain that stores, reads back and removes, and leaves nothing of its probe behind', async () => {
    const {entry, kept} = working();
    const r = await checkKeychain({apiUrl: '', logins: {credentials: {}}, entry, timeoutMs: 500});
    expect(r).toMatchObject({status: 'ok', detail: expect.stringMatching(/stores, reads and removes keys/)});
    expect(kept.size).toBe(0);
  });
});

describe('emulator: data_dir and emulator_json', () => {
  it('fails a data dir open to other users and passes an owner-only one', async () => {
    const data = join(await fresh(), 'emu');
    expect((await checkDataDir(data)).status).toBe('ok');
    await mkdir(data, {mode: 0o755});
    await chmod(data, 0o755);
    expect(await checkDataDir(data)).toMatchObject({status: 'fail', fix: `chmod 700 ${data}`});
    await chmod(data, 0o700);
    expect((await checkDataDir(data)).status).toBe('ok');
  });

  it('warns about an emulator.json whose process is gone, and about an emulator serving another address', async () => {
    const data = await fresh();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid as number;
    const info = {
      api_url: 'http://127.0.0.1:4999',
      account_url: '',
      admin_token: 't',
      pid: gone,
      data_dir: data,
    };
    await writeRuntimeFile(data, info);
    const stale = await checkRuntimeFile({dataDir: data, apiUrl: 'http://127.0.0.1:4999'});
    expect(stale.check).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(new RegExp(`stale: it names process ${gone}`)),
    });
    expect(stale.running).toBeUndefined();
    await writeRuntimeFile(data, {...info, pid: process.pid});
    const other = await checkRuntimeFile({dataDir: data, apiUrl: 'http://127.0.0.1:5000'});
    expect(other.check).toMatchObject({
      status: 'warn',
      fix: expect.stringMatching(/SVC_API_URL=http:\/\/127\.0\.0\.1:4999/),
    });
    const same = await checkRuntimeFile({dataDir: data, apiUrl: 'http://localhost:4999'});
    expect(same.check.status).toBe('ok');
  });
});

describe('emulator: template', () => {
  it('warns about a template whose files do not match its manifest, passes a complete one', async () => {
    const cache = await fresh();
    expect((await checkTemplate(cache)).status).toBe('ok');
    const template = join(cache, TEMPLATE_CACHE_FOLDER);
    await mkdir(join(template, 'pgdata'), {recursive: true});
    const manifest = {dirs: [], files: {PG_VERSION: [3, 3], 'global/pg_control': [8192, 100]}};
    await writeFile(join(template, 'template.json'), JSON.stringify({key: 'k', manifest}));
    await writeFile(join(template, 'pgdata', 'PG_VERSION'), '17\n');
    const half = await checkTemplate(cache);
    expect(half).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/incomplete \(global\/pg_control is missing\)/),
    });
    expect(half.fix).toBe(`Remove it: rm -r ${template} (the next emulator start makes it again)`);
    await mkdir(join(template, 'pgdata', 'global'));
    await writeFile(join(template, 'pgdata', 'global', 'pg_control'), Buffer.alloc(100, 1));
    expect((await checkTemplate(cache)).status).toBe('ok');
  });
});
