// `svc webhooks diagnose` against seeded faults: a real emulator in this process (manual clock, a short attempt
// timeout) delivering to real receivers on loopback, each broken in one way a production receiver breaks. The
// deliveries are made by the emulator and retried by moving its clock; the diagnosis names each receiver's cause.
import {mkdtemp, readFile, rm, stat} from 'node:fs/promises';
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {createNodeHandler} from '../../src/webhooks/node.js';
import {verifySignature, WebhookVerificationError} from '../../src/webhooks/index.js';
import {itNeeding, PYTHON, PYTHON_PATH} from '../helpers/requirements.js';
import {runCommand, runProcess} from '../helpers/run-cli.js';

/** The attempt timeout of this file's emulator: the slow receiver answers well after it. */
const TIMEOUT_MS = 1_500;

const FAULTS = [
  'wrong-secret',
  'parsed-body',
  'clock-skew',
  'slow',
  'redirect',
  'body-limit',
  'one-type',
  'down',
  'crash',
  'https-redirect',
  'healthy',
] as const;
type Fault = (typeof FAULTS)[number];

/** The cause each fault's diagnosis must put first (the healthy receiver has none). */
const EXPECTED: Record<Fault, string | undefined> = {
  'wrong-secret': 'signature-rejected',
  'parsed-body': 'signature-rejected',
  'clock-skew': 'clock-skew',
  slow: 'slow-answer',
  redirect: 'redirect',
  'body-limit': 'body-limit',
  'one-type': 'unknown-event-type',
  down: 'receiver-down',
  crash: 'server-error',
  'https-redirect': 'redirect',
  healthy: undefined,
};
/** The seeded faults: every receiver but the healthy one, which is the reference with no finding. */
const SEEDED = FAULTS.filter((f) => EXPECTED[f] !== undefined);

let em: RunningEmulator;
let dataDir: string;
let server: Server;
let env: NodeJS.ProcessEnv;
/** The reference receiver's org. */
let referenceEnv: NodeJS.ProcessEnv;
const envOf = (fault: Fault) => (fault === 'healthy' ? referenceEnv : env);
const endpointOf = {} as Record<Fault, {id: string; url: string}>;
const secretOf = {} as Record<Fault, string>;

function rawBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Verifies as a receiver would, on its own clock; the refusal's reason and words in the answer. */
function verified(
  res: ServerResponse,
  secret: string,
  payload: string,
  header: unknown,
  now?: number,
): boolean {
  try {
    verifySignature({secret, payload, header: header as string, now});
    return true;
  } catch (err) {
    if (!(err instanceof WebhookVerificationError)) throw err;
    res.writeHead(400, {'content-type': 'application/json'});
    res.end(JSON.stringify({error: {code: err.reason, message: err.message}}));
    return false;
  }
}

