// The read commands as people and scripts use them, against a real emulator (in-memory, manual clock).
import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process';
import {createServer} from 'node:net';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {BIN, runCommand} from '../helpers/run-cli.js';

let emu: RunningEmulator;
let env: NodeJS.ProcessEnv;
let secret: string;
let keyId: string;
let hookId: string;

beforeAll(async () => {
  // A manual clock on a whole second: the CLI reads it from the Date header, which has no milliseconds, so a
  // start at .7 s would make a key's 30 days read as "in 30 days" whenever the first request came late.
  const clockStart = new Date(Math.floor(Date.now() / 1000) * 1000);
  emu = await startEmulator({
    port: 0,
    inMemory: true,
    clock: 'manual',
    clockStart,
    allowLocalEndpoints: true,
  });
  const key = await emu.control.createKey({name: 'laptop', expires: '30', created_by: 'ada@example.com'});
  secret = key.secret;
  keyId = key.id;
  hookId = (
    await emu.control.createWebhook({
      url: 'http://127.0.0.1:9/hook',
      events: ['sandbox.ready', 'sandbox.error'],
    })
  ).id;
  await emu.control.trigger({type: 'sandbox.ready'});
  env = {SVC_API_KEY: secret, SVC_API_URL: emu.apiUrl};
});
afterAll(() => emu?.stop());

const flat = (text: string) => text.replace(/\n\s*›\s*/g, ' ').replace(/[ \t]+/g, ' ');

describe('tables for people', {timeout: 90_000}, () => {
  it('svc keys list shows name, prefix, status, creator and relative times, and never the secret', async () => {
    const r = await runCommand(['keys', 'list'], {env});
    expect(r.code).toBe(0);
    const [header, ...rows] = r.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^NAME +PREFIX +STATUS +CREATED BY +CREATED +LAST USED +EXPIRES +ID$/);
    const row = rows.find((line) => line.includes(keyId));
    expect(row).toMatch(new RegExp(`^laptop +${secret.slice(0, 8)}… +active +ada@example\\.com +just now`));
    expect(row).toContain('in 30 days');
    expect(r.stdout + r.stderr).not.toContain(secret);
  });

  it('svc webhooks deliveries shows status, event type and attempts', async () => {
    const r = await runCommand(['webhooks', 'deliveries', hookId], {env});
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^STATUS +EVENT +ATTEMPTS +LAST CODE +CREATED +NEXT ATTEMPT +ID +EVENT ID/);
    expect(r.stdout).toMatch(/(pending|succeeded|failed) +sandbox\.ready +\d+ /);
  });

  it('colours statuses only when colour is wanted, and NO_COLOR always wins', async () => {
    const forced = await runCommand(['keys', 'list'], {env: {...env, NO_COLOR: '', FORCE_COLOR: '1'}});
    expect(forced.stdout).toContain('\u001b[32mactive');
    const plain = await runCommand(['keys', 'list'], {env: {...env, NO_COLOR: '1', FORCE_COLOR: '1'}});
    expect(plain.stdout).not.toContain('\u001b[');
    const json = await runCommand(['keys', 'list', '--json'], {
      env: {...env, NO_COLOR: '', FORCE_COLOR: '1'},
    });
    expect(json.stdout).not.toContain('\u001b[');
    expect(JSON.parse(json.stdout).data[0].id).toBe(keyId);
  });
});

describe('failures a person can act on', {timeout: 90_000}, () => {
  it('a rejected key exits 4 and says which key to replace', async () => {
    const revoked = await emu.control.createKey({name: 'soon-revoked'});
    await emu.control.revokeKey(revoked.id);
    const r = await runCommand(['webhooks', 'list'], {env: {...env, SVC_API_KEY: revoked.secret}});
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(flat(r.stderr)).toContain(
      'the API key in SVC_API_KEY was rejected (revoked or expired?). Set SVC_API_KEY to a new key',
    );
    expect(r.stderr).not.toContain(revoked.secret);
  });

  it('an address where nothing listens names the URL and suggests starting the emulator', async () => {
    const port = await closedPort();
    const r = await runCommand(['org'], {env: {...env, SVC_API_URL: `http://127.0.0.1:${port}`}});
    expect(r.code).toBe(1);
    expect(flat(r.stderr)).toContain(`could not reach http://127.0.0.1:${port}/v1/org: connection refused`);
    expect(flat(r.stderr)).toMatch(
      new RegExp(
        `Is the emulator running\\? \`(npx )?svc emulator status\`; start it again with \`(npx )?svc emulator start --port ${port}\``,
      ),
    );
    expect(r.stderr).not.toContain(secret);
  });

  it('usage mistakes exit 2', async () => {
    const badId = await runCommand(['webhooks', 'deliveries', 'we_nope', '--json'], {env});
    expect(badId.code).toBe(2);
    expect(JSON.parse(badId.stdout).error.code).toBe('usage');
    const badStatus = await runCommand(['webhooks', 'deliveries', hookId, '--status', 'lost'], {env});
    expect(badStatus.code).toBe(2);
  });
});

describe('svc webhooks deliveries --watch', {timeout: 90_000}, () => {
  it('prints new deliveries as lines (never clearing the screen) and stops cleanly on Ctrl-C', async () => {
    // Spawned: --watch runs until Ctrl-C (SIGINT), which is under test.
    const child = spawn(process.execPath, [BIN, 'webhooks', 'deliveries', hookId, '--watch'], {
      env: {PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env},
    });
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const count = () => (stdout.match(/sandbox\.error/g) ?? []).length;
    await untilOutput(child, () => stdout.includes('Ctrl-C to stop'));
    expect(count()).toBe(0);
    await emu.control.trigger({type: 'sandbox.error'});
    await untilOutput(child, () => count() > 0);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stdout).toMatch(/sandbox\.ready/);
    expect(stdout).toMatch(/new\s+\S+\s+sandbox\.error/);
    expect(stdout).not.toContain('\u001B[2J');
  });

  it('with --json streams one JSON line per new or changed delivery', async () => {
    // Spawned: --watch runs until Ctrl-C (SIGINT).
    const child = spawn(process.execPath, [BIN, 'webhooks', 'deliveries', hookId, '--watch', '--json'], {
      env: {PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env},
    });
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const lines = () =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map(
          (l) =>
            JSON.parse(l) as {change: string; delivery: {id: string; event_id: string; event_type: string}},
        );
    // What is there at the start comes first, one line each, as "new".
    await untilOutput(child, () => lines().length > 0);
    expect(lines().every((l) => l.change === 'new')).toBe(true);
    const move = await emu.control.trigger({type: 'sandbox.error'});
    // The start may still be arriving in pieces: look for the line of this event's delivery, however late.
    const ofEvent = () => lines().find((l) => l.delivery.event_id === move.event?.id);
    await untilOutput(child, () => ofEvent() !== undefined);
    expect(ofEvent()).toMatchObject({change: 'new', delivery: {event_type: 'sandbox.error'}});
    expect(move.deliveries).toBeGreaterThan(0);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});

/** Resolves once what the child printed meets the condition: looked at on each chunk it prints, not polled. */
function untilOutput(child: ChildProcessWithoutNullStreams, condition: () => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!condition()) return;
      child.stdout.off('data', check);
      child.off('close', closed);
      resolve();
    };
    const closed = (code: number | null) => {
      child.stdout.off('data', check);
      reject(new Error(`the command exited (${code}) before printing what was awaited`));
    };
    child.stdout.on('data', check);
    child.on('close', closed);
    check();
  });
}

/** A port that was free a moment ago: nothing listens there. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address() as {port: number};
      server.close(() => resolve(port));
    });
  });
}
