// The tools users of other webhook CLIs reach for, as a user runs them (the built CLI, in-process) against a real
// emulator with a real receiver: a shaped trigger, deliveries filtered by event type, every failed delivery resent
// at once, and the account page opened in a browser (a planted opener records what it was asked to open).
import {chmod, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {type Receiver, startReceiver} from '../emulator/delivery/helpers.js';
import {BIN, runCommand, runProcess} from '../helpers/run-cli.js';

let root: string;
let dataDir: string;
let emulator: RunningEmulator | undefined;
let receiver: Receiver;
let hookId: string;
let failing = false;
const env = () => ({SVC_CONFIG_DIR: join(root, 'config'), SVC_EMULATOR_DATA_DIR: dataDir});
const cli = (args: string[], extra: Record<string, string> = {}) =>
  runCommand(args, {env: {...env(), ...extra}});
const json = <T>(text: string) => JSON.parse(text) as T;
const control = () => (emulator as RunningEmulator).control;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-peer-tools-'));
  dataDir = join(root, 'emu');
  receiver = await startReceiver((_q, res) => {
    res.writeHead(failing ? 503 : 200);
    res.end();
  });
  // What `svc emulator start --data-dir … --allow-local-endpoints --clock manual` runs (its start is not under
  // test here), in this process: the commands find it through the runtime file in its data dir.
  emulator = await startEmulator({
    port: 0,
    dataDir,
    inMemory: true,
    allowLocalEndpoints: true,
    clock: 'manual',
  });
  const created = await cli([
    'emulator',
    'webhooks',
    'create',
    '--url',
    `${receiver.url}/hooks`,
    '--events',
    'sandbox.ready,sandbox.error',
    '--json',
  ]);
  expect(created.code, created.stderr).toBe(0);
  hookId = json<{id: string}>(created.stdout).id;
  const key = json<{secret: string}>(
    (await cli(['emulator', 'keys', 'create', '--name', 'peer', '--json'])).stdout,
  );
  const stored = await runCommand(['login', '--api-url', emulator.apiUrl], {
    env: env(),
    input: `${key.secret}\n`,
  });
  expect(stored.code, stored.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await emulator?.stop();
  await receiver?.close();
  if (root) await rm(root, {recursive: true, force: true});
});

