// `svc webhooks test-receiver` as a user runs it (the built CLI, in-process), against real receivers on
// loopback: the example receiver and the three integrations pass every check; receivers broken the ways
// receivers are broken in the field each fail exactly the checks that name their mistake.
import {createServer, type IncomingMessage, type RequestListener, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {serve} from '@hono/node-server';
import express from 'express';
import {Hono} from 'hono';
import {afterAll, describe, expect, it} from 'vitest';
import {webhookRoutes} from '../../examples/receiver/server.js';
import {FUTURE_CHECK_IDS, RECEIVER_CHECK_IDS} from '../../src/services/webhooks/receiver-checks.js';
import {svcWebhooks} from '../../src/webhooks/express.js';
import {createFetchHandler} from '../../src/webhooks/fetch.js';
import {parseSignatureHeader, verifySignature} from '../../src/webhooks/index.js';
import {createNodeHandler} from '../../src/webhooks/node.js';
import {runCommand} from '../helpers/run-cli.js';

const SECRET = 'whsec_dGVzdC1yZWNlaXZlci1zZWNyZXQtMDEyMzQ1Njc4OWFiY2RlZmdo';
const env = {SVC_WEBHOOK_SECRET: SECRET};
const quiet = {secret: SECRET, onEvent: () => undefined, onError: () => undefined};
const closers: (() => Promise<void>)[] = [];

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

async function listen(handler: RequestListener): Promise<string> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function rawBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

interface Report {
  url: string;
  checks: {id: string; title: string; status: string; expected: string; got: string; fix: string}[];
  passed: number;
  failed: number;
  skipped: number;
  diagnosis?: {code: string; message: string; next: string};
}

async function grade(url: string, args: string[] = []) {
  const r = await runCommand(['webhooks', 'test-receiver', url, '--json', ...args], {env});
  expect(r.stdout + r.stderr).not.toContain(SECRET);
  const report = JSON.parse(r.stdout) as Report;
  const ids = (status: string) => report.checks.filter((c) => c.status === status).map((c) => c.id);
  return {code: r.code, report, failed: ids('fail'), skipped: ids('skip')};
}

describe('receivers that keep every duty pass every check', () => {
  it('examples/receiver', {timeout: 60_000}, async () => {
    const base = await listen(webhookRoutes({secret: SECRET, onEvent: () => undefined}));
    const {code, report, failed} = await grade(`${base}/webhooks`);
    expect(failed).toEqual([]);
    expect(report.checks.map((c) => c.id)).toEqual(RECEIVER_CHECK_IDS);
    expect(report.passed).toBe(RECEIVER_CHECK_IDS.length);
    expect(code).toBe(0);
  });

  it('@svc/webhooks/node', {timeout: 60_000}, async () => {
    const base = await listen(createNodeHandler(quiet));
    const {code, failed} = await grade(base);
    expect(failed).toEqual([]);
    expect(code).toBe(0);
  });

  it('@svc/webhooks/express', {timeout: 60_000}, async () => {
    const app = express();
    app.post('/webhooks', svcWebhooks(quiet));
    const base = await listen(app);
    const {code, failed} = await grade(`${base}/webhooks`);
    expect(failed).toEqual([]);
    expect(code).toBe(0);
  });

  it('@svc/webhooks/fetch behind Hono', {timeout: 60_000}, async () => {
    const app = new Hono();
    const receive = createFetchHandler(quiet);
    app.post('/webhooks', (c) => receive(c.req.raw));
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({fetch: app.fetch, port: 0, hostname: '127.0.0.1'}, () => resolve(s));
    });
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const {code, failed} = await grade(`http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`);
    expect(failed).toEqual([]);
    expect(code).toBe(0);
  });
});

