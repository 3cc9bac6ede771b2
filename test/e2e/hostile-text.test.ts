// Hostile strings against the emulator and the built CLI: C1 controls (8-bit CSI/OSC) and bidi or zero-width
// characters are refused at input where they could hide or reorder a name, and wherever outside text is still
// shown (an error message, a receiver's answer, an event body, rows stored before the rule, the page) it is
// shown escaped, never raw.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {EmulatorControlError} from '../../src/client/errors.js';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {type Receiver, startReceiver} from '../emulator/delivery/helpers.js';
import {localhostFetch} from '../helpers/localhost-fetch.js';
import {runCommand} from '../helpers/run-cli.js';

const CSI = '\u009b2J';
const OSC52 = '\u009d52;c;cGF3bmVk\u009c';
const RLO = '\u202E';
const ZWSP = '\u200B';
/** Nothing of these may reach a terminal or a page raw. */
const RAW = /[\u0080-\u009f\u202a-\u202e\u2066-\u2069\u200b-\u200f\u001b\u0007]/;

let root: string;
let emu: RunningEmulator;
let receiver: Receiver;
let key: string;
const logs: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-hostile-text-'));
  receiver = await startReceiver((_q, res) => {
    res.writeHead(500, {'content-type': 'text/plain'});
    res.end(`no ${CSI} ${OSC52} ${RLO}gnp.exe ${ZWSP}`);
  });
  emu = await startEmulator({
    port: 0,
    dataDir: join(root, 'data'),
    inMemory: true,
    allowLocalEndpoints: true,
    clock: 'manual',
    log: (line) => logs.push(line),
  });
  key = (await emu.control.createKey({name: 'reader'})).secret;
}, 60_000);

afterAll(async () => {
  await emu?.stop();
  await receiver?.close();
  if (root) await rm(root, {recursive: true, force: true});
});

const cli = (args: string[]) =>
  runCommand(args, {
    env: {
      SVC_API_URL: emu.apiUrl,
      SVC_API_KEY: key,
      SVC_EMULATOR_DATA_DIR: emu.dataDir,
      SVC_CONFIG_DIR: join(root, 'config'),
    },
  });

async function refusedField(call: Promise<unknown>): Promise<string> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EmulatorControlError);
  expect((err as EmulatorControlError).status).toBe(400);
  return (err as EmulatorControlError).message;
}

describe('hostile text at input', {timeout: 60_000}, () => {
  it.each([
    ['a C1 CSI', `key${CSI}`],
    ['a C1 OSC', `key${OSC52}`],
    ['a right-to-left override', `key${RLO}txt.exe`],
    ['a zero-width space', `ad${ZWSP}min`],
  ])('refuses %s in a key name, a sandbox name, a description and created_by', async (_what, value) => {
    expect(await refusedField(emu.control.createKey({name: value}))).toContain('name');
    expect(
      await refusedField(emu.control.createKey({name: 'ok', created_by: `a${value}@example.com`})),
    ).toContain('created_by');
    expect(await refusedField(emu.control.createSandbox({name: value}))).toContain('name');
    expect(
      await refusedField(
        emu.control.createWebhook({url: `${receiver.url}/x`, events: ['sandbox.ready'], description: value}),
      ),
    ).toContain('description');
  });

  it('refuses C1 in last_error, as C0', async () => {
    expect(
      await refusedField(emu.control.trigger({type: 'sandbox.error', last_error: `boom${CSI}`})),
    ).toContain('last_error');
  });

  it('refuses an email with a C1 or bidi character in the sign-in form, and logs nothing of it', async () => {
    const page = await localhostFetch(emu.accountUrl);
    const cookie = (page.headers.getSetCookie()[0] as string).split(';')[0] as string;
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] as string;
    for (const email of [`x${OSC52}@example.com`, `${RLO}moc.elpmaxe@x`]) {
      const res = await localhostFetch(`${emu.accountUrl}/login`, {
        method: 'POST',
        headers: {cookie, 'content-type': 'application/x-www-form-urlencoded'},
        body: new URLSearchParams({csrf, email}),
      });
      expect(res.status).toBe(400);
      expect(await res.text()).not.toMatch(RAW);
    }
    expect(logs.join('\n')).not.toMatch(RAW);
  });
});

