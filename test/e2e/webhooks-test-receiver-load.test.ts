// `svc webhooks test-receiver --race` and `--burst` as a user runs them (the built CLI, in-process) against
// seeded-bug receivers on loopback, each verifying with @svc/webhooks: a dedupe that checks and inserts later, one
// kept in each process's memory, and work done before the answer are each found; a unique constraint (insert
// first) and an answer-first receiver never are. The assertions are on the verdicts, never on milliseconds.
import {type ChildProcess, spawn} from 'node:child_process';
import {createServer, type IncomingMessage, type RequestListener, type Server} from 'node:http';
import {createServer as createNetServer, type AddressInfo} from 'node:net';
import {join} from 'node:path';
import {setTimeout as wait} from 'node:timers/promises';
import {fileURLToPath} from 'node:url';
import {afterAll, describe, expect, it} from 'vitest';
import {BURST_CHECK, DELIVERY_TIMEOUT_MS, RACE_CHECK} from '../../src/definitions.js';
import {verifySignature} from '../../src/webhooks/index.js';
import {createNodeHandler} from '../../src/webhooks/node.js';
import {describeNeeding, PYTHON, PYTHON_PATH} from '../helpers/requirements.js';
import {runCommand} from '../helpers/run-cli.js';

const SECRET = 'whsec_cmFjZS1hbmQtYnVyc3QtdGVzdC1zZWNyZXQtMDEyMzQ1Njc4OWFi';
const env = {SVC_WEBHOOK_SECRET: SECRET};
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const closers: (() => Promise<void> | void)[] = [];

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

// ---- Receivers ---------------------------------------------------------------------------------------------

interface Verdict {
  id: string;
  status: string;
  title: string;
  expected: string;
  got: string;
  fix: string;
}
interface Report {
  checks: Verdict[];
  failed: number;
  skipped: number;
  race?: {
    attempts: number;
    rounds: number;
    probe: string | null;
    applied_more_than_once: {event_id: string; applied: number}[];
    never_applied: string[];
    answer_patterns: Record<string, number>;
    not_seen: string | null;
  };
  burst?: {
    arrivals: string;
    sent: number;
    p50_ms: number;
    p99_ms: number;
    max_ms: number;
    budget_ms: number;
    slow_ack: boolean;
  };
}

/** The side effect's table, shared by every process of a receiver: how many times each event was applied. */
class Ledger {
  readonly #counts = new Map<string, number>();
  apply(id: string): void {
    this.#counts.set(id, (this.#counts.get(id) ?? 0) + 1);
  }
  applied(id: string): number {
    return this.#counts.get(id) ?? 0;
  }
}

function rawBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function json(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, {'content-type': 'application/json'}).end(JSON.stringify(body));
}

/**
 * A receiver: GET /probe?event_id=… answers {"applied": <count>} from the ledger (the probe contract); POST
 * verifies the raw body with @svc/webhooks and hands the event to `handle`, which answers.
 */
function receiver(
  ledger: Ledger,
  handle: (event: {id: string}, res: import('node:http').ServerResponse) => Promise<void> | void,
): RequestListener {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://receiver');
    if (req.method === 'GET' && url.pathname === '/probe') {
      return json(res, 200, {applied: ledger.applied(url.searchParams.get('event_id') ?? '')});
    }
    const raw = await rawBody(req);
    try {
      verifySignature({payload: raw, header: req.headers['svc-signature'], secret: SECRET});
    } catch {
      return json(res, 400, {error: 'bad signature'});
    }
    await handle(JSON.parse(raw.toString('utf8')) as {id: string}, res);
  };
}

/** The seeded bug: checks for the event, awaits (a database round trip), then inserts it. */
function checkThenInsert(ledger: Ledger): RequestListener {
  const seen = new Set<string>();
  return receiver(ledger, async (event, res) => {
    if (seen.has(event.id)) return json(res, 200, {duplicate: true});
    await new Promise((resolve) => setImmediate(resolve));
    seen.add(event.id);
    ledger.apply(event.id);
    json(res, 200, {handled: true});
  });
}

