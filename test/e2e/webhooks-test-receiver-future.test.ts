// `svc webhooks test-receiver --future` and `--junit` as a user runs them (the built CLI, in-process) against real
// receivers on loopback: well-behaved ones in Node and Python pass every check, and receivers seeded with the bugs
// that break on a later service's deliveries (a closed enum, additionalProperties: false, a switch whose default
// refuses, a throw on an unknown field, a strict signature parser, required optional fields, a header allowlist)
// each fail exactly the future checks that name their mistake. The JUnit file is valid XML and the same bytes on
// every run against the same receiver.
import {type ChildProcess, spawn} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs';
import {createServer, type IncomingMessage, type RequestListener, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {FUTURE_EXAMPLES, OPEN_VALUE_FIELDS} from '../../src/schemas/extension-rules.js';
import {EVENT_TYPES, SANDBOX_STATUSES} from '../../src/definitions.js';
import {FUTURE_CHECK_IDS, RECEIVER_CHECK_IDS} from '../../src/services/webhooks/receiver-checks.js';
import {verifySignature} from '../../src/webhooks/index.js';
import {describeNeeding, PYTHON, PYTHON_PATH} from '../helpers/requirements.js';
import {runCommand, runProcess} from '../helpers/run-cli.js';

const SECRET = 'whsec_ZnV0dXJlLWNoZWNrcy1zZWNyZXQtMDEyMzQ1Njc4OWFiY2RlZmdoaWo=';
const env = {SVC_WEBHOOK_SECRET: SECRET};
const closers: (() => Promise<void>)[] = [];
const children: ChildProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), 'svc-future-'));

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(closers.map((close) => close()));
  rmSync(dir, {recursive: true, force: true});
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
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
}

function rawBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

type Sandbox = {status: string; desired_state: string; last_error?: string; expires_at?: string};
type Event = {id: string; type: string; data: {sandbox: Sandbox}};

/**
 * A Node receiver as people write them: verify the raw body with @svc/webhooks, parse, then `handle` (which may
 * throw: 500) decides, unless it answers itself. What each seeded bug changes is `handle` or a check before it.
 */
function nodeReceiver(
  handle: (event: Event, req: IncomingMessage) => {status: number; body: string} | undefined,
): RequestListener {
  const seen = new Set<string>();
  return async (req, res) => {
    const raw = await rawBody(req);
    try {
      verifySignature({payload: raw, header: req.headers['svc-signature'], secret: SECRET});
    } catch (err) {
      res.writeHead(400).end(`bad signature: ${(err as {reason?: string}).reason}`);
      return;
    }
    const event = JSON.parse(raw.toString('utf8')) as Event;
    try {
      const answer = handle(event, req);
      if (answer) {
        res.writeHead(answer.status).end(answer.body);
        return;
      }
    } catch (err) {
      res.writeHead(500).end(`handler failed: ${(err as Error).message}`);
      return;
    }
    seen.add(event.id);
    res.writeHead(200).end('{"received":true}');
  };
}

/** What a well-behaved handler does: the types it knows, a default that acknowledges the rest. */
function wellBehaved(event: Event): undefined {
  switch (event.type) {
    case 'sandbox.ready':
    case 'sandbox.stopped':
    case 'sandbox.error':
    case 'sandbox.expired':
      return undefined;
    default:
      return undefined; // a type added later: acknowledged, nothing to do
  }
}

interface Verdict {
  id: string;
  group: string;
  status: string;
  expected: string;
  got: string;
  fix: string;
}

async function grade(url: string, args: string[] = ['--future']) {
  const r = await runCommand(['webhooks', 'test-receiver', url, '--json', ...args], {env});
  expect(r.stdout + r.stderr).not.toContain(SECRET);
  const report = JSON.parse(r.stdout) as {checks: Verdict[]; failed: number; skipped: number};
  const failed = report.checks.filter((c) => c.status === 'fail').map((c) => c.id);
  const byId = (id: string) => report.checks.find((c) => c.id === id) as Verdict;
  return {code: r.code, report, failed, byId};
}

