// What svc says is true, and the way out it names works: a key in SVC_API_KEY beside a stored login (never "none
// was given", never "log in"), restart hints that keep the port the emulator listened on, read commands that say
// which API they read (and which emulator the emulator commands act on when those differ), and a trigger whose
// shaped body does not pass for the sandbox itself. One emulator, on a port that is not the default one.
import {mkdir, mkdtemp, rm} from 'node:fs/promises';
import {createServer} from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {runCommand} from '../helpers/run-cli.js';

let root: string;
let emu: RunningEmulator;
let key: string;
let port: string;
/** A loopback address nothing listens on. */
let closedUrl: string;

/** A config dir with a login to the file's emulator. */
const loggedIn = (extra: Record<string, string> = {}) => ({SVC_CONFIG_DIR: join(root, 'config'), ...extra});
/** One line: the in-process runner spells svc as `npx svc` or a path; the sentence is what counts. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-true-messages-'));
  emu = await startEmulator({port: 0, dataDir: join(root, 'emulator')});
  port = new URL(emu.apiUrl).port;
  key = (await emu.control.createKey({name: 'messages'})).secret;
  const login = await runCommand(['login', '--api-url', emu.apiUrl], {env: loggedIn(), input: `${key}\n`});
  expect(login.code, login.stderr).toBe(0);
  await mkdir(join(root, 'none'), {mode: 0o700});
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closedUrl = `http://127.0.0.1:${(server.address() as {port: number}).port}`;
  await new Promise<void>((r) => server.close(() => r()));
});
afterAll(async () => {
  await emu?.stop();
  if (root) await rm(root, {recursive: true, force: true});
});

describe('a key in SVC_API_KEY without SVC_API_URL', () => {
  it('beside a stored login: says the login is not used for it, and names the variable to set', async () => {
    const r = await runCommand(['org'], {env: loggedIn({SVC_API_KEY: key})});
    expect(r.code).toBe(2);
    const said = flat(r.stderr);
    expect(said).toContain(
      `SVC_API_KEY is set, but no address to send it to: a key from the environment goes to SVC_API_URL (or --api-url), never to the address of the stored login (${emu.apiUrl})`,
    );
    expect(said).toContain(`Set SVC_API_URL=${emu.apiUrl} if the key belongs there`);
    expect(said).toContain(`Or unset SVC_API_KEY to use the stored login for ${emu.apiUrl}`);
    expect(said).not.toContain('none was given');
    expect(said).not.toMatch(/svc login/);
    // The way out it names works.
    const followed = await runCommand(['org', '--json'], {
      env: loggedIn({SVC_API_KEY: key, SVC_API_URL: emu.apiUrl}),
    });
    expect(followed.code, followed.stdout).toBe(0);
  });

  it('with no login at all: names SVC_API_URL, not a login that would change nothing', async () => {
    const r = await runCommand(['org'], {env: {SVC_CONFIG_DIR: join(root, 'config-none'), SVC_API_KEY: key}});
    expect(r.code).toBe(2);
    expect(flat(r.stderr)).toContain('SVC_API_KEY is set, but no address to send it to');
    expect(r.stderr).not.toMatch(/svc login/);
  });
});

describe('restart hints keep the port the emulator listened on', () => {
  it('the --allow-local-endpoints hint of a refused local URL', async () => {
    const r = await runCommand(
      ['emulator', 'webhooks', 'create', '--url', 'http://127.0.0.1:9/hook', '--events', 'sandbox.ready'],
      {env: {SVC_EMULATOR_DATA_DIR: emu.dataDir, SVC_CONFIG_DIR: join(root, 'config')}},
    );
    expect(r.code).toBe(1);
    expect(flat(r.stderr)).toMatch(new RegExp(`emulator start --allow-local-endpoints --port ${port}\\b`));
  });

  it('svc emulator status, for the address in use', async () => {
    const r = await runCommand(['emulator', 'status'], {
      env: {SVC_CONFIG_DIR: join(root, 'config-none'), SVC_API_URL: closedUrl},
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(new RegExp(`emulator start --port ${new URL(closedUrl).port}\``));
  });

  it('a read whose emulator is gone', async () => {
    const r = await runCommand(['org'], {
      env: {SVC_CONFIG_DIR: join(root, 'config-none'), SVC_API_URL: closedUrl, SVC_API_KEY: key},
    });
    expect(r.code).toBe(1);
    expect(flat(r.stderr)).toMatch(
      new RegExp(
        `Is the emulator running\\? \`.*emulator status\`; start it again with \`.*emulator start --port ${new URL(closedUrl).port}\``,
      ),
    );
  });
});

describe('read commands name the API they read', () => {
  it('on stderr, with what chose it; nothing there with --json', async () => {
    for (const args of [['org'], ['keys', 'list'], ['webhooks', 'list']]) {
      const r = await runCommand(args, {env: loggedIn()});
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`Reading ${emu.apiUrl} (from the latest login).`);
      const json = await runCommand([...args, '--json'], {env: loggedIn()});
      expect(json.stderr).toBe('');
      JSON.parse(json.stdout);
    }
    const flagged = await runCommand(['org', '--api-url', emu.apiUrl], {env: loggedIn()});
    expect(flagged.stderr).toContain(`Reading ${emu.apiUrl} (from --api-url).`);
  });

  it('and say so when SVC_EMULATOR_DATA_DIR names another emulator than the one read', async () => {
    // Emulator commands act on the data dir's emulator; the read goes to SVC_API_URL, another address.
    const env = {
      SVC_CONFIG_DIR: join(root, 'config'),
      SVC_EMULATOR_DATA_DIR: emu.dataDir,
      SVC_API_URL: closedUrl,
      SVC_API_KEY: key,
    };
    const r = await runCommand(['webhooks', 'list'], {env});
    expect(flat(r.stderr)).toContain(
      `Reading ${closedUrl} (from SVC_API_URL). SVC_EMULATOR_DATA_DIR names another emulator, at ${emu.apiUrl}, which`,
    );
    expect(flat(r.stderr)).toContain(`set SVC_API_URL=${emu.apiUrl}`);
    const agree = await runCommand(['webhooks', 'list'], {env: {...env, SVC_API_URL: emu.apiUrl}});
    expect(agree.code, agree.stderr).toBe(0);
    expect(agree.stderr).toContain(`Reading ${emu.apiUrl} (from SVC_API_URL).`);
    expect(agree.stderr).not.toContain('another emulator');
  });
});

describe('trigger --set', () => {
  it('names the sandbox used, and what the delivered body says instead', async () => {
    const env = {SVC_EMULATOR_DATA_DIR: emu.dataDir, SVC_CONFIG_DIR: join(root, 'config')};
    const json = await runCommand(['trigger', 'sandbox.ready', '--set', 'data.sandbox.name=web', '--json'], {
      env,
    });
    const move = JSON.parse(json.stdout) as {
      sandbox: {id: string; name: string};
      event: {data: {sandbox: {name: string}}};
    };
    expect(move.sandbox.name).not.toBe('web');
    expect(move.event.data.sandbox.name).toBe('web');

    const r = await runCommand(['trigger', 'sandbox.ready', '--set', 'data.sandbox.name=web'], {env});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^Triggered sandbox\.ready \[evt_\w+\] for (sandbox-\w+) \((sbx_\w+), running\), delivered with data\.sandbox\.name "web" in its body; /,
    );
    const plain = await runCommand(['trigger', 'sandbox.ready'], {env});
    expect(plain.stdout).not.toContain('delivered with');
  });
});