/** Right within one process (check and insert in one step), but each process keeps its own ids. */
function inMemoryPerProcess(ledger: Ledger): RequestListener {
  const seen = new Set<string>();
  return receiver(ledger, (event, res) => {
    if (seen.has(event.id)) return json(res, 200, {duplicate: true});
    seen.add(event.id);
    ledger.apply(event.id);
    json(res, 200, {handled: true});
  });
}

/** The reference: a unique constraint shared by every process (insert first, in one step), then the work. */
function uniqueConstraint(ledger: Ledger, table: Set<string>): RequestListener {
  const insertIfAbsent = (id: string) => !table.has(id) && Boolean(table.add(id));
  return receiver(ledger, async (event, res) => {
    await new Promise((resolve) => setImmediate(resolve)); // the round trip to the database
    if (!insertIfAbsent(event.id)) return json(res, 200, {duplicate: true});
    await new Promise((resolve) => setImmediate(resolve)); // the work, after the insert
    ledger.apply(event.id);
    json(res, 200, {handled: true});
  });
}

/**
 * One queue of work (a single database connection, say): each job holds it for WORK_MS, waiting on I/O, the way
 * a call to another service does. `answerFirst` answers before the job runs; otherwise the answer waits for it.
 */
const WORK_MS = 100;
function queuedWork(answerFirst: boolean): RequestListener {
  let queue = Promise.resolve();
  let closed = false;
  closers.push(() => {
    closed = true;
  });
  const work = () => {
    queue = queue.then(() => (closed ? undefined : wait(WORK_MS)));
    return queue;
  };
  return receiver(new Ledger(), async (_event, res) => {
    if (answerFirst) {
      json(res, 200, {queued: true});
      void work();
      return;
    }
    await work();
    json(res, 200, {done: true});
  });
}

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

/**
 * Several processes behind one port, as Node's cluster runs them: each connection goes to the next process in
 * turn, and each process has its own memory.
 */
async function listenAsProcesses(handlers: RequestListener[]): Promise<string> {
  const servers = handlers.map((h) => createServer(h));
  let next = 0;
  const front = createNetServer((socket) => {
    servers[next++ % servers.length]?.emit('connection', socket);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of servers) s.closeAllConnections();
        front.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
}

async function grade(url: string, args: string[]) {
  const r = await runCommand(['webhooks', 'test-receiver', url, '--json', '--only', 'valid', ...args], {
    env,
  });
  expect(r.stdout + r.stderr).not.toContain(SECRET);
  const report = JSON.parse(r.stdout) as Report;
  const check = (id: string) => report.checks.find((c) => c.id === id) as Verdict;
  return {code: r.code, report, race: check('race'), burst: check('burst')};
}

// ---- The race ----------------------------------------------------------------------------------------------

describe('--race with a probe sees a side effect applied twice', () => {
  it('finds a check-then-insert dedupe, naming the event and the count', {timeout: 120_000}, async () => {
    const ledger = new Ledger();
    const base = await listen(checkThenInsert(ledger));
    const {code, report, race} = await grade(`${base}/webhooks`, ['--race', '--probe', `${base}/probe`]);
    expect(race.status).toBe('fail');
    const first = report.race?.applied_more_than_once[0];
    expect(first?.applied).toBe(2);
    expect(race.got).toContain(`double application: ${first?.event_id} applied 2 times`);
    expect(ledger.applied(first?.event_id ?? '')).toBe(2);
    expect(race.fix).toMatch(/unique constraint first/);
    expect(report.race).toMatchObject({attempts: RACE_CHECK.defaultAttempts, probe: `${base}/probe`});
    expect(code).toBe(1);
  });

  it('finds a dedupe kept in each process’s memory, and counts N attempts with --race N', {
    timeout: 120_000,
  }, async () => {
    const ledger = new Ledger();
    const base = await listenAsProcesses([1, 2, 3].map(() => inMemoryPerProcess(ledger)));
    const {code, report, race} = await grade(`${base}/webhooks`, ['--race', '3', '--probe', `${base}/probe`]);
    expect(race.status).toBe('fail');
    expect(report.race?.attempts).toBe(3);
    expect(report.race?.applied_more_than_once).toHaveLength(RACE_CHECK.rounds);
    expect(report.race?.applied_more_than_once.every((e) => e.applied === 3)).toBe(true);
    expect(race.got).toMatch(/applied 3 times by 3 attempts/);
    expect(code).toBe(1);
  });

  it('never flags a unique constraint that every process shares (insert first, then the work)', {
    timeout: 120_000,
  }, async () => {
    const ledger = new Ledger();
    const table = new Set<string>();
    const base = await listenAsProcesses([1, 2].map(() => uniqueConstraint(ledger, table)));
    const {code, report, race} = await grade(`${base}/webhooks`, ['--race', '--probe', `${base}/probe`]);
    expect(race.status, race.got).toBe('pass');
    expect(race.got).toMatch(new RegExp(`each of ${RACE_CHECK.rounds} events applied once`));
    expect(report.race?.applied_more_than_once).toEqual([]);
    expect(report.race?.never_applied).toEqual([]);
    expect(code).toBe(0);
  });

  it('never flags @svc/webhooks/node (its deduplicator claims the id before the handler runs)', {
    timeout: 120_000,
  }, async () => {
    const ledger = new Ledger();
    const handler = createNodeHandler({
      secret: SECRET,
      onEvent: async (event) => {
        await new Promise((resolve) => setImmediate(resolve));
        ledger.apply(event.id);
      },
      onError: () => undefined,
    });
    const base = await listen((req, res) => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      if (req.method === 'GET' && url.pathname === '/probe')
        return json(res, 200, {applied: ledger.applied(url.searchParams.get('event_id') ?? '')});
      return handler(req, res);
    });
    const {code, race} = await grade(`${base}/webhooks`, ['--race', '--probe', `${base}/probe`]);
    expect(race.status, race.got).toBe('pass');
    expect(code).toBe(0);
  });
});