describe('the future checks, generated from the schemas and the extension rules', () => {
  it('cover every rule: each object gets a field, each open value a new one, each optional field goes', () => {
    expect(FUTURE_CHECK_IDS).toEqual([
      'later-field-event',
      'later-field-data',
      'later-field-sandbox',
      'later-event-type',
      'later-value-status',
      'later-value-desired-state',
      'later-absent-expires-at',
      'later-absent-last-error',
      'later-signature-v2',
      'later-headers',
    ]);
    expect(RECEIVER_CHECK_IDS.slice(-FUTURE_CHECK_IDS.length)).toEqual(FUTURE_CHECK_IDS);
    // The generated values are new: none is a type or status the service sends today.
    expect(EVENT_TYPES as readonly string[]).not.toContain(FUTURE_EXAMPLES.eventType);
    expect(SANDBOX_STATUSES as readonly string[]).not.toContain(FUTURE_EXAMPLES.value);
    expect(OPEN_VALUE_FIELDS.map((f) => `later-value-${f.split('.').at(-1)?.replace('_', '-')}`)).toEqual(
      FUTURE_CHECK_IDS.filter((id) => id.startsWith('later-value-')),
    );
  });
});

describe('well-behaved receivers pass every check, the future group included', () => {
  it('a Node receiver with @svc/webhooks and a switch whose default acknowledges', {
    timeout: 90_000,
  }, async () => {
    const url = await listen(nodeReceiver(wellBehaved));
    const {code, report, failed} = await grade(url, []);
    expect(failed).toEqual([]);
    expect(report.checks.map((c) => c.id)).toEqual(RECEIVER_CHECK_IDS);
    expect(report.checks.filter((c) => c.group === 'future').map((c) => c.id)).toEqual(FUTURE_CHECK_IDS);
    expect(code).toBe(0);
  });

  it('--future sends the valid delivery and the future group only', {timeout: 60_000}, async () => {
    const url = await listen(nodeReceiver(wellBehaved));
    const {code, report} = await grade(url);
    expect(report.checks.map((c) => c.id)).toEqual(['valid', ...FUTURE_CHECK_IDS]);
    expect(code).toBe(0);
  });
});

