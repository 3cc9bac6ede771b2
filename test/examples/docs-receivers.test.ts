// Every receiver docs/webhooks.md shows runs as printed and passes svc's own grader: the Express receiver (with the
// library) and the Python one written from the signing rule alone (the standard library only), which also verifies
// real deliveries of the emulator. A receiver the docs show is marked `<!-- receiver: NAME -->` before its code.
import {type ChildProcess, spawn} from 'node:child_process';
import {mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {createServer} from 'node:net';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {describeNeeding, PYTHON, PYTHON_PATH} from '../helpers/requirements.js';
import {runCommand} from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC = join(ROOT, 'docs', 'webhooks.md');
// Inside the tree, so that `express` and `@svc/webhooks` resolve as they do for a project that installed them.
const WORK = join(ROOT, 'test-artifacts', 'docs-receivers');

/** The code block that follows `<!-- receiver: NAME -->` in the doc. */
function receiverCode(name: string): string {
  const doc = readFileSync(DOC, 'utf8');
  const marker = `<!-- receiver: ${name} -->`;
  const at = doc.indexOf(marker);
  if (at < 0) throw new Error(`docs/webhooks.md shows no receiver marked ${marker}`);
  const block = /```\w*\n([\s\S]*?)\n```/.exec(doc.slice(at + marker.length));
  if (!block?.[1]) throw new Error(`no code block after ${marker}`);
  return block[1];
}

interface Running {
  url: string;
  output: () => string;
  child: ChildProcess;
}

const running: ChildProcess[] = [];

/** Starts a receiver as its comment says to, and resolves with the address its first line prints. */
function startReceiver(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Running> {
  const child = spawn(command, args, {cwd: WORK, env: {PATH: process.env.PATH, ...env}});
  running.push(child);
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (d) => {
      err += d;
    });
    child.stdout?.on('data', (d) => {
      out += d;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({url, output: () => out, child});
    });
    child.once('exit', (code) =>
      reject(new Error(`${command} exited with ${code} before listening:\n${err}`)),
    );
  });
}

/** A port nobody listens on now: the Python receiver is given it, since its endpoint (and secret) come first. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address() as {port: number};
      server.close(() => resolve(port));
    });
  });
}

interface Graded {
  checks: {id: string; status: string; got: string}[];
  passed: number;
  failed: number;
  skipped: number;
}

async function grade(url: string, secret: string): Promise<Graded> {
  const r = await runCommand(['webhooks', 'test-receiver', url, '--json'], {
    env: {SVC_WEBHOOK_SECRET: secret},
  });
  const report = JSON.parse(r.stdout) as Graded;
  const failing = report.checks.filter((c) => c.status !== 'pass').map((c) => `${c.id}: ${c.got}`);
  expect(failing, `checks that did not pass for ${url}`).toEqual([]);
  expect(r.code).toBe(0);
  return report;
}

let emu: RunningEmulator;

beforeAll(async () => {
  mkdirSync(WORK, {recursive: true});
  emu = await startEmulator({port: 0, inMemory: true, allowLocalEndpoints: true});
});
afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  await emu?.stop();
  rmSync(WORK, {recursive: true, force: true});
});

describe('the Express receiver at the top of docs/webhooks.md', () => {
  it('passes every check of svc webhooks test-receiver, the 256 KiB body included', async () => {
    writeFileSync(join(WORK, 'receiver.mjs'), receiverCode('express'));
    const secret = (
      await emu.control.createWebhook({url: 'http://127.0.0.1:9/unused', events: ['sandbox.ready']})
    ).secret;
    const receiver = await startReceiver(process.execPath, ['receiver.mjs'], {
      SVC_WEBHOOK_SECRET: secret,
      PORT: '0',
    });
    const report = await grade(receiver.url, secret);
    expect(report.checks.map((c) => c.id)).toContain('large-body');
    expect(report.failed + report.skipped).toBe(0);
  });
});

describeNeeding([PYTHON], 'the Python receiver of the signing rule in docs/webhooks.md', () => {
  it('verifies real deliveries of every event type from the emulator and passes the grader', async () => {
    writeFileSync(join(WORK, 'receiver.py'), receiverCode('python'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/webhooks`;
    const endpoint = await emu.control.createWebhook({
      url,
      events: ['sandbox.ready', 'sandbox.stopped', 'sandbox.error', 'sandbox.expired'],
    });
    const receiver = await startReceiver(PYTHON_PATH, ['receiver.py'], {
      SVC_WEBHOOK_SECRET: endpoint.secret,
      PORT: String(port),
    });
    expect(receiver.url).toBe(url);

    const sent: {id: string; type: string; sandbox: string}[] = [];
    for (const type of ['sandbox.ready', 'sandbox.stopped', 'sandbox.error', 'sandbox.expired'] as const) {
      const moved = await emu.control.trigger({type});
      const event = moved.event as {id: string; data: {sandbox: {id: string}}};
      sent.push({id: event.id, type, sandbox: event.data.sandbox.id});
    }
    // Every delivery answered 2xx by the receiver: it verified the signature the emulator made.
    for (const event of sent) {
      const detail = await emu.control.waitForDelivery({
        event_id: event.id,
        status: 'succeeded',
        timeout: 20_000,
      });
      expect(detail.attempts.at(-1)?.status_code).toBe(200);
    }
    for (const event of sent) expect(receiver.output()).toContain(`${event.type} ${event.sandbox}`);

    await grade(url, endpoint.secret);
  });
});
