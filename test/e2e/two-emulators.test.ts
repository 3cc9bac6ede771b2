// Two emulators on two data dirs, as a newcomer runs them: every command that needs an emulator finds the one
// serving the API address in use (the latest login, SVC_API_URL), not the default data dir's, says which, and says
// exactly that no running emulator serves the address when none does. --data-dir still wins.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {type EmulatorProcess, startEmulatorProcess, stopProcess} from '../emulator/delivery/processes.js';
import {runCommand} from '../helpers/run-cli.js';

let root: string;
let env: NodeJS.ProcessEnv;
let defaultDir: string;
let otherDir: string;
// Two emulators at once are what this file is about. The first, on the default data dir, runs in this process;
// the second is a process of its own, which `svc emulator stop` ends with a signal in the last test.
let first: RunningEmulator | undefined;
let second: EmulatorProcess | undefined;
const svc = (args: string[], extra: NodeJS.ProcessEnv = {}, input?: string) =>
  runCommand(args, {env: {...env, ...extra}, input});

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-two-emulators-'));
  env = {HOME: root, SVC_CONFIG_DIR: join(root, 'config'), SVC_DATA_DIR: join(root, 'data')};
  defaultDir = join(root, 'data', 'emulator');
  otherDir = join(root, 'other');
  first = await startEmulator({port: 0, dataDir: defaultDir, allowLocalEndpoints: true});
  second = await startEmulatorProcess(otherDir, ['--allow-local-endpoints'], env);
  const key = await svc(['emulator', 'keys', 'create', '--name', 'dev', '--data-dir', otherDir]);
  expect(key.code, key.stderr).toBe(0);
  const login = await svc(['login', '--api-url', second.apiUrl], {}, key.stdout);
  expect(login.code, login.stderr).toBe(0);
}, 180_000);
afterAll(async () => {
  await first?.stop();
  await stopProcess(second);
  await rm(root, {recursive: true, force: true});
});

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const sandboxesOf = async (dataDir: string) => {
  const r = await svc(['emulator', 'sandboxes', 'list', '--json', '--data-dir', dataDir]);
  return (JSON.parse(r.stdout) as {data: {id: string}[]}).data.map((s) => s.id);
};