describe('--race without a probe says what it could not see', () => {
  it('passes on the answers, names what the answers suggest, and says the side effect was not seen', {
    timeout: 120_000,
  }, async () => {
    const base = await listen(checkThenInsert(new Ledger()));
    const {code, report, race} = await grade(`${base}/webhooks`, ['--race']);
    expect(race.status).toBe('pass');
    expect(race.title).toMatch(/needs --probe/);
    expect(report.race?.not_seen).toMatch(/^Without --probe, whether an event’s side effect ran once/);
    // The racing attempts were both answered as a first delivery, the repeat after them as a duplicate.
    expect(race.got).toMatch(/may have handled those events more than once/);
    expect(report.race?.answer_patterns.all_as_new).toBeGreaterThan(0);
    expect(code).toBe(0);

    const text = await runCommand(
      ['webhooks', 'test-receiver', `${base}/webhooks`, '--only', 'valid', '--race'],
      {
        env,
      },
    );
    expect(text.stdout).toMatch(/^✓ race /m);
    expect(text.stdout).toMatch(/^ {2}not seen: Without --probe/m);
  });
});

describe('a probe that does not keep the contract', () => {
  it('is said, and the race is not judged', {timeout: 120_000}, async () => {
    const base = await listen(async (req, res) => {
      if (req.method === 'GET') return json(res, 404, {error: 'no such route'});
      createNodeHandler({secret: SECRET, onEvent: () => undefined, onError: () => undefined})(req, res);
    });
    const {code, race} = await grade(base, ['--race', '--probe', `${base}/probe`]);
    expect(race.status).toBe('skip');
    expect(race.got).toMatch(/the probe at .*\/probe does not keep the contract .*: answered 404/);
    expect(code).toBe(1);
  });
});

describe('a receiver that refuses the valid delivery', () => {
  it('is sent neither the race nor the burst, and is told why', {timeout: 120_000}, async () => {
    const other = 'whsec_YW5vdGhlci1zZWNyZXQtdGhhbi10aGUtb25lLXN2Yy13YXMtZ2l2ZW4=';
    const base = await listen(
      createNodeHandler({secret: other, onEvent: () => undefined, onError: () => undefined}),
    );
    const {code, race, burst} = await grade(base, ['--race', '--burst', '5/s:1s']);
    for (const v of [race, burst]) {
      expect(v).toMatchObject({
        status: 'skip',
        got: expect.stringMatching(/^not sent: the valid delivery was not accepted/),
      });
    }
    expect(code).toBe(1);
  });
});

// ---- The burst ---------------------------------------------------------------------------------------------