/** The receivers, one path each, each with its own fault. */
async function receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const fault = (req.url ?? '').slice(1) as Fault;
  if (fault === 'wrong-secret' || fault === 'body-limit' || fault === 'healthy') {
    // The receiver library, given another endpoint's secret, or a body limit under the size of any event.
    const handler = createNodeHandler({
      secret: fault === 'wrong-secret' ? secretOf.healthy : secretOf[fault],
      maxBodyBytes: fault === 'body-limit' ? 100 : undefined,
      onEvent: () => undefined,
      onError: () => undefined,
    });
    await handler(req, res);
    return;
  }
  const body = (await rawBody(req)).toString('utf8');
  const header = req.headers['svc-signature'];
  if (fault === 'parsed-body') {
    // Parsed, then serialised again the way Python's json.dumps writes it, before the HMAC is taken.
    const again = JSON.stringify(JSON.parse(body), null, 1).replace(/\n\s*/g, ' ');
    try {
      verifySignature({secret: secretOf[fault], payload: again, header: header as string});
      res.writeHead(200).end();
    } catch {
      res.writeHead(401, {'content-type': 'application/json'}).end('{"detail":"Invalid signature"}');
    }
    return;
  }
  if (fault === 'clock-skew') {
    // Its clock runs 10 minutes ahead.
    if (verified(res, secretOf[fault], body, header, Math.floor(Date.now() / 1000) + 600))
      res.writeHead(200).end();
    return;
  }
  if (fault === 'redirect') {
    res.writeHead(308, {location: `${endpointOf.redirect.url}/`}).end();
    return;
  }
  if (fault === 'https-redirect') {
    // Behind a proxy that sends plain http to https.
    res.writeHead(301, {location: endpointOf[fault].url.replace(/^http:/, 'https:')}).end();
    return;
  }
  if (fault === 'crash') {
    // An exception in the handler, on every delivery, shown as the framework's error page.
    res.writeHead(500, {'content-type': 'text/plain'});
    res.end(
      'Traceback (most recent call last):\n  File "app.py", line 12, in webhook\nKeyError: \'customer\'',
    );
    return;
  }
  if (fault === 'slow') {
    // The work is done before the answer, and takes longer than the budget.
    setTimeout(() => res.writeHead(200).end(), TIMEOUT_MS * 4).unref();
    return;
  }
  if (fault === 'one-type') {
    if (!verified(res, secretOf[fault], body, header)) return;
    const type = JSON.parse(body).type;
    // A switch with no default branch for the types it does not know.
    if (type === 'sandbox.ready') res.writeHead(204).end();
    else res.writeHead(400, {'content-type': 'text/plain'}).end('Bad Request');
  }
}

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const {port} = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-diagnose-'));
  em = await startEmulator({
    port: 0,
    dataDir,
    clock: 'manual',
    allowLocalEndpoints: true,
    delivery: {timeoutMs: TIMEOUT_MS},
  });
  server = createServer((req, res) => {
    receive(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const down = await closedPort();
  // An org has at most 10 endpoints: the ten seeded faults fill one, the reference receiver has an org of its own.
  const referenceOrg = (await em.control.createOrg({name: 'reference receiver'})).id;
  const orgOf = (fault: Fault) => (fault === 'healthy' ? {org_id: referenceOrg} : {});
  for (const fault of FAULTS) {
    const url = fault === 'down' ? `http://127.0.0.1:${down}/hook` : `${base}/${fault}`;
    const events = fault === 'one-type' ? ['sandbox.ready', 'sandbox.stopped'] : ['sandbox.ready'];
    const created = await em.control.createWebhook({url, events, ...orgOf(fault)});
    endpointOf[fault] = {id: created.id, url};
    secretOf[fault] = created.secret;
  }
  const keyEnv = async (org: {org_id?: string}) => ({
    SVC_API_KEY: (await em.control.createKey({name: 'diagnose', ...org})).secret,
    SVC_API_URL: em.apiUrl,
    SVC_EMULATOR_DATA_DIR: dataDir,
  });
  env = await keyEnv({});
  referenceEnv = await keyEnv({org_id: referenceOrg});
  // Two events of each type in each org, their first attempts, then two retries: the clock moved past each wait.
  for (const org of [{}, {org_id: referenceOrg}]) {
    for (const type of ['sandbox.ready', 'sandbox.stopped', 'sandbox.ready'] as const)
      await em.control.trigger({type, ...org});
  }
  await em.control.advanceClock('1s', {settle: true});
  await em.control.advanceClock('30s', {settle: true});
  await em.control.advanceClock('2m', {settle: true});
}, 120_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await em?.stop();
  if (dataDir) await rm(dataDir, {recursive: true, force: true});
});

interface Report {
  endpoints: {
    endpoint_id: string;
    evidence: string;
    issues: {cause: string; check: string; evidence: string; reproduce: string}[];
  }[];
  issues: number;
}