describe('hostile text on display', {timeout: 60_000}, () => {
  it('shows a receiver answer and a last_error escaped in `deliveries show` and `trigger`', async () => {
    const hook = await emu.control.createWebhook({url: `${receiver.url}/hooks`, events: ['sandbox.error']});
    const move = await emu.control.trigger({type: 'sandbox.error', last_error: `disk ${RLO}lluf`});
    const attempted = await emu.control.waitForDelivery({event_id: move.event?.id ?? '', attempts: 1});
    expect(receiver.requests.length).toBeGreaterThanOrEqual(1);
    const list = JSON.parse((await cli(['webhooks', 'deliveries', hook.id, '--json'])).stdout);
    expect(list.data[0]?.attempts).toBeGreaterThanOrEqual(1);
    const id = list.data[0].id;
    expect(id).toBe(attempted.delivery.id);
    const shown = await cli(['webhooks', 'deliveries', 'show', id]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toMatch(RAW);
    expect(shown.stdout).toContain('\\u009b2J');
    expect(shown.stdout).toContain('\\u202egnp.exe');
    expect(shown.stdout).toContain('disk \\u202elluf');

    // A sandbox name stored before the rule (an older data dir) is still shown escaped.
    await emu.db.query('UPDATE sandboxes SET name = $2 WHERE id = $1', [
      move.sandbox.id,
      `old${CSI}${RLO}name`,
    ]);
    const listed = await cli(['emulator', 'sandboxes', 'list']);
    expect(listed.stdout).not.toMatch(RAW);
    expect(listed.stdout).toContain('old\\u009b2J\\u202ename');
    expect(listed.stdout).toContain('disk \\u202elluf');
    const triggered = await cli(['trigger', 'sandbox.ready', '--sandbox', move.sandbox.id]);
    expect(triggered.code, triggered.stderr).toBe(0);
    expect(triggered.stdout + triggered.stderr).not.toMatch(RAW);
    expect(triggered.stdout).toContain('old\\u009b2J\\u202ename');
  });

  it('shows a key name stored before the rule escaped in `keys list` and on the account page', async () => {
    await emu.repos.keys.create({
      orgId: emu.orgId,
      name: `legacy${RLO}yek`,
      createdBy: `m${ZWSP}e@example.com`,
      expires: 'never',
      now: emu.clock.now(),
    });
    const listed = await cli(['keys', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toMatch(RAW);
    expect(listed.stdout).toContain('legacy\\u202eyek');

    // The page, signed in through the mailbox.
    const jar = new Map<string, string>();
    const go = async (path: string, form?: Record<string, string>) => {
      const res = await localhostFetch(new URL(path, emu.accountUrl), {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: {
          cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(form ? {'content-type': 'application/x-www-form-urlencoded'} : {}),
        },
        body: form ? new URLSearchParams(form) : undefined,
      });
      for (const c of res.headers.getSetCookie()) {
        const [k, v] = (c.split(';')[0] as string).split('=') as [string, string];
        jar.set(k, v);
      }
      return res.text();
    };
    const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] as string;
    await go('/account/login', {csrf: csrfOf(await go('/account')), email: 'owner@example.com'});
    const link = /href="[^"]*(\/account\/sign-in\?token=[^"]+)"/.exec(
      await go('/account/mailbox'),
    )?.[1] as string;
    const confirm = await go(link.replaceAll('&amp;', '&'));
    const token = /name="token" value="([^"]+)"/.exec(confirm)?.[1] as string;
    await go('/account/sign-in', {csrf: csrfOf(confirm), token});
    const page = await go('/account/keys');
    expect(page).toContain('legacy\\u202eyek');
    expect(page).toContain('m\\u200be@example.com');
    expect(page).not.toMatch(RAW);
  });
});
