// The shared-PostgreSQL vault check of `svc doctor`: this machine's vault key (SVC_EMULATOR_VAULT_KEY or the
// data dir's vault.key) against the one the database's secrets are stored under. Against a real PostgreSQL where
// there is one; the key files are real everywhere.
import {randomBytes} from 'node:crypto';
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {startEmulator} from '../../../src/emulator/index.js';
import {vaultKeyCheckValue} from '../../../src/emulator-layout/vault-check.js';
import {checkSharedVault} from '../../../src/services/doctor/vault.js';
import {scratchSchema} from '../../helpers/pg-schema.js';
import {itNeeding, POSTGRES, postgresUrl} from '../../helpers/requirements.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, {recursive: true, force: true});
  dir = undefined;
});

const DB = 'postgres://svc@127.0.0.1:1/shared';

describe('emulator: vault_key', () => {
  it('is left out without a shared PostgreSQL', async () => {
    expect(await checkSharedVault({env: {}, dataDir: tmpdir(), timeoutMs: 500})).toBeUndefined();
  });

  it("fails a data dir whose vault.key is not the database's, and one with no key at all", async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-doctor-vault-'));
    const shared = randomBytes(32);
    const readHeld = async () => vaultKeyCheckValue(shared);
    const env = {SVC_EMULATOR_DATABASE_URL: DB};
    const none = await checkSharedVault({env, dataDir: dir, timeoutMs: 500, readHeld});
    expect(none).toMatchObject({status: 'fail', detail: expect.stringMatching(/this machine has none/)});
    await writeFile(join(dir, 'vault.key'), `${randomBytes(32).toString('base64')}\n`, {mode: 0o600});
    const other = await checkSharedVault({env, dataDir: dir, timeoutMs: 500, readHeld});
    expect(other).toMatchObject({status: 'fail', fix: expect.stringMatching(/SVC_EMULATOR_VAULT_KEY/)});
    await writeFile(join(dir, 'vault.key'), `${shared.toString('base64')}\n`, {mode: 0o600});
    expect((await checkSharedVault({env, dataDir: dir, timeoutMs: 500, readHeld}))?.status).toBe('ok');
  });

  it('warns when the database cannot be reached, without printing its address', async () => {
    const r = await checkSharedVault({
      env: {SVC_EMULATOR_DATABASE_URL: 'postgres://me:secretpw@127.0.0.1:1/x'},
      dataDir: tmpdir(),
      timeoutMs: 500,
    });
    expect(r).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/could not be read \(ECONNREFUSED\)/),
    });
    expect(JSON.stringify(r)).not.toContain('secretpw');
  });

  itNeeding([POSTGRES], 'compares with the key of the first emulator on a real PostgreSQL', async () => {
    const schema = await scratchSchema(postgresUrl());
    const first = randomBytes(32);
    const emu = await startEmulator({inMemory: true, databaseUrl: schema.url, vaultKey: first, port: 0});
    try {
      const env = (key: Buffer) => ({
        SVC_EMULATOR_DATABASE_URL: schema.url,
        SVC_EMULATOR_VAULT_KEY: key.toString('base64'),
      });
      const same = await checkSharedVault({env: env(first), dataDir: tmpdir(), timeoutMs: 15_000});
      expect(same).toMatchObject({status: 'ok', detail: expect.stringMatching(/is the shared PostgreSQL's/)});
      const unlike = await checkSharedVault({
        env: env(randomBytes(32)),
        dataDir: tmpdir(),
        timeoutMs: 15_000,
      });
      expect(unlike).toMatchObject({
        status: 'fail',
        detail: expect.stringMatching(/not the one the shared PostgreSQL/),
      });
    } finally {
      await emu.stop();
      await schema.drop();
    }
  });
});
