// Delivery engine against its floor: signed deliveries per second from `trigger` (over the control surface) to a
// loopback receiver with every attempt persisted, and trigger-to-receipt latency, each beside the bare cost of
// the same number of plain loopback POSTs (undici, same receiver, same concurrency) measured in the same run.
import {createServer} from 'node:http';
import {performance} from 'node:perf_hooks';
import {Agent, request} from 'undici';
import {startEmulator} from '../dist/emulator/index.js';
import {median, percentile, printTable} from './lib.js';

const EVENTS = Number(process.env.BENCH_DELIVERY_EVENTS ?? 400);
const ENDPOINTS = Number(process.env.BENCH_DELIVERY_ENDPOINTS ?? 8);
const LATENCY_SAMPLES = Number(process.env.BENCH_DELIVERY_LATENCY_SAMPLES ?? 200);
const ROUNDS = 3;

// The receiver notes when each event arrived, keyed by event id (or by a plain POST's id).
const arrivals = new Map();
let onArrival;
const receiver = createServer((req, res) => {
  const id = req.headers['svc-event-id'] ?? req.headers['x-id'];
  req.resume();
  req.on('end', () => {
    const now = performance.now();
    arrivals.set(`${id}|${req.url}`, now);
    res.end('ok');
    onArrival?.(id, now);
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${receiver.address().port}`;

const emu = await startEmulator({port: 0, inMemory: true, allowLocalEndpoints: true});
for (let i = 0; i < ENDPOINTS; i++) {
  await emu.control.createWebhook({url: `${base}/e${i}`, events: ['sandbox.ready']});
}

async function countPersisted() {
  const r = await emu.db.query(
    "SELECT count(*)::int AS n FROM deliveries WHERE status = 'succeeded' AND attempts = 1 AND locked_until IS NULL",
  );
  return r.rows[0].n;
}

/** Triggers `EVENTS` events (8 calls in flight) and waits until every delivery is received and recorded. */
async function engineRun() {
  const before = await countPersisted();
  const expected = before + EVENTS * ENDPOINTS;
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({length: 8}, async () => {
      while (next < EVENTS) {
        next++;
        await emu.control.trigger({type: 'sandbox.ready'});
      }
    }),
  );
  while ((await countPersisted()) < expected) await new Promise((r) => setTimeout(r, 2));
  return (EVENTS * ENDPOINTS) / ((performance.now() - start) / 1000);
}

/** The same number of POSTs straight to the receiver: one sequential lane per endpoint path, as the engine runs. */
const agent = new Agent({keepAliveTimeout: 4_000});
async function plainRun() {
  const start = performance.now();
  await Promise.all(
    Array.from({length: ENDPOINTS}, async (_, lane) => {
      for (let i = 0; i < EVENTS; i++) {
        const res = await request(`${base}/p${lane}`, {
          method: 'POST',
          headers: {'content-type': 'application/json', 'x-id': `p${lane}-${i}`},
          body: '{"id":"evt_x","type":"sandbox.ready"}',
          dispatcher: agent,
        });
        await res.body.dump();
      }
    }),
  );
  return (EVENTS * ENDPOINTS) / ((performance.now() - start) / 1000);
}

function waitForArrival(id) {
  return new Promise((resolve) => {
    onArrival = (got, at) => {
      if (got === id) {
        onArrival = undefined;
        resolve(at);
      }
    };
  });
}

/** Trigger-to-receipt for one event at a time, on a single endpoint (the others are removed first). */
async function engineLatency(samples) {
  const out = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    const move = emu.control.trigger({type: 'sandbox.ready'});
    // The id is known only when trigger answers; the receipt may come first, so match by arrival order instead.
    const arrived = new Promise((resolve) => {
      onArrival = (_id, at) => {
        onArrival = undefined;
        resolve(at);
      };
    });
    await move;
    out.push((await arrived) - start);
  }
  return out;
}

async function plainLatency(samples) {
  const out = [];
  for (let i = 0; i < samples; i++) {
    const id = `lat-${i}`;
    const start = performance.now();
    const arrived = waitForArrival(id);
    const res = await request(`${base}/lat`, {
      method: 'POST',
      headers: {'content-type': 'application/json', 'x-id': id},
      body: '{"id":"evt_x","type":"sandbox.ready"}',
      dispatcher: agent,
    });
    await res.body.dump();
    out.push((await arrived) - start);
  }
  return out;
}

// Warm-up, then interleaved rounds so load from elsewhere hits both alike.
await engineRun();
await plainRun();
const engineRates = [];
const plainRates = [];
for (let r = 0; r < ROUNDS; r++) {
  engineRates.push(await engineRun());
  plainRates.push(await plainRun());
}

// Latency with a single subscribed endpoint: what one receiver waits for one event.
const hooks = (await emu.db.query('SELECT id FROM webhook_endpoints ORDER BY created_at')).rows;
for (const h of hooks.slice(1)) await emu.control.deleteWebhook(h.id);
await engineLatency(20);
await plainLatency(20);
const engineLat = await engineLatency(LATENCY_SAMPLES);
const plainLat = await plainLatency(LATENCY_SAMPLES);

const engineRate = median(engineRates);
const plainRate = median(plainRates);
const p50 = percentile(engineLat, 50);
const p99 = percentile(engineLat, 99);
const basep50 = percentile(plainLat, 50);
const basep99 = percentile(plainLat, 99);
printTable(`Signed deliveries, trigger to loopback receiver, ${EVENTS} events x ${ENDPOINTS} endpoints (every attempt persisted)`, [
  {case: 'deliveries/s (target >= 2000)', baseline: plainRate, value: engineRate, unit: 'ops/s', ratio: plainRate / engineRate},
]);
printTable('Trigger-to-receipt latency, one endpoint (baseline: plain POST send-to-receipt)', [
  {case: 'p50 (target <= 10 ms)', baseline: basep50, value: p50, unit: 'ms', ratio: p50 / basep50},
  {case: 'p99', baseline: basep99, value: p99, unit: 'ms', ratio: p99 / basep99},
]);
process.stdout.write(
  `targets: ${engineRate >= 2000 ? 'ok' : 'MISSED'} deliveries/s >= 2000 (${engineRate.toFixed(0)}); ` +
    `${p50 <= 10 ? 'ok' : 'MISSED'} p50 <= 10 ms (${p50.toFixed(2)} ms)\n`,
);

await agent.close();
await emu.stop();
await new Promise((r) => receiver.close(r));
