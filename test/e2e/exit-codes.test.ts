// The exit-code table (src/lib/exit-codes.ts, printed in docs/cli.md), row by row, as commands exit: each situation
// met through several commands, which all exit with the row's code and carry its `--json` error code. The built CLI
// in-process, against one real emulator; the situations without one use a data dir where none runs.
import {mkdir, mkdtemp, rm} from 'node:fs/promises';
import {createServer} from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {writeRuntimeFile} from '../../src/emulator-layout/runtime.js';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {EXIT_CODE_TABLE} from '../../src/lib/exit-codes.js';
import {runCommand} from '../helpers/run-cli.js';

let root: string;
let emu: RunningEmulator;
let key: string;
/** A loopback port nothing listens on. */
let closedPort: number;

const row = (situation: string) => {
  const found = EXIT_CODE_TABLE.find((r) => r.situation === situation);
  if (!found) throw new Error(`no row "${situation}" in the exit-code table`);
  return found;
};
/** The file's emulator, found by its data dir; a config dir of this file's own. */
const atEmulator = (extra: Record<string, string> = {}) => ({
  SVC_EMULATOR_DATA_DIR: emu.dataDir,
  SVC_CONFIG_DIR: join(root, 'config'),
  ...extra,
});
/** A data dir where no emulator runs, and no address that any emulator serves. */
const nowhere = () => ({SVC_EMULATOR_DATA_DIR: join(root, 'none'), SVC_CONFIG_DIR: join(root, 'config')});
const withKey = () => atEmulator({SVC_API_URL: emu.apiUrl, SVC_API_KEY: key});
const id = (prefix: string) => `${prefix}_${'a'.repeat(24)}`;

/** Runs a command and checks its exit code and, for a failure, its `--json` error code, against the row. */
async function exitsBy(situation: string, args: string[], env: NodeJS.ProcessEnv) {
  const expected = row(situation);
  const r = await runCommand([...args, '--json'], {env});
  expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(expected.code);
  if (expected.code !== 0) {
    const code = (JSON.parse(r.stdout) as {error: {code: string}}).error.code;
    if (!expected.errorCodes.includes('…')) expect(expected.errorCodes, args.join(' ')).toContain(code);
    return code;
  }
  return undefined;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-exit-codes-'));
  emu = await startEmulator({port: 0, dataDir: join(root, 'emulator')});
  key = (await emu.control.createKey({name: 'exit-codes'})).secret;
  await mkdir(join(root, 'none'), {mode: 0o700});
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closedPort = (server.address() as {port: number}).port;
  await new Promise<void>((r) => server.close(() => r()));
});
afterAll(async () => {
  await emu?.stop();
  if (root) await rm(root, {recursive: true, force: true});
});

