// The goals of `svc webhooks test-receiver` that are rates, not times, graded on seeded receivers on loopback:
// - the race check (--race --probe, 2 attempts, 100 rounds a run) finds a check-then-insert dedupe in at least 19
//   of 20 runs, with the narrowest gap such a receiver can leave (one turn of Node's event loop between the check
//   and the insert), and flags a receiver that inserts first under a unique constraint in none of 20;
// - the JUnit report is the same bytes in 10 runs against the same receiver (every check, the race included).
// Each run is the command's own service (testReceiver) against real HTTP. BENCH_STRICT=1 exits 1 on a missed goal.
import {randomBytes} from 'node:crypto';
import {createServer} from 'node:http';
import {junitXml} from '../dist/src/services/webhooks/receiver-junit.js';
import {testReceiver} from '../dist/src/services/webhooks/test-receiver.js';
import {verifySignature} from '../dist/src/webhooks/index.js';

// A throwaway signing secret made for each run: the receivers and test-receiver share it, nothing keeps it.
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const RACE_RUNS = 20;
const JUNIT_RUNS = 10;

function rawBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A receiver whose dedupe is `dedupe(id)` (true: handle it); GET /probe counts what it applied. */
async function receiver(dedupe) {
  const applied = new Map();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://receiver');
    if (req.method === 'GET') {
      res.writeHead(200, {'content-type': 'application/json'});
      return res.end(JSON.stringify({applied: applied.get(url.searchParams.get('event_id')) ?? 0}));
    }
    const raw = await rawBody(req);
    try {
      verifySignature({payload: raw, header: req.headers['svc-signature'], secret: SECRET});
    } catch {
      return res.writeHead(400).end('bad signature');
    }
    const {id} = JSON.parse(raw.toString('utf8'));
    if (await dedupe(id)) applied.set(id, (applied.get(id) ?? 0) + 1);
    res.writeHead(200).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {url: `${base}/webhooks`, probe: `${base}/probe`, close: () => server.close()};
}

/** Checks, waits a turn (the database round trip), then inserts: simultaneous attempts both pass. */
function checkThenInsert() {
  const seen = new Set();
  return async (id) => {
    if (seen.has(id)) return false;
    await nextTurn();
    seen.add(id);
    return true;
  };
}

/** Inserts first, in one step, as a unique constraint does; then the round trip. */
function uniqueConstraint() {
  const table = new Set();
  return async (id) => {
    await nextTurn();
    if (table.has(id)) return false;
    table.add(id);
    await nextTurn();
    return true;
  };
}

/** RACE_RUNS race checks against one receiver, `together` at a time. */
async function raceVerdicts(dedupe, together) {
  const r = await receiver(dedupe);
  const verdicts = [];
  const run = async () => {
    const report = await testReceiver({
      url: r.url,
      secret: SECRET,
      env: {},
      only: ['valid'],
      race: 2,
      probe: r.probe,
    });
    return report.checks.find((c) => c.id === 'race')?.status;
  };
  try {
    for (let i = 0; i < RACE_RUNS; i += together) {
      verdicts.push(...(await Promise.all(Array.from({length: Math.min(together, RACE_RUNS - i)}, run))));
    }
  } finally {
    r.close();
  }
  return verdicts;
}

// The hit rate is a single run's: one run at a time, nothing else on the receiver. A unique constraint must hold
// however the attempts arrive, so its runs go five at a time (more attempts at once, and quicker).
const found = (await raceVerdicts(checkThenInsert(), 1)).filter((s) => s === 'fail').length;
const flagged = (await raceVerdicts(uniqueConstraint(), 5)).filter((s) => s !== 'pass').length;

// Every check and the race, ten runs at once against one receiver.
const r = await receiver(checkThenInsert());
let files;
try {
  const runs = Array.from({length: JUNIT_RUNS}, () =>
    testReceiver({url: r.url, secret: SECRET, env: {}, race: 2, probe: r.probe}).then(junitXml),
  );
  files = new Set(await Promise.all(runs));
} finally {
  r.close();
}

const rate = (n, of) => `${n} of ${of} runs`;
process.stdout.write(
  [
    'test-receiver goals (graded, not timed)',
    `race finds check-then-insert:        ${rate(found, RACE_RUNS)}   (goal: at least 19) ${found >= 19 ? 'ok' : 'MISSED'}`,
    `race flags a unique constraint:      ${rate(flagged, RACE_RUNS)}   (goal: none) ${flagged === 0 ? 'ok' : 'MISSED'}`,
    `JUnit files over ${JUNIT_RUNS} runs, same receiver: ${files.size} distinct   (goal: 1) ${files.size === 1 ? 'ok' : 'MISSED'}`,
    '',
    '',
  ].join('\n'),
);
if ((found < 19 || flagged > 0 || files.size !== 1) && process.env.BENCH_STRICT === '1') process.exitCode = 1;