describe('svc trigger --set', {timeout: 60_000}, () => {
  it('delivers the shaped body: the values set, the rest as the emulator made it', async () => {
    const before = receiver.requests.length;
    const r = await cli([
      'trigger',
      'sandbox.error',
      '--set',
      'data.sandbox.name=web',
      '--set',
      'data.sandbox.last_error="42"',
      '--set',
      'data.attempt={"n": 3, "retry": true}',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const move = json<{
      event: {id: string; data: {sandbox: {id: string; name: string}}};
      sandbox: {name: string};
    }>(r.stdout);
    await control().waitForDelivery({event_id: move.event.id});
    const body = JSON.parse(receiver.requests[before]?.body as string);
    expect(body).toEqual(move.event);
    expect(body.id).toBe(move.event.id);
    expect(body.type).toBe('sandbox.error');
    expect(body.data.sandbox).toMatchObject({name: 'web', last_error: '42', status: 'error'});
    expect(body.data.attempt).toEqual({n: 3, retry: true});
    // The sandbox itself moved as the event type says; only the delivered body was shaped.
    expect(move.sandbox.name).not.toBe('web');
    expect(move.event.data.sandbox.id).toBe((move.sandbox as unknown as {id: string}).id);
  });

  it('exits 2 naming each path and the rule it breaks, and sends nothing', async () => {
    const before = receiver.requests.length;
    const r = await cli([
      'trigger',
      'sandbox.ready',
      '--set',
      'data.sandbox.name=42',
      '--set',
      'data.sandbox.nmae=web',
      '--json',
    ]);
    expect(r.code).toBe(2);
    const message = json<{error: {code: string; message: string}}>(r.stdout).error.message;
    expect(message).toMatch(/data\.sandbox\.nmae is not a field of a sandbox\.ready event/);
    expect(message).not.toMatch(/nmae.*nmae/);
    const types = await cli(['trigger', 'sandbox.ready', '--set', 'data.sandbox.name=42']);
    expect(types.code).toBe(2);
    expect(types.stderr).toMatch(/data\.sandbox\.name .*expected string, received number/);
    expect(types.stderr).toMatch(/svc events schema sandbox\.ready/);

    const id = await cli(['trigger', 'sandbox.ready', '--set', 'id=evt_x']);
    expect(id.code).toBe(2);
    expect(id.stderr).toMatch(/id is made by the emulator, one per event/);
    const type = await cli(['trigger', 'sandbox.ready', '--set', 'type=sandbox.error']);
    expect(type.stderr).toMatch(/type is the event type given to trigger/);
    const noValue = await cli(['trigger', 'sandbox.ready', '--set', 'data.sandbox.name']);
    expect(noValue.code).toBe(2);
    expect(noValue.stderr).toMatch(/is not PATH=VALUE/);
    expect(receiver.requests.length).toBe(before);
  });

  it('refuses what the service refuses in those fields: a time that is none, a status the type contradicts, hidden characters', async () => {
    const before = receiver.requests.length;
    const refused: [string, string, RegExp][] = [
      [
        'sandbox.ready',
        'data.sandbox.expires_at=notatime',
        /data\.sandbox\.expires_at must be an ISO 8601 time/,
      ],
      [
        'sandbox.ready',
        'data.sandbox.expires_at=2030-02-30T00:00:00Z',
        /data\.sandbox\.expires_at must be a date that exists: February 2030 has 28 days/,
      ],
      [
        'sandbox.ready',
        'data.sandbox.status=stopped',
        /data\.sandbox\.status must be running in a sandbox\.ready event/,
      ],
      [
        'sandbox.expired',
        'data.sandbox.status=running',
        /data\.sandbox\.status must be deleting in a sandbox\.expired event/,
      ],
      [
        'sandbox.ready',
        'data.sandbox.name=web\u001b[2J',
        /data\.sandbox\.name must not contain control characters/,
      ],
      [
        'sandbox.ready',
        'data.sandbox.name=web\u202egnp.exe',
        /data\.sandbox\.name must not contain invisible formatting characters/,
      ],
      ['sandbox.ready', 'data.sandbox.name= ', /data\.sandbox\.name must not be empty/],
      [
        'sandbox.error',
        'data.sandbox.last_error=boom\u001b]0;owned\u0007',
        /data\.sandbox\.last_error must not contain control characters/,
      ],
    ];
    for (const [type, set, says] of refused) {
      const r = await cli(['trigger', type, '--set', set]);
      expect({code: r.code, set}).toEqual({code: 2, set});
      expect(r.stderr).toMatch(says);
    }
    // The emulator's trigger route applies the same rules to a `set` no CLI checked.
    const err = await control()
      .trigger({
        type: 'sandbox.ready',
        set: [
          {path: 'data.sandbox.expires_at', value: 'notatime'},
          {path: 'data.sandbox.status', value: 'error'},
          {path: 'data.sandbox.name', value: 'a\u202eb'},
        ],
      })
      .catch((e: unknown) => e as {code: string; problems: {field: string}[]});
    expect(err).toMatchObject({code: 'invalid_request'});
    expect((err as {problems: {field: string}[]}).problems.map((p) => p.field)).toEqual([
      'set.data.sandbox.expires_at',
      'set.data.sandbox.status',
      'set.data.sandbox.name',
    ]);
    expect(receiver.requests.length).toBe(before);

    // What the service would send passes: a real time, the status the type reports, a plain name.
    const ok = await cli([
      'trigger',
      'sandbox.ready',
      '--set',
      'data.sandbox.expires_at=2030-02-28T23:00:00+01:00',
      '--set',
      'data.sandbox.status=running',
      '--set',
      'data.sandbox.name=web café',
      '--json',
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(json<{event: {data: {sandbox: object}}}>(ok.stdout).event.data.sandbox).toMatchObject({
      expires_at: '2030-02-28T23:00:00+01:00',
      status: 'running',
      name: 'web café',
    });
  });
});

describe('svc webhooks deliveries --event-type', {timeout: 60_000}, () => {
  it('lists only the deliveries of that type, and refuses a type that is not one', async () => {
    for (const type of ['sandbox.ready', 'sandbox.error']) {
      expect((await cli(['trigger', type])).code).toBe(0);
    }
    const errors = await cli(['webhooks', 'deliveries', hookId, '--event-type', 'sandbox.error', '--json']);
    expect(errors.code, errors.stderr).toBe(0);
    const data = json<{data: {event_type: string}[]}>(errors.stdout).data;
    expect(data.length).toBeGreaterThanOrEqual(2);
    expect(new Set(data.map((d) => d.event_type))).toEqual(new Set(['sandbox.error']));
    const all = json<{data: unknown[]}>(
      (await cli(['webhooks', 'deliveries', hookId, '--json'])).stdout,
    ).data;
    expect(all.length).toBeGreaterThan(data.length);

    const none = await cli(['webhooks', 'deliveries', hookId, '--event-type', 'sandbox.expired']);
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(
      /No delivery matches --event-type sandbox\.expired \(\d+ deliveries in all\)/,
    );
    const bad = await cli(['webhooks', 'deliveries', hookId, '--event-type', 'sandbox.exploded']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/sandbox\.ready/);
  });
});

describe('svc emulator deliveries resend --failed', {timeout: 120_000}, () => {
  it('resends every failed delivery that matches and says how many', async () => {
    failing = true;
    const nothing = await cli(['emulator', 'deliveries', 'resend', '--failed', '--json']);
    expect(nothing.code, nothing.stderr).toBe(0);
    expect(json(nothing.stdout)).toEqual({resent: 0, deliveries: [], outcomes: [], more: false});

    const t = await cli(['trigger', 'sandbox.error', '--json']);
    const eventId = json<{event: {id: string}}>(t.stdout).event.id;
    const delivered = () => receiver.requests.filter((q) => q.headers['svc-event-id'] === eventId).length;
    await control().waitForDelivery({event_id: eventId, attempts: 1});
    expect(delivered()).toBe(1);
    // One advance walks every retry that falls due in it: the eight of the schedule, then the delivery fails.
    expect((await cli(['emulator', 'clock', 'advance', '1d'])).code).toBe(0);
    await control().waitForDelivery({event_id: eventId, attempts: 9});
    expect(delivered()).toBe(9);
    const failed = async () =>
      json<{data: {id: string; status: string}[]}>(
        (await cli(['webhooks', 'deliveries', hookId, '--status', 'failed', '--json'])).stdout,
      ).data;
    await control().waitForDelivery({event_id: eventId, status: 'failed'});
    expect(await failed()).toHaveLength(1);
    const [only] = await failed();

    const r = await cli([
      'emulator',
      'deliveries',
      'resend',
      '--failed',
      '--webhook',
      hookId,
      '--since',
      '5d',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toEqual({
      resent: 1,
      deliveries: [only?.id],
      outcomes: [expect.objectContaining({delivery_id: only?.id, attempt: 10, status: 'failed'})],
      more: false,
    });
    expect(delivered()).toBe(10);
    const text = await cli(['emulator', 'deliveries', 'resend', '--failed']);
    expect(text.stdout).toMatch(
      /^Resent 1 failed delivery on the emulator at http:\/\/127\.0\.0\.1:\d+, oldest first:\n {2}dlv_/,
    );
    const recent = await cli(['emulator', 'deliveries', 'resend', '--failed', '--since', '1h', '--json']);
    expect(json(recent.stdout)).toEqual({resent: 0, deliveries: [], outcomes: [], more: false});
    failing = false;
  });

  it('refuses a bad duration, a bad endpoint id, flags without --failed and an id beside --failed (exit 2)', async () => {
    const since = await cli(['emulator', 'deliveries', 'resend', '--failed', '--since', 'yesterday']);
    expect(since.code).toBe(2);
    expect(since.stderr).toMatch(/--since must be a duration/);
    const hook = await cli(['emulator', 'deliveries', 'resend', '--failed', '--webhook', 'nope']);
    expect(hook.code).toBe(2);
    expect((await cli(['emulator', 'deliveries', 'resend', '--since', '1h'])).code).toBe(2);
    const both = await cli(['emulator', 'deliveries', 'resend', `dlv_${'a'.repeat(24)}`, '--failed']);
    expect(both.code).toBe(2);
    const neither = await cli(['emulator', 'deliveries', 'resend']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/--failed/);
  });
});

describe('svc open', {timeout: 60_000}, () => {
  /** A directory with an `xdg-open` that records the address it was given, first on the PATH. */
  async function plantOpener(exitCode = 0): Promise<{path: string; opened: () => Promise<string>}> {
    const bin = await mkdtemp(join(root, 'bin-'));
    const log = join(bin, 'opened.txt');
    await writeFile(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" >> '${log}'\nexit ${exitCode}\n`);
    await chmod(join(bin, 'xdg-open'), 0o755);
    return {path: `${bin}:${process.env.PATH}`, opened: () => readFile(log, 'utf8').catch(() => '')};
  }

  /** svc open in a real terminal (script gives it a pseudo-terminal), with DISPLAY set. */
  // Spawned: the opener runs only at a terminal, which only a process of its own (under script) has.
  const inTerminal = (path: string, display: Record<string, string> = {DISPLAY: ':0'}) =>
    runProcess('script', ['-qec', `${process.execPath} ${BIN} open`, '/dev/null'], {
      env: {...env(), PATH: path, HOME: root, NO_COLOR: '1', ...display},
    });

  it('opens the account page of the emulator serving the address in use, through xdg-open', async () => {
    const opener = await plantOpener();
    const r = await inTerminal(opener.path);
    expect(r.code, r.stdout).toBe(0);
    const url = (await opener.opened()).trim();
    expect(url).toMatch(/^http:\/\/svc-\d+\.localhost:\d+\/account$/);
    expect(r.stdout).toContain(url);
    expect(r.stdout).toMatch(
      /Opened the account page of the emulator at http:\/\/127\.0\.0\.1:\d+ in your browser/,
    );
  });

  it('only prints the address with --print, outside a terminal, or where the opener fails', async () => {
    const opener = await plantOpener(3);
    const printed = await cli(['open', '--print'], {PATH: opener.path, DISPLAY: ':0'});
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/^http:\/\/svc-\d+\.localhost:\d+\/account\n$/);
    const piped = await cli(['open', '--json'], {PATH: opener.path, DISPLAY: ':0'});
    expect(json(piped.stdout)).toMatchObject({opened: false, reason: 'not at a terminal'});
    expect(await opener.opened()).toBe('');

    const failed = await inTerminal(opener.path);
    expect(failed.code).toBe(0);
    expect(failed.stdout).toMatch(/No browser opened \(xdg-open failed \(exit code 3\)\)/);
    expect((await opener.opened()).trim()).toMatch(/\/account$/);

    const headless = await plantOpener();
    const noDisplay = await inTerminal(headless.path, {});
    expect(noDisplay.stdout).toMatch(/No browser opened \(no graphical display/);
    expect(await headless.opened()).toBe('');
  });

  it('says no emulator serves an address that none serves', async () => {
    const r = await cli(['open', '--api-url', 'http://127.0.0.1:9', '--print']);
    // Exit 3 ("no emulator"), as `svc emulator status` exits.
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/no running emulator serves http:\/\/127\.0\.0\.1:9/);
  });
});