describe('after logging in to a second emulator', {timeout: 180_000}, () => {
  it('triggers in the emulator the login names, and says which', async () => {
    const r = await svc(['trigger', 'sandbox.ready', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const id = (JSON.parse(r.stdout) as {sandbox: {id: string}}).sandbox.id;
    expect(await sandboxesOf(otherDir)).toContain(id);
    expect(await sandboxesOf(defaultDir)).not.toContain(id);

    const plain = await svc(['trigger', 'sandbox.ready']);
    expect(plain.stdout).toContain(`in the emulator at ${second?.apiUrl}`);
    const clock = await svc(['emulator', 'clock']);
    expect(clock.stdout).toContain(`of the emulator at ${second?.apiUrl}`);
  });

  it('reads a delivery through the emulator serving the address, with its attempts', async () => {
    const hook = await svc([
      'emulator',
      'webhooks',
      'create',
      '--url',
      'http://127.0.0.1:1/hooks',
      '--events',
      'sandbox.error',
      '--json',
    ]);
    expect(hook.code, hook.stderr).toBe(0);
    const webhookId = (JSON.parse(hook.stdout) as {id: string}).id;
    expect((await svc(['trigger', 'sandbox.error', '--last-error', 'disk full'])).code).toBe(0);
    const list = await svc(['webhooks', 'deliveries', webhookId, '--json']);
    expect(list.code, list.stderr).toBe(0);
    const deliveryId = (JSON.parse(list.stdout) as {data: {id: string}[]}).data[0]?.id as string;
    const shown = await svc(['webhooks', 'deliveries', 'show', deliveryId, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect((JSON.parse(shown.stdout) as {event: unknown}).event).not.toBeNull();
  });

  it('SVC_API_URL and --data-dir still choose', async () => {
    const byEnv = await svc(['trigger', 'sandbox.ready'], {SVC_API_URL: first?.apiUrl});
    expect(byEnv.code, byEnv.stderr).toBe(0);
    expect(byEnv.stdout).toContain(`in the emulator at ${first?.apiUrl}`);
    const byDir = await svc(['trigger', 'sandbox.ready', '--data-dir', defaultDir]);
    expect(byDir.stdout).toContain(`in the emulator at ${first?.apiUrl}`);
  });

  it('names the emulator it acted on in every result it prints, and keeps --json as it was', async () => {
    const at = `on the emulator at ${second?.apiUrl}`;
    const hook = await svc([
      'emulator',
      'webhooks',
      'create',
      '--url',
      'http://127.0.0.1:1/at',
      '--events',
      'sandbox.ready',
    ]);
    expect(hook.code, hook.stderr).toBe(0);
    expect(hook.stderr).toContain(`→ http://127.0.0.1:1/at ${at}. The signing secret is shown once:`);
    const webhookId = /Added (we_\w+)/.exec(hook.stderr)?.[1] as string;
    const chaos = await svc(['emulator', 'webhooks', 'chaos', webhookId, 'duplicate=0.5']);
    expect(chaos.stdout).toMatch(new RegExp(`^${webhookId} ${literal(at)}: `));
    const calm = await svc(['emulator', 'webhooks', 'chaos', webhookId, '--off']);
    expect(calm.stdout).toBe(`${webhookId} ${at}: no chaos; deliveries are made plainly\n`);

    const created = await svc(['emulator', 'sandboxes', 'create', '--name', 'named']);
    expect(created.stdout).toMatch(new RegExp(`^Created .* ${literal(at)}\n$`));
    const sandboxId = /(sbx_\w+)/.exec(created.stdout)?.[1] as string;
    const listed = await svc(['emulator', 'sandboxes', 'list']);
    expect(listed.stderr).toContain(`Sandboxes ${at}:`);
    expect(listed.stdout).toContain(sandboxId);

    const key = await svc(['emulator', 'keys', 'create', '--name', 'links', '--json']);
    const keyId = (JSON.parse(key.stdout) as {id: string}).id;
    const link = await svc([
      'emulator',
      'sandboxes',
      'links',
      'create',
      sandboxId,
      '--kind',
      'desktop',
      '--key',
      keyId,
    ]);
    expect(link.code, link.stderr).toBe(0);
    expect(link.stdout.trim()).toMatch(/^https?:\/\/\S+$/);
    expect(link.stderr).toContain(`On the emulator at ${second?.apiUrl}:`);
    const links = await svc(['emulator', 'sandboxes', 'links', 'list', sandboxId]);
    expect(links.stderr).toContain(`Links ${at}:`);

    const stopped = await svc(['emulator', 'sandboxes', 'action', sandboxId, 'stop']);
    expect(stopped.stdout).toMatch(new RegExp(`^stop: .* ${literal(at)}\n$`));
    const revoked = await svc(['emulator', 'keys', 'revoke', keyId]);
    expect(revoked.stdout).toBe(`Revoked links (${keyId}) ${at}.\n`);

    const fired = await svc(['trigger', 'sandbox.ready']);
    expect(fired.stdout).toContain(`in the emulator at ${second?.apiUrl}`);
    const list = await svc(['webhooks', 'deliveries', webhookId, '--json']);
    const deliveryId = (JSON.parse(list.stdout) as {data: {id: string}[]}).data[0]?.id as string;
    const resent = await svc(['emulator', 'deliveries', 'resend', deliveryId]);
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.stdout).toMatch(new RegExp(`^Resent ${deliveryId} ${literal(at)}:`));
    const all = await svc(['emulator', 'deliveries', 'resend', '--failed', '--webhook', webhookId]);
    expect(all.stdout).toContain(at);
    const json = await svc(['emulator', 'deliveries', 'resend', deliveryId, '--json']);
    expect(JSON.parse(json.stdout)).not.toHaveProperty('api_url');

    const deleted = await svc(['emulator', 'webhooks', 'delete', webhookId]);
    expect(deleted.stdout).toBe(`Deleted ${webhookId} ${at}.\n`);
    const deletedJson = await svc(['emulator', 'webhooks', 'delete', webhookId, '--json']);
    expect(deletedJson.code).toBe(1);
  });

  it('says exactly that no running emulator serves the address once it stops', async () => {
    const address = second?.apiUrl as string;
    const stopped = await svc(['emulator', 'stop']);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toContain(`Stopped the emulator at ${address}`);
    second = undefined;
    const r = await svc(['trigger', 'sandbox.ready']);
    // Exit 3 ("no emulator"), as `svc emulator status` exits.
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`no running emulator serves ${address}`);
    for (const args of [
      ['emulator', 'sandboxes', 'list'],
      ['emulator', 'webhooks', 'delete', 'we_000000000000000000000000'],
      ['emulator', 'deliveries', 'resend', '--failed'],
    ]) {
      const none = await svc(args);
      expect(none.code).toBe(3);
      expect(none.stderr).toContain(`no running emulator serves ${address}`);
    }
    const status = await svc(['emulator', 'status']);
    expect(status.stdout).toContain(`No running emulator serves ${address}.`);
    // The default data dir's emulator was never touched.
    const other = await svc(['emulator', 'status', '--data-dir', defaultDir]);
    expect(other.stdout).toContain(first?.apiUrl);
  });
});