describe('receivers seeded with the bugs a later service exposes fail exactly the checks that name them', () => {
  it('a closed enum of sandbox statuses and desired states', {timeout: 60_000}, async () => {
    const url = await listen(
      nodeReceiver((event) => {
        const {status, desired_state} = event.data.sandbox;
        if (!['running', 'stopped', 'error', 'standby', 'deleting'].includes(status))
          return {status: 422, body: `unknown status ${status}`};
        if (!['running', 'stopped', 'standby', 'deleted'].includes(desired_state))
          return {status: 422, body: `unknown desired_state ${desired_state}`};
        return undefined;
      }),
    );
    const {code, failed, byId} = await grade(url);
    expect(failed).toEqual(['later-value-status', 'later-value-desired-state']);
    // The failure names the generated change and the receiver's answer.
    expect(byId('later-value-status')).toMatchObject({
      expected: expect.stringContaining('data.sandbox.status = "resizing" (the sample has "running")'),
      got: '422 unknown status resizing',
      fix: expect.stringMatching(/closed enum/),
    });
    expect(code).toBe(1);
  });

  it('additionalProperties: false at every level', {timeout: 60_000}, async () => {
    const allowed: [string, (e: Record<string, unknown>) => object, string[]][] = [
      ['event', (e) => e, ['id', 'type', 'created_at', 'org_id', 'data']],
      ['data', (e) => e.data as object, ['sandbox']],
      [
        'data.sandbox',
        (e) => (e.data as {sandbox: object}).sandbox,
        ['id', 'name', 'status', 'desired_state', 'last_error', 'expires_at'],
      ],
    ];
    const url = await listen(
      nodeReceiver((event) => {
        for (const [where, at, names] of allowed) {
          const extra = Object.keys(at(event as unknown as Record<string, unknown>)).filter(
            (k) => !names.includes(k),
          );
          if (extra.length > 0)
            return {status: 400, body: `${where}: additional property ${extra[0]} is not allowed`};
        }
        return undefined;
      }),
    );
    const {code, failed, byId} = await grade(url);
    expect(failed).toEqual(['later-field-event', 'later-field-data', 'later-field-sandbox']);
    expect(byId('later-field-sandbox').got).toBe(
      '400 data.sandbox: additional property added_later is not allowed',
    );
    expect(byId('later-field-sandbox').expected).toContain('added data.sandbox.added_later = {');
    expect(code).toBe(1);
  });

  it('a switch whose default answers 400 to an unknown event type', {timeout: 60_000}, async () => {
    const url = await listen(
      nodeReceiver((event) => {
        switch (event.type) {
          case 'sandbox.ready':
          case 'sandbox.stopped':
          case 'sandbox.error':
          case 'sandbox.expired':
            return undefined;
          default:
            return {status: 400, body: `unhandled event type ${event.type}`};
        }
      }),
    );
    const {code, failed, byId} = await grade(url);
    expect(failed).toEqual(['later-event-type']);
    expect(byId('later-event-type')).toMatchObject({
      got: '400 unhandled event type sandbox.resized',
      fix: expect.stringMatching(/default that acknowledges/),
    });
    expect(code).toBe(1);
  });

  it('a mapper that throws on a field it does not know', {timeout: 60_000}, async () => {
    const known = new Set(['id', 'name', 'status', 'desired_state', 'last_error', 'expires_at']);
    const url = await listen(
      nodeReceiver((event) => {
        for (const key of Object.keys(event.data.sandbox)) {
          if (!known.has(key)) throw new Error(`Unrecognized field "${key}" on Sandbox`);
        }
        return undefined;
      }),
    );
    const {code, failed, byId} = await grade(url);
    expect(failed).toEqual(['later-field-sandbox']);
    expect(byId('later-field-sandbox').got).toBe(
      '500 handler failed: Unrecognized field "added_later" on Sandbox',
    );
    expect(code).toBe(1);
  });

  it('a signature parser that refuses entries other than t and v1', {timeout: 60_000}, async () => {
    const url = await listen(
      nodeReceiver((_event, req) => {
        const names = String(req.headers['svc-signature'])
          .split(',')
          .map((part) => part.trim().split('=')[0]);
        const other = names.find((n) => n !== 't' && n !== 'v1');
        return other ? {status: 401, body: `unsupported signature scheme ${other}`} : undefined;
      }),
    );
    const {code, failed, byId} = await grade(url);
    expect(failed).toEqual(['later-signature-v2']);
    expect(byId('later-signature-v2').got).toBe('401 unsupported signature scheme v2');
    expect(code).toBe(1);
  });

  it('a handler that reads optional fields as if always there', {timeout: 60_000}, async () => {
    const url = await listen(
      nodeReceiver((event) => {
        const {sandbox} = event.data;
        const summary =
          event.type === 'sandbox.error'
            ? sandbox.last_error!.trim()
            : event.type === 'sandbox.ready'
              ? sandbox.expires_at!.slice(0, 10)
              : '';
        return summary === undefined ? {status: 500, body: 'unreachable'} : undefined;
      }),
    );
    const {code, failed, byId} = await grade(url);
    expect(failed).toEqual(['later-absent-expires-at', 'later-absent-last-error']);
    expect(byId('later-absent-expires-at').got).toMatch(/^500 handler failed: .*undefined/);
    expect(code).toBe(1);
  });

  it('an allowlist of Svc-* headers', {timeout: 60_000}, async () => {
    const known = [
      'svc-signature',
      'svc-event-id',
      'svc-event-type',
      'svc-delivery-id',
      'svc-delivery-attempt',
    ];
    const url = await listen(
      nodeReceiver((_event, req) => {
        const unknown = Object.keys(req.headers).find((h) => h.startsWith('svc-') && !known.includes(h));
        return unknown ? {status: 400, body: `unexpected header ${unknown}`} : undefined;
      }),
    );
    const {code, failed, byId} = await grade(url);
    expect(failed).toEqual(['later-headers']);
    expect(byId('later-headers').got).toBe('400 unexpected header svc-api-version');
    expect(code).toBe(1);
  });
});