describe('broken receivers fail exactly the checks that name their mistake', () => {
  it('one that parses the JSON and verifies what it serialises again', {timeout: 60_000}, async () => {
    const base = await listen(async (req, res) => {
      const raw = await rawBody(req);
      try {
        const reserialised = JSON.stringify(JSON.parse(raw.toString('utf8')));
        verifySignature({payload: reserialised, header: req.headers['svc-signature'], secret: SECRET});
        res.writeHead(200).end('ok');
      } catch {
        res.writeHead(400).end('bad signature');
      }
    });
    const {code, report, failed} = await grade(base);
    expect(failed).toEqual(['reserialized-whitespace']);
    expect(report.checks.find((c) => c.id === 'reserialized-whitespace')).toMatchObject({
      expected: expect.stringMatching(/not 2xx/),
      got: '200 ok',
      fix: expect.stringMatching(/raw body bytes as received, before any JSON parsing/),
    });
    expect(code).toBe(1);
  });

  it('one that refuses only stale timestamps, never future ones', {timeout: 60_000}, async () => {
    const base = await listen(async (req, res) => {
      const raw = await rawBody(req);
      try {
        const header = req.headers['svc-signature'];
        verifySignature({payload: raw, header, secret: SECRET, toleranceSeconds: Number.MAX_SAFE_INTEGER});
        const age = Math.floor(Date.now() / 1000) - parseSignatureHeader(header).timestamp;
        res.writeHead(age > 300 ? 400 : 200).end(age > 300 ? 'too old' : 'ok');
      } catch {
        res.writeHead(400).end('bad signature');
      }
    });
    const {code, report, failed} = await grade(base);
    expect(failed).toEqual(['future-301']);
    expect(report.checks.find((c) => c.id === 'future-301')?.fix).toMatch(/both directions/);
    expect(code).toBe(1);
  });

  it('one that handles every delivery, so a repeated event hits its unique key', {
    timeout: 60_000,
  }, async () => {
    const stored = new Set<string>();
    const base = await listen(async (req, res) => {
      const raw = await rawBody(req);
      try {
        verifySignature({payload: raw, header: req.headers['svc-signature'], secret: SECRET});
      } catch {
        res.writeHead(400).end('bad signature');
        return;
      }
      const id = JSON.parse(raw.toString('utf8')).id as string;
      if (stored.has(id)) {
        res.writeHead(500).end('duplicate key value violates unique constraint "events_pkey"');
        return;
      }
      stored.add(id);
      res.writeHead(200).end('stored');
    });
    const {code, report, failed} = await grade(base);
    expect(failed).toEqual(['duplicate']);
    expect(report.checks.find((c) => c.id === 'duplicate')?.got).toMatch(
      /^200 stored, then 500 duplicate key/,
    );
    expect(code).toBe(1);
  });

  it('one behind a redirect: nothing is accepted and no refusal is taken as proof', {
    timeout: 60_000,
  }, async () => {
    const base = await listen(async (req, res) => {
      await rawBody(req);
      res.writeHead(308, {location: 'https://receiver.example/webhooks/'}).end();
    });
    const {code, report, failed, skipped} = await grade(base);
    const accepting = [
      'valid',
      'stale-299',
      'future-299',
      'rotation',
      'duplicate',
      'out-of-order',
      'large-body',
      ...FUTURE_CHECK_IDS,
    ];
    expect(failed).toEqual(accepting);
    expect(skipped).toEqual(RECEIVER_CHECK_IDS.filter((id) => !accepting.includes(id)));
    expect(report.checks[0]?.got).toMatch(
      /^308 \(redirect \(308 to https:\/\/receiver\.example\/webhooks\/\) not followed\)/,
    );
    expect(report.checks[0]?.fix).toMatch(/does not follow redirects/);
    expect(code).toBe(1);
  });
});

