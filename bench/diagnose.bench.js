// `svc webhooks diagnose` over 10,000 attempts (a hundred endpoints' worth of failing deliveries, every cause mixed,
// answers up to the 4 kB the emulator keeps) beside the least any diagnosis does: one plain loop over the same
// attempts that counts the failed ones by status and reads the start of each answer once, as any reading of the
// answers must. The goal is well under 200 ms for the 10,000.
import {diagnose} from '../dist/src/services/webhooks/diagnosis.js';
import {compareOps, pairedSlowdown, printTable} from './lib.js';

const URL_ = 'https://hooks.example.com/svc';
const KINDS = [
  {
    statusCode: 401,
    error: null,
    body: '{"error":{"code":"signature_mismatch","message":"no v1 signature matches this body"}}',
  },
  {
    statusCode: 400,
    error: null,
    body: 'the signature timestamp is 412 seconds in the past, outside the tolerance',
  },
  {statusCode: null, error: 'timed out after 10000 ms', body: null},
  {statusCode: 308, error: `redirect (308 to ${URL_}/) not followed`, body: ''},
  {statusCode: 413, error: null, body: `<html><body>${'x'.repeat(4000)}</body></html>`},
  {statusCode: 400, error: null, body: 'Bad Request'},
  {statusCode: null, error: 'ECONNREFUSED: connect ECONNREFUSED 10.0.0.1:443', body: null},
  {statusCode: 500, error: null, body: `Traceback (most recent call last): ${'frame '.repeat(600)}`},
  {statusCode: 200, error: null, body: '{"received":true}'},
];
const TYPES = ['sandbox.ready', 'sandbox.stopped', 'sandbox.error', 'sandbox.expired'];

const attempts = Array.from({length: 10_000}, (_, i) => {
  const kind = KINDS[i % KINDS.length];
  return {
    deliveryId: `dlv_${String(Math.floor(i / 9)).padStart(24, '0')}`,
    eventType: TYPES[i % TYPES.length],
    attempt: (i % 9) + 1,
    statusCode: kind.statusCode,
    error: kind.error,
    durationMs: 40 + (i % 200),
    // Each answer its own string, as each attempt's record is read from the database.
    body: kind.body === null ? null : `${kind.body} #${i}`,
    startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  };
});

let sink = 0;
const results = await compareOps(
  {
    loop: () => {
      let failed = 0;
      for (const a of attempts) {
        if (a.error !== null || a.statusCode === null || a.statusCode >= 300) failed++;
        if (a.body !== null) failed += a.body.slice(0, 1024).toLowerCase().includes('signature') ? 1 : 0;
      }
      sink += failed;
    },
    diagnose: () => {
      sink += diagnose({url: URL_, attempts}).issues.length;
    },
  },
  {clock: 'cpu', minMs: 400, rounds: 7},
);
const ms = 1000 / results.diagnose.opsPerSec;
printTable('diagnosis of 10,000 attempts (per run)', [
  {
    case: 'diagnose vs one loop reading each answer',
    baseline: 1000 / results.loop.opsPerSec,
    value: ms,
    unit: 'ms',
    ratio: pairedSlowdown(results, 'diagnose', 'loop'),
  },
  {
    case: 'diagnose against its 200 ms goal',
    baseline: 200,
    value: ms,
    unit: 'ms',
    ratio: ms / 200,
    target: 0.25,
  },
]);
if (sink === 0) console.error('nothing measured');