describe('svc webhooks diagnose against seeded faults', {timeout: 60_000}, () => {
  it.each(FAULTS)('names the cause of a receiver with this fault first: %s', async (fault) => {
    const r = await runCommand(['webhooks', 'diagnose', endpointOf[fault].id, '--json'], {env: envOf(fault)});
    const report = JSON.parse(r.stdout) as Report;
    const [endpoint] = report.endpoints;
    expect(endpoint?.evidence).toBe('attempts');
    expect(endpoint?.issues[0]?.cause, JSON.stringify(endpoint?.issues, null, 2)).toBe(EXPECTED[fault]);
    expect(r.code, r.stderr).toBe(EXPECTED[fault] ? 1 : 0);
    if (fault === 'redirect') expect(endpoint?.issues[0]?.evidence).toContain('trailing slash');
    if (fault === 'https-redirect') expect(endpoint?.issues[0]?.evidence).toContain('http→https');
    if (fault === 'healthy') expect(endpoint?.issues).toEqual([]);
  });

  it('grades the seeded set: the right top cause for at least 9 of 10 faults, none on the reference', async () => {
    const r = await runCommand(['webhooks', 'diagnose', '--json'], {env});
    const report = JSON.parse(r.stdout) as Report;
    const top = (fault: Fault) =>
      report.endpoints.find((e) => e.endpoint_id === endpointOf[fault].id)?.issues[0]?.cause;
    const missed = SEEDED.filter((f) => top(f) !== EXPECTED[f]).map((f) => `${f}: ${top(f)}`);
    expect(SEEDED).toHaveLength(10);
    expect(missed.length, `missed: ${missed.join(', ')}`).toBeLessThanOrEqual(1);
    const reference = await runCommand(['webhooks', 'diagnose', '--json'], {env: referenceEnv});
    expect((JSON.parse(reference.stdout) as Report).endpoints[0]?.issues).toEqual([]);
  });

  it('says a healthy endpoint is healthy in one line, and exits 0', async () => {
    const r = await runCommand(['webhooks', 'diagnose', endpointOf.healthy.id], {env: referenceEnv});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`✓ ${endpointOf.healthy.id} is healthy: none of its 2 recent attempts failed.\n`);
  });

  it('prints each issue with its evidence, fix and reproducing check', async () => {
    const r = await runCommand(['webhooks', 'diagnose', endpointOf['body-limit'].id], {env});
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('The receiver’s body size limit is smaller than the events (413)');
    expect(r.stdout).toContain(
      `svc webhooks test-receiver ${endpointOf['body-limit'].url} --only large-body`,
    );
    expect(r.stdout).toContain('SVC_WEBHOOK_SECRET');
  });

  it('diagnoses every endpoint of the org without an id, and writes JUnit owner-only', async () => {
    const file = join(dataDir, 'diagnose.xml');
    const r = await runCommand(['webhooks', 'diagnose', '--json', '--junit', file], {env});
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.endpoints.map((e) => e.endpoint_id).sort()).toEqual(
      SEEDED.map((f) => endpointOf[f].id).sort(),
    );
    expect(report.issues).toBeGreaterThanOrEqual(SEEDED.length);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const xml = await readFile(file, 'utf8');
    const healthy = join(dataDir, 'healthy.xml');
    expect((await runCommand(['webhooks', 'diagnose', '--junit', healthy], {env: referenceEnv})).code).toBe(
      0,
    );
    expect(await readFile(healthy, 'utf8')).toContain(
      `<testcase classname="svc.webhooks.diagnose.${endpointOf.healthy.id}" name="healthy"/>`,
    );
    expect(xml).toContain(
      `<testcase classname="svc.webhooks.diagnose.${endpointOf.down.id}" name="receiver-down">`,
    );
    // The same attempts give the same bytes.
    const again = join(dataDir, 'again.xml');
    await runCommand(['webhooks', 'diagnose', '--junit', again], {env});
    expect(await readFile(again, 'utf8')).toBe(xml);
  });

  itNeeding([PYTHON], 'writes JUnit XML that parses, one failure per issue', async () => {
    const file = join(dataDir, 'parsed.xml');
    await runCommand(['webhooks', 'diagnose', '--junit', file], {env});
    const script = [
      'import sys, xml.etree.ElementTree as ET',
      'root = ET.parse(sys.argv[1]).getroot()',
      'assert root.tag == "testsuites"',
      'cases = root.findall("testsuite/testcase")',
      'failures = root.findall("testsuite/testcase/failure")',
      'assert int(root.get("tests")) == len(cases) and int(root.get("failures")) == len(failures)',
      'print(len(cases), len(failures))',
    ].join('\n');
    const out = await runProcess(PYTHON_PATH, ['-c', script, file]);
    expect(out.code, out.stderr).toBe(0);
  });

  // The slow receiver is left out: this file's emulator gives up after 1.5 s, test-receiver after the service's
  // 10 s (its own test, in webhooks-test-receiver.test.ts, waits those 10 s out).
  it.each(SEEDED.filter((f) => f !== 'slow'))(
    'prints a reproduce command that fails the named check against the receiver itself: %s',
    async (fault) => {
      const r = await runCommand(['webhooks', 'diagnose', endpointOf[fault].id, '--json'], {env});
      const issue = (JSON.parse(r.stdout) as Report).endpoints[0]?.issues[0];
      if (!issue) throw new Error(r.stdout);
      const argv = issue.reproduce.split(' ');
      expect(argv.slice(0, 3)).toEqual(['svc', 'webhooks', 'test-receiver']);
      const run = await runCommand([...argv.slice(1), '--json'], {
        env: {...env, SVC_WEBHOOK_SECRET: secretOf[fault]},
      });
      expect(run.code, run.stderr).toBe(1);
      const checks = (JSON.parse(run.stdout) as {checks: {id: string; status: string}[]}).checks;
      expect(checks.find((c) => c.id === issue.check)?.status, run.stdout).toBe('fail');
    },
  );

  it('refuses a malformed endpoint id before reading anything, and an unknown one by name', async () => {
    const bad = await runCommand(['webhooks', 'diagnose', 'nope'], {env});
    expect(bad.code).toBe(2);
    const unknown = await runCommand(['webhooks', 'diagnose', 'we_000000000000000000000000'], {env});
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no webhook endpoint we_000000000000000000000000 in this org');
  });
});