/** A Python receiver of the signing rule (the standard library only); `check` runs on the parsed event. */
function pythonReceiver(check: string): string {
  return `
import hashlib, hmac, json, os, time
from http.server import BaseHTTPRequestHandler, HTTPServer

SECRET = os.environ["SVC_WEBHOOK_SECRET"].encode("utf-8")

def verify(header, body, now):
    entries = [part.strip().split("=", 1) for part in header.split(",") if "=" in part]
    ts = [v for n, v in entries if n == "t"]
    if len(ts) != 1 or not ts[0].isdigit() or abs(now - int(ts[0])) > 300:
        return False
    expected = hmac.new(SECRET, ts[0].encode() + b"." + body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, v) for n, v in entries if n == "v1")

def check(event):
${check}

class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if not verify(self.headers.get("Svc-Signature", ""), body, int(time.time())):
            self.send_response(400); self.end_headers(); self.wfile.write(b"bad signature"); return
        problem = check(json.loads(body))
        self.send_response(422 if problem else 200); self.end_headers()
        self.wfile.write((problem or '{"received":true}').encode())

    def log_message(self, *args):
        pass

server = HTTPServer(("127.0.0.1", 0), Receiver)
print(f"listening on http://127.0.0.1:{server.server_port}/webhooks", flush=True)
server.serve_forever()
`;
}

function startPython(name: string, source: string): Promise<string> {
  const file = join(dir, `${name}.py`);
  writeFileSync(file, source);
  const child = spawn(PYTHON_PATH, [file], {env: {PATH: process.env.PATH, ...env}});
  children.push(child);
  let out = '';
  let err = '';
  child.stderr?.on('data', (d) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      out += d;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`python exited with ${code}:\n${err}`)));
  });
}

describeNeeding([PYTHON], 'Python receivers (the standard library only)', () => {
  it('the reference one passes every check', {timeout: 90_000}, async () => {
    const url = await startPython('reference', pythonReceiver('    return None'));
    const {code, failed} = await grade(url, []);
    expect(failed).toEqual([]);
    expect(code).toBe(0);
  });

  it('one with a closed enum of statuses fails later-value-status', {timeout: 60_000}, async () => {
    const url = await startPython(
      'strict_enum',
      pythonReceiver(
        '    status = event["data"]["sandbox"]["status"]\n' +
          '    if status not in ("running", "stopped", "error", "deleting"):\n' +
          '        return "unknown status " + status\n' +
          '    return None',
      ),
    );
    const {code, failed, byId} = await grade(url);
    expect(failed).toEqual(['later-value-status']);
    expect(byId('later-value-status').got).toBe('422 unknown status resizing');
    expect(code).toBe(1);
  });
});