describe('a receiver slower than the service waits', () => {
  it('is failed at 10 s, as the service would fail the attempt, and told to answer first', {
    timeout: 60_000,
  }, async () => {
    const held: IncomingMessage[] = [];
    const base = await listen((req) => {
      held.push(req); // never answered
    });
    const started = Date.now();
    const {code, report, failed} = await grade(base, ['--only', 'valid']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(10_000);
    expect(held).toHaveLength(1);
    expect(failed).toEqual(['valid']);
    expect(report.checks[0]?.got).toBe('no answer within 10000 ms');
    expect(report.checks[0]?.fix).toMatch(/Answer within 10 s.*retries after 30 s/);
    expect(code).toBe(1);
  });
});

describe('choosing checks and reading the report', () => {
  it('--only runs the valid delivery and the checks named; a person gets one line per check', async () => {
    const base = await listen(createNodeHandler(quiet));
    const r = await runCommand(['webhooks', 'test-receiver', base, '--only', 'future-301,duplicate'], {env});
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => /^[✓✗-] /.test(l));
    expect(lines.map((l) => l.split(/\s+/)[1])).toEqual(['valid', 'future-301', 'duplicate']);
    expect(r.stdout).toMatch(/3 passed, 0 failed/);
  });

  it('an unknown check id is a usage error that lists the known ones', async () => {
    const r = await runCommand(
      ['webhooks', 'test-receiver', 'http://127.0.0.1:9/', '--only', 'everything', '--json'],
      {
        env,
      },
    );
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error.message).toMatch(/unknown check "everything"/);
  });

  it('a receiver that is not there: the valid delivery fails and nothing else is sent', async () => {
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const port = (gone.address() as AddressInfo).port;
    await new Promise<void>((resolve) => gone.close(() => resolve()));
    const {code, report, failed, skipped} = await grade(`http://127.0.0.1:${port}/webhooks`);
    expect(report.checks[0]?.got).toMatch(/ECONNREFUSED/);
    expect(failed).toEqual(['valid']);
    expect(skipped).toHaveLength(RECEIVER_CHECK_IDS.length - 1);
    expect(report.diagnosis).toMatchObject({
      code: 'unreachable',
      message: expect.stringMatching(/ECONNREFUSED/),
    });
    expect(code).toBe(1);
  });

  it('a receiver that is down is said once to a person: the network error, the checks not sent, the next step', async () => {
    const port = await freePort();
    const r = await runCommand(['webhooks', 'test-receiver', `http://127.0.0.1:${port}/webhooks`], {env});
    expect(r.code).toBe(1);
    const others = RECEIVER_CHECK_IDS.length - 1;
    expect(r.stdout.split('\n').filter((l) => l.includes('not sent'))).toEqual([
      `- ${others} checks not sent: the receiver could not be reached`,
    ]);
    expect(r.stdout).toMatch(
      new RegExp(
        `The receiver at http://127\\.0\\.0\\.1:${port}/webhooks could not be reached: .*ECONNREFUSED`,
      ),
    );
    const next = /Start the receiver \(or correct the host, port and path of the URL\), then run this again/g;
    expect(r.stdout.match(next)).toHaveLength(1);
    expect(r.stdout).not.toMatch(/whose signature verifies/);
    expect(r.stdout).toMatch(new RegExp(`0 passed, 1 failed, ${others} skipped`));
  });
});

describe('a receiver verifying with another secret than the one svc was given', () => {
  const OTHER = 'whsec_YW5vdGhlci1zZWNyZXQtdGhhbi10aGUtb25lLXN2Yy13YXMtZ2l2ZW4=';

  it('is told the secrets may differ, not that its verification is wrong', {timeout: 60_000}, async () => {
    const base = await listen(createNodeHandler({...quiet, secret: OTHER}));
    const {code, report, failed, skipped} = await grade(base);
    expect(failed).toEqual(['valid']);
    expect(skipped).toEqual(RECEIVER_CHECK_IDS.filter((id) => id !== 'valid'));
    expect(report.diagnosis).toMatchObject({
      code: 'secret_mismatch',
      message: expect.stringMatching(
        /refused every correctly signed delivery .*may not share the signing secret/,
      ),
      next: expect.stringMatching(/--secret or SVC_WEBHOOK_SECRET/),
    });
    expect(report.checks[0]?.fix).toMatch(/same signing secret/);
    expect(code).toBe(1);

    const r = await runCommand(['webhooks', 'test-receiver', base], {env});
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/may not share the signing secret/);
    expect(r.stdout).not.toMatch(/Try every v1|Accept events in any order|Keep handled event ids/);
    expect(r.stdout.split('\n').filter((l) => /^✗ /.test(l))).toHaveLength(1);
  });

  it('one that refuses only some signed deliveries is still graded check by check', {
    timeout: 60_000,
  }, async () => {
    // Verifies with the right secret but refuses large bodies: the valid delivery passes, one check fails.
    const handler = createNodeHandler(quiet);
    const base = await listen((req, res) => {
      if (Number(req.headers['content-length']) > 100_000) res.writeHead(413).end('too large');
      else handler(req, res);
    });
    const {report, failed} = await grade(base);
    expect(failed).toEqual(['large-body']);
    expect(report.diagnosis).toBeUndefined();
  });
});

async function freePort(): Promise<number> {
  const gone = createServer();
  await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
  const port = (gone.address() as AddressInfo).port;
  await new Promise<void>((resolve) => gone.close(() => resolve()));
  return port;
}