describe('every command exits by the one table', {timeout: 60_000}, () => {
  it('success: 0', async () => {
    await exitsBy('success', ['emulator', 'status'], atEmulator());
    await exitsBy('success', ['org'], withKey());
    await exitsBy('success', ['emulator', 'clock'], atEmulator());
  });

  it('usage: 2, found before anything is sent, whether an emulator runs or not', async () => {
    for (const env of [atEmulator(), nowhere()]) {
      expect(await exitsBy('usage', ['emulator', 'clock', 'advance', '10x'], env)).toBe('usage');
      expect(await exitsBy('usage', ['emulator', 'clock', 'set', 'notatime'], env)).toBe('usage');
      expect(await exitsBy('usage', ['trigger', 'sandbox.ready', '--sandbox', 'nope'], env)).toBe('usage');
      expect(await exitsBy('usage', ['webhooks', 'deliveries', 'show', 'nope'], env)).toBe('usage');
    }
    expect(await exitsBy('usage', ['org', '--no-such-flag'], withKey())).toBe('usage');
    const r = await runCommand(['emulator', 'clock', 'advance', '10x'], {env: atEmulator()});
    expect(r.stderr).toContain('"10x" is not a duration');
  });

  it('no emulator: 3, for status, trigger, open and every emulator command alike', async () => {
    for (const args of [
      ['emulator', 'status'],
      ['trigger', 'sandbox.ready'],
      ['emulator', 'clock'],
      ['emulator', 'clock', 'advance', '1m'],
      ['emulator', 'keys', 'create', '--name', 'k'],
      ['emulator', 'deliveries', 'resend', id('dlv')],
      ['emulator', 'export'],
      ['open', '--print'],
    ]) {
      const r = await runCommand(args, {env: nowhere()});
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(row('no emulator').code);
      if (args[1] !== 'status') {
        const json = await runCommand([...args, '--json'], {env: nowhere()});
        expect(JSON.parse(json.stdout).error.code).toBe('emulator_not_running');
      }
    }
    // By address too: an API address no running emulator serves.
    await exitsBy('no emulator', ['trigger', 'sandbox.ready'], {
      SVC_CONFIG_DIR: join(root, 'config'),
      SVC_API_URL: `http://127.0.0.1:${closedPort}`,
    });
    // Nothing left to stop is what stop is for.
    expect((await runCommand(['emulator', 'stop'], {env: nowhere()})).code).toBe(0);
  });

  it('not found: the same code for every kind of id', async () => {
    await exitsBy('not found', ['webhooks', 'deliveries', 'show', id('dlv')], withKey());
    await exitsBy('not found', ['webhooks', 'deliveries', id('we')], withKey());
    await exitsBy('not found', ['emulator', 'deliveries', 'resend', id('dlv')], atEmulator());
    await exitsBy('not found', ['emulator', 'orgs', 'delete', id('org')], atEmulator());
    await exitsBy('not found', ['emulator', 'keys', 'revoke', id('key')], atEmulator());
    await exitsBy('not found', ['trigger', 'sandbox.ready', '--org', id('org')], atEmulator());
  });

  it('refused, authentication: no key, or a key the API refuses', async () => {
    expect(await exitsBy('refused: authentication', ['org'], atEmulator({SVC_API_URL: emu.apiUrl}))).toBe(
      'not_logged_in',
    );
    const revoked = await emu.control.createKey({name: 'revoked'});
    await emu.control.revokeKey(revoked.id);
    expect(
      await exitsBy('refused: authentication', ['webhooks', 'list'], {
        ...atEmulator(),
        SVC_API_URL: emu.apiUrl,
        SVC_API_KEY: revoked.secret,
      }),
    ).toBe('unauthorized');
  });

  it('refused, forbidden: a token that may not do this', async () => {
    // A data dir whose runtime file holds a control token of one org (as a test file's fixture has): the
    // emulator refuses it anything of the whole emulator.
    const org = await emu.control.createOrg({name: 'scoped'});
    const scoped = await emu.control.createControlToken({org_id: org.id});
    const dir = join(root, 'scoped');
    await mkdir(dir, {mode: 0o700});
    await writeRuntimeFile(dir, {
      api_url: emu.apiUrl,
      account_url: `${emu.apiUrl}/account`,
      admin_token: scoped.token,
      pid: process.pid,
      data_dir: dir,
    });
    const env = {SVC_EMULATOR_DATA_DIR: dir, SVC_CONFIG_DIR: join(root, 'config')};
    expect(await exitsBy('refused: forbidden', ['emulator', 'orgs', 'create', '--name', 'x'], env)).toBe(
      'forbidden',
    );
  });

  it('other failure: a request refused as invalid, an API that cannot be reached', async () => {
    expect(
      await exitsBy(
        'other failure',
        ['emulator', 'webhooks', 'create', '--url', 'http://127.0.0.1:9/x', '--events', 'sandbox.ready'],
        atEmulator(),
      ),
    ).toBe('invalid_request');
    expect(
      await exitsBy('other failure', ['org'], {
        SVC_CONFIG_DIR: join(root, 'config'),
        SVC_API_URL: `http://127.0.0.1:${closedPort}`,
        SVC_API_KEY: key,
      }),
    ).toBe('network_error');
  });
});