describe('--junit FILE', () => {
  it('writes one test case per check, owner-only, the same bytes on every run against the same receiver', {
    timeout: 90_000,
  }, async () => {
    const url = await listen(
      nodeReceiver((event) =>
        [event.data.sandbox.status, event.data.sandbox.desired_state].includes(FUTURE_EXAMPLES.value)
          ? {status: 400, body: '<error kind="enum">status & "desired_state" refused\u0007</error>'}
          : undefined,
      ),
    );
    const files = [join(dir, 'first.xml'), join(dir, 'second.xml')];
    const codes: (number | null)[] = [];
    for (const file of files) {
      const r = await runCommand(['webhooks', 'test-receiver', url, '--future', '--junit', file], {env});
      codes.push(r.code);
    }
    // The exit code stays the command's: 1 with a failed check, --junit or not.
    expect(codes).toEqual([1, 1]);
    const [first, second] = files.map((f) => readFileSync(f, 'utf8')) as [string, string];
    expect(second).toBe(first);
    for (const file of files) expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first).not.toMatch(/\btime=|timestamp=/);

    const cases = [...first.matchAll(/<testcase classname="([^"]+)" name="([^"]+)"/g)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(cases.map(([, name]) => name?.split(':')[0])).toEqual(['valid', ...FUTURE_CHECK_IDS]);
    expect(cases[0]?.[0]).toBe('svc.test-receiver.delivery');
    expect(cases.slice(1).every(([classname]) => classname === 'svc.test-receiver.future')).toBe(true);
    expect(first).toContain('tests="11" failures="2" errors="0" skipped="0"');
    // The answer is in the failure, escaped; the control character XML cannot hold is replaced.
    expect(first).toContain(
      '<failure message="expected 2xx within 10 s to a delivery with data.sandbox.status = &quot;resizing&quot;',
    );
    expect(first).toContain(
      'got: 400 &lt;error kind="enum"&gt;status &amp; "desired_state" refused\uFFFD&lt;/error&gt;',
    );
    expect(first).not.toContain('\u0007');
  });

  it('refuses to write through a symbolic link, and a passing receiver exits 0', {
    timeout: 60_000,
  }, async () => {
    const url = await listen(nodeReceiver(wellBehaved));
    const target = join(dir, 'elsewhere.xml');
    writeFileSync(target, 'keep');
    const link = join(dir, 'link.xml');
    symlinkSync(target, link);
    const refused = await runCommand(['webhooks', 'test-receiver', url, '--future', '--junit', link], {env});
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/did not write --junit .*symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('keep');

    const file = join(dir, 'passing.xml');
    const r = await runCommand(['webhooks', 'test-receiver', url, '--future', '--junit', file], {env});
    expect(r.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('tests="11" failures="0" errors="0" skipped="0"');
  });
});

describeNeeding([PYTHON], "the JUnit file as a parser reads it (Python's xml.etree)", () => {
  it('is XML a parser reads: testsuites, a testsuite, the cases and their failures', {
    timeout: 60_000,
  }, async () => {
    const url = await listen(
      nodeReceiver((event) => (event.type === 'sandbox.ready' ? undefined : {status: 400, body: 'no'})),
    );
    const file = join(dir, 'parsed.xml');
    await runCommand(['webhooks', 'test-receiver', url, '--future', '--junit', file], {env});
    const parsed = await runProcess(PYTHON_PATH, [
      '-c',
      'import json, sys, xml.etree.ElementTree as ET\n' +
        'root = ET.parse(sys.argv[1]).getroot()\n' +
        'suite = root.find("testsuite")\n' +
        'print(json.dumps({"root": root.tag, "tests": suite.get("tests"), "failures": suite.get("failures"), ' +
        '"cases": [[c.get("classname"), c.get("name").split(":")[0], c.find("failure") is not None] for c in suite.iter("testcase")], ' +
        '"message": suite.find("testcase/failure").get("message")}))',
      file,
    ]);
    expect(parsed.code).toBe(0);
    const tree = JSON.parse(parsed.stdout);
    expect(tree).toMatchObject({root: 'testsuites', tests: '11', failures: '2'});
    expect(tree.cases.filter((c: [string, string, boolean]) => c[2]).map((c: string[]) => c[1])).toEqual([
      'later-event-type',
      'later-absent-last-error',
    ]);
    expect(tree.message).toMatch(
      /^expected 2xx within 10 s to a delivery with type sandbox.resized .*; got 400 no$/,
    );
  });
});