describe('--burst reports answer times against the attempt budget', () => {
  // 50 a second for 2 s while the work takes WORK_MS each, one at a time: the queue outgrows the budget's half.
  const BURST = '50/s:2s';

  it('flags a receiver that works before it answers as a slow ack', {timeout: 120_000}, async () => {
    const base = await listen(queuedWork(false));
    const {code, report, burst} = await grade(base, ['--burst', BURST]);
    expect(burst.status).toBe('fail');
    expect(burst.got).toMatch(/^slow ack: p50 .* ms, p99 .* ms, max .* ms of the 10 s budget/);
    expect(burst.fix).toMatch(/^Answer first, work later/);
    expect(report.burst).toMatchObject({arrivals: 'fixed-interval', sent: 100, slow_ack: true});
    expect(report.burst?.budget_ms).toBe(DELIVERY_TIMEOUT_MS);
    expect(code).toBe(1);
  });

  it('passes a receiver that answers first and works later, with the numbers in --json', {
    timeout: 120_000,
  }, async () => {
    const base = await listen(queuedWork(true));
    const {code, report, burst} = await grade(base, ['--burst', BURST]);
    expect(burst.status, burst.got).toBe('pass');
    expect(report.burst).toMatchObject({sent: 100, slow_ack: false});
    for (const n of ['p50_ms', 'p99_ms', 'max_ms'] as const) expect(typeof report.burst?.[n]).toBe('number');
    expect(code).toBe(0);
  });
});

// ---- What is refused before anything is sent ---------------------------------------------------------------

describe('bad --race, --probe and --burst values are usage errors', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'a rate past the bound',
      ['--burst', `${BURST_CHECK.maxRatePerSecond + 1}/s`],
      /at most \d+ deliveries a second/,
    ],
    ['a run past the bound', ['--burst', '5/s:2m'], /runs at most \d+ s/],
    ['no rate', ['--burst', 'fast'], /is not RATE\[:DURATION\]/],
    ['a bad duration', ['--burst', '5/s:soon'], /is not a duration/],
    ['too many attempts', ['--race', String(RACE_CHECK.maxAttempts + 1)], /--race takes 2 to \d+ attempts/],
    ['a single attempt', ['--race', '1'], /--race takes 2 to \d+ attempts/],
    ['a probe without a race', ['--probe', 'http://127.0.0.1:9/probe'], /--race/],
    ['a probe that is not http', ['--race', '--probe', 'ftp://127.0.0.1/probe'], /--probe must be an http/],
    [
      'a probe with credentials',
      ['--race', '--probe', 'http://u:p@127.0.0.1/probe'],
      /--probe must not carry/,
    ],
  ];
  for (const [what, args, message] of cases) {
    it(what, async () => {
      const r = await runCommand(['webhooks', 'test-receiver', 'http://127.0.0.1:9/', '--json', ...args], {
        env,
      });
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout).error.message).toMatch(message);
    });
  }
});

// ---- A receiver in Python ----------------------------------------------------------------------------------

const running: ChildProcess[] = [];
closers.push(() => {
  for (const child of running) child.kill('SIGKILL');
});

/** Starts a receiver, and resolves with the address its first line prints. */
function start(command: string, args: string[], cwd: string): Promise<string> {
  const child = spawn(command, args, {cwd, env: {PATH: process.env.PATH, ...env, PORT: '0'}});
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
      if (url) resolve(url);
    });
    child.once('exit', (code) =>
      reject(new Error(`${command} exited with ${code} before listening:\n${err}`)),
    );
  });
}

describeNeeding([PYTHON], 'a Python receiver (ThreadingHTTPServer) that checks, then inserts', () => {
  it('is found by the race with a probe', {timeout: 120_000}, async () => {
    const url = await start(PYTHON_PATH, ['check_then_insert.py'], join(ROOT, 'test', 'e2e', 'receivers'));
    const probe = url.replace(/\/webhooks$/, '/probe');
    const {code, report, race} = await grade(url, ['--race', '--probe', probe]);
    expect(race.status, race.got).toBe('fail');
    expect(race.got).toMatch(/^double application: evt_\w+ applied 2 times/);
    expect(report.race?.applied_more_than_once.length).toBeGreaterThan(0);
    expect(code).toBe(1);
  });
});
