// The vault key checked at start: a process whose key is not the one the database's signing secrets were stored
// under refuses to start and names the fix, instead of failing every attempt it claims. On PGlite (a data dir
// whose vault.key was swapped) always; on a shared PostgreSQL (processes with unlike keys, or none) when
// SVC_TEST_DATABASE_URL is set.
import {randomBytes} from 'node:crypto';
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {describeNeeding, POSTGRES, postgresUrl} from '../helpers/requirements.js';
import {EmulatorStartError, type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {verifySignature} from '../../src/webhooks/index.js';
import {scratchSchema} from '../helpers/pg-schema.js';
import {runCli} from '../helpers/run-cli.js';
import {type Receiver, startReceiver} from './delivery/helpers.js';

const publicLookup = async () => [{address: '93.184.215.14', family: 4}];

async function refusal(start: Promise<RunningEmulator>): Promise<EmulatorStartError> {
  const outcome = await start.then(
    async (e) => {
      await e.stop();
      return undefined;
    },
    (err: unknown) => err,
  );
  expect(outcome).toBeInstanceOf(EmulatorStartError);
  return outcome as EmulatorStartError;
}

describe('a data dir started with another vault key', {timeout: 60_000}, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-vault-check-'));
  });
  afterAll(() => rm(dir, {recursive: true, force: true}));

  const start = (vaultKey: Buffer) => startEmulator({port: 0, dataDir: dir, vaultKey, lookup: publicLookup});

  it('refuses to start, naming the fix, and starts again with the first key', async () => {
    const first = randomBytes(32);
    const emu = await start(first);
    await emu.control.createWebhook({url: 'https://hooks.example.com/svc', events: ['sandbox.ready']});
    await emu.stop();

    const err = await refusal(start(randomBytes(32)));
    expect(err.code).toBe('vault_key_mismatch');
    expect(err.message).toContain(join(dir, 'vault.key'));

    const again = await start(first);
    expect((await again.control.health()).ok).toBe(true);
    await again.stop();
  });

  it('with its vault.key swapped names the `dataDir` option as the way out', async () => {
    const other = await mkdtemp(join(tmpdir(), 'svc-vault-swapped-'));
    try {
      const emu = await startEmulator({port: 0, dataDir: other, lookup: publicLookup});
      await emu.control.createWebhook({url: 'https://hooks.example.com/swapped', events: ['sandbox.ready']});
      await emu.stop();
      await writeFile(join(other, 'vault.key'), `${randomBytes(32).toString('base64')}\n`, {mode: 0o600});
      const err = await refusal(startEmulator({port: 0, dataDir: other}));
      expect(err).toMatchObject({code: 'vault_key_mismatch', option: 'dataDir'});
      expect(err.message).toContain(`Put back the vault.key its data dir (${other}) was first given`);
      expect(err.message).toContain('start with a fresh data dir (the `dataDir` option)');
      expect(err.naming('--data-dir')).toContain('start with a fresh data dir (--data-dir)');
    } finally {
      await rm(other, {recursive: true, force: true});
    }
  });

  it('judges a database from before the check by one of its stored secrets', async () => {
    const other = await mkdtemp(join(tmpdir(), 'svc-vault-old-'));
    try {
      const first = randomBytes(32);
      const emu = await startEmulator({port: 0, dataDir: other, vaultKey: first, lookup: publicLookup});
      await emu.control.createWebhook({url: 'https://hooks.example.com/old', events: ['sandbox.ready']});
      await emu.db.query("DELETE FROM emulator_meta WHERE key = 'vault_key_check'");
      await emu.stop();
      const err = await refusal(startEmulator({port: 0, dataDir: other, vaultKey: randomBytes(32)}));
      expect(err.code).toBe('vault_key_mismatch');
      const again = await startEmulator({port: 0, dataDir: other, vaultKey: first});
      await again.stop();
    } finally {
      await rm(other, {recursive: true, force: true});
    }
  });
});

describeNeeding(
  [POSTGRES],
  'processes sharing a PostgreSQL with unlike vault keys',
  {timeout: 90_000},
  () => {
    let schema: Awaited<ReturnType<typeof scratchSchema>>;
    let first: RunningEmulator;
    let receiver: Receiver;
    const key = randomBytes(32);
    const started: RunningEmulator[] = [];

    beforeAll(async () => {
      schema = await scratchSchema(postgresUrl());
      receiver = await startReceiver();
      first = await startEmulator({
        port: 0,
        inMemory: true,
        databaseUrl: schema.url,
        vaultKey: key,
        allowLocalEndpoints: true,
      });
    }, 60_000);
    afterAll(async () => {
      for (const e of started) await e.stop();
      await first?.stop();
      await receiver?.close();
      await schema?.drop();
    });

    it('refuses a second process with another key, and one given none by mistake (a key of its own)', async () => {
      for (const vaultKey of [randomBytes(32), undefined]) {
        const err = await refusal(
          startEmulator({
            port: 0,
            inMemory: true,
            databaseUrl: schema.url,
            vaultKey,
            allowLocalEndpoints: true,
          }),
        );
        expect(err.code).toBe('vault_key_mismatch');
        expect(err.message).toContain('SVC_EMULATOR_VAULT_KEY');
      }
    });

    it('says so from the CLI when a second process forgets SVC_EMULATOR_VAULT_KEY, and exits', async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'svc-vault-cli-'));
      try {
        const r = await runCli(['emulator', 'start', '--port', '0', '--data-dir', dataDir], {
          env: {SVC_EMULATOR_DATABASE_URL: schema.url},
        });
        expect(r.code).toBe(1);
        expect(r.stderr).toContain('vault key is not the one');
        expect(r.stderr).toContain('SVC_EMULATOR_VAULT_KEY');
      } finally {
        await rm(dataDir, {recursive: true, force: true});
      }
    });

    it('lets a process without a vault key run beside them, claiming nothing it cannot sign', async () => {
      const keyless = await startEmulator({
        port: 0,
        inMemory: true,
        databaseUrl: schema.url,
        noVaultKey: true,
      });
      started.push(keyless);
      const hook = await first.control.createWebhook({
        url: `${receiver.url}/hooks`,
        events: ['sandbox.ready'],
      });
      const events = 20;
      // Triggered through the keyless process: its worker wakes too, and must leave every delivery to the other.
      for (let i = 0; i < events; i++) await keyless.control.trigger({type: 'sandbox.ready'});
      await (receiver as Receiver).received(events, 30_000);
      for (const req of receiver.requests) {
        expect(() =>
          verifySignature({
            payload: req.body,
            header: String(req.headers['svc-signature']),
            secret: hook.secret,
          }),
        ).not.toThrow();
        expect(req.headers['svc-delivery-attempt']).toBe('1');
      }
      // Its relay route answers 503 with the reason, not 500.
      const relay = await fetch(`${keyless.apiUrl}/_emulator/relay`, {
        method: 'POST',
        headers: {authorization: `Bearer ${keyless.adminToken}`, 'content-type': 'application/json'},
        body: JSON.stringify({name: 'dev', events: ['sandbox.ready']}),
      });
      expect(relay.status).toBe(503);
    });
  },
);
