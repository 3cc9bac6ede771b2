// Delivery engine against its floor. Every number sits beside the bare cost of the same work done with plain
// loopback POSTs (undici, same receiver, same concurrency) measured in the same run:
//   - backlog drain: signed deliveries/s for a backlog of N events x E endpoints, every attempt persisted;
//   - trigger to persisted: N events emitted in-process while the worker runs, until every attempt is stored;
//   - trigger-to-receipt latency (p50, p99) in-process, and through the emulator's HTTP control surface.
// The drain is also measured in CPU time (this process's, all threads): the receiver, the engine and the database
// (each on a thread of its own) all run here, so on a machine busy with other work CPU per delivery is the steadier
// figure of the two. How busy the engine's own thread was during the drain is printed below the table.
import {randomBytes} from 'node:crypto';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {Worker} from 'node:worker_threads';
import {Agent, request} from 'undici';
import {realClock} from '../dist/src/emulator/clock.js';
import {openStorage} from '../dist/src/emulator/db/open.js';
import {DeliveryWorker} from '../dist/src/emulator/delivery/worker.js';
import {startEmulator} from '../dist/src/emulator/index.js';
import {SandboxService} from '../dist/src/emulator/sandboxes/service.js';
import {createVault} from '../dist/src/emulator/vault.js';
import {newId, newSigningSecret} from '../dist/src/emulator/ids.js';
import {cpuMs, percentile, printTable} from './lib.js';

const EVENTS = Number(process.env.BENCH_DELIVERY_EVENTS ?? 500);
const ENDPOINTS = Number(process.env.BENCH_DELIVERY_ENDPOINTS ?? 8);
const LATENCY_SAMPLES = Number(process.env.BENCH_DELIVERY_LATENCY_SAMPLES ?? 200);

// The receiver runs in its own thread, as a user's receiver runs in its own process: the engine's thread pays
// only for sending. It counts arrivals in shared memory and, while latency is measured, posts each arrival time.
const shared = new Int32Array(new SharedArrayBuffer(8));
const RECEIVED = 0;
const REPORT_ARRIVALS = 1;
const receiverThread = new Worker(
  `const {parentPort, workerData} = require('node:worker_threads');
   const {createServer} = require('node:http');
   const shared = new Int32Array(workerData.shared.buffer);
   const server = createServer((req, res) => {
     req.resume();
     req.on('end', () => {
       Atomics.add(shared, ${RECEIVED}, 1);
       res.end('ok');
       if (Atomics.load(shared, ${REPORT_ARRIVALS})) parentPort.postMessage(performance.timeOrigin + performance.now());
     });
   });
   server.listen(0, '127.0.0.1', () => parentPort.postMessage({port: server.address().port}));
   parentPort.on('message', () => server.close(() => process.exit(0)));`,
  {eval: true, workerData: {shared}},
);
const port = await new Promise((resolve) => receiverThread.once('message', (m) => resolve(m.port)));
let onArrival;
receiverThread.on('message', (at) => {
  if (typeof at === 'number') onArrival?.(at - performance.timeOrigin);
});
const receivedCount = () => Atomics.load(shared, RECEIVED);
const base = `http://127.0.0.1:${port}`;
const agent = new Agent({keepAliveTimeout: 4_000});

// --- the engine in-process, on the same storage the emulator uses ---
const scratch = await mkdtemp(join(tmpdir(), 'svc-bench-'));
const {db, cleanup} = await openStorage({dataDir: scratch, inMemory: true});
const clock = realClock();
const vault = createVault(randomBytes(32));
const orgId = newId('org');
await db.query('INSERT INTO orgs (id, name, created_at) VALUES ($1, $2, now())', [orgId, 'bench']);
const endpoints = [];
for (let i = 0; i < ENDPOINTS; i++) {
  const id = newId('we');
  endpoints.push(id);
  await db.query(
    `INSERT INTO webhook_endpoints (id, org_id, url, events, secret_ciphertext, created_at) VALUES ($1, $2, $3, $4, $5, now())`,
    [id, orgId, `${base}/e${i}`, ['sandbox.ready'], vault.encrypt(newSigningSecret())],
  );
}
let worker;
const sandboxes = new SandboxService({db, clock, onEvent: () => worker?.notify()});
const newWorker = () =>
  new DeliveryWorker({db, clock, vault, allowLocalEndpoints: true, exclusiveDatabase: true});

async function persisted() {
  const r = await db.query(
    "SELECT count(*)::int AS n FROM deliveries WHERE status = 'succeeded' AND locked_until IS NULL",
  );
  return r.rows[0].n;
}
/** Waits for `n` more arrivals (counted by the receiver, so polling costs the database nothing), then for the records. */
async function waitPersisted(n, arrivalsBefore) {
  while (receivedCount() - arrivalsBefore < n) await new Promise((r) => setTimeout(r, 1));
  while ((await persisted()) < n) await new Promise((r) => setTimeout(r, 5));
}
async function emit(count) {
  let next = 0;
  await Promise.all(
    Array.from({length: 8}, async () => {
      while (next < count) {
        next++;
        await sandboxes.trigger({orgId, type: 'sandbox.ready'});
      }
    }),
  );
}

async function plainPosts(lanes, perLane) {
  const start = performance.now();
  const cpuStart = cpuMs();
  await Promise.all(
    Array.from({length: lanes}, async (_, lane) => {
      for (let i = 0; i < perLane; i++) {
        const res = await request(`${base}/p${lane}`, {
          method: 'POST',
          headers: {'content-type': 'application/json'},
          body: '{"id":"evt_x","type":"sandbox.ready","data":{}}',
          dispatcher: agent,
        });
        await res.body.dump();
      }
    }),
  );
  const n = lanes * perLane;
  return {rate: n / ((performance.now() - start) / 1000), cpuRate: n / ((cpuMs() - cpuStart) / 1000)};
}

// Backlog drain: events stored first, then one worker starts and empties the backlog.
await emit(EVENTS);
let arrivals = receivedCount();
worker = newWorker();
let start = performance.now();
const cpuStart = cpuMs();
const elu0 = performance.eventLoopUtilization();
worker.start();
await waitPersisted(EVENTS * ENDPOINTS, arrivals);
const drainBusy = performance.eventLoopUtilization(elu0).utilization;
const drainRate = (EVENTS * ENDPOINTS) / ((performance.now() - start) / 1000);
const drainCpuRate = (EVENTS * ENDPOINTS) / ((cpuMs() - cpuStart) / 1000);
const {rate: drainBase, cpuRate: drainCpuBase} = await plainPosts(ENDPOINTS, EVENTS);

// Trigger to persisted, with the worker running.
await db.query('DELETE FROM deliveries');
await db.query('DELETE FROM events');
arrivals = receivedCount();
start = performance.now();
await emit(EVENTS);
await waitPersisted(EVENTS * ENDPOINTS, arrivals);
const e2eRate = (EVENTS * ENDPOINTS) / ((performance.now() - start) / 1000);

// Latency with a single subscribed endpoint.
await db.query('DELETE FROM webhook_endpoints WHERE id <> $1', [endpoints[0]]);
Atomics.store(shared, REPORT_ARRIVALS, 1);
async function latency(samples, send) {
  const out = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    const arrived = new Promise((resolve) => {
      onArrival = (at) => {
        onArrival = undefined;
        resolve(at);
      };
    });
    await send();
    out.push((await arrived) - t0);
  }
  return out;
}
const plainSend = async () => {
  const res = await request(`${base}/lat`, {method: 'POST', body: '{}', dispatcher: agent});
  await res.body.dump();
};
await latency(20, () => sandboxes.trigger({orgId, type: 'sandbox.ready'}));
const engineLat = await latency(LATENCY_SAMPLES, () => sandboxes.trigger({orgId, type: 'sandbox.ready'}));
await latency(20, plainSend);
const plainLat = await latency(LATENCY_SAMPLES, plainSend);
await worker.stop();
await db.close();
await cleanup();
await rm(scratch, {recursive: true, force: true});

// Through the emulator's control surface: HTTP, admin auth and validation on top of the engine.
const emu = await startEmulator({port: 0, inMemory: true, allowLocalEndpoints: true});
await emu.control.createWebhook({url: `${base}/emu`, events: ['sandbox.ready']});
await latency(20, () => emu.control.trigger({type: 'sandbox.ready'}));
const httpLat = await latency(LATENCY_SAMPLES, () => emu.control.trigger({type: 'sandbox.ready'}));
await emu.stop();

const p = (xs, q) => percentile(xs, q);
printTable(
  `Signed deliveries to a loopback receiver, ${EVENTS} events x ${ENDPOINTS} endpoints, every attempt persisted`,
  [
    {
      case: 'backlog drain, deliveries/s',
      baseline: drainBase,
      value: drainRate,
      unit: 'ops/s',
      ratio: drainBase / drainRate,
    },
    {
      case: 'backlog drain, deliveries per CPU-s',
      baseline: drainCpuBase,
      value: drainCpuRate,
      unit: 'ops/s',
      ratio: drainCpuBase / drainCpuRate,
    },
    {
      case: 'trigger to persisted, deliveries/s',
      baseline: drainBase,
      value: e2eRate,
      unit: 'ops/s',
      ratio: drainBase / e2eRate,
    },
  ],
);
printTable('Trigger-to-receipt latency, one endpoint (baseline: a plain POST, send to receipt)', [
  {
    case: 'in-process p50',
    baseline: p(plainLat, 50),
    value: p(engineLat, 50),
    unit: 'ms',
    ratio: p(engineLat, 50) / p(plainLat, 50),
  },
  {
    case: 'in-process p99',
    baseline: p(plainLat, 99),
    value: p(engineLat, 99),
    unit: 'ms',
    ratio: p(engineLat, 99) / p(plainLat, 99),
  },
  {
    case: 'via control HTTP p50',
    baseline: p(plainLat, 50),
    value: p(httpLat, 50),
    unit: 'ms',
    ratio: p(httpLat, 50) / p(plainLat, 50),
  },
  {
    case: 'via control HTTP p99',
    baseline: p(plainLat, 99),
    value: p(httpLat, 99),
    unit: 'ms',
    ratio: p(httpLat, 99) / p(plainLat, 99),
  },
]);
process.stdout.write(`engine thread busy ${(drainBusy * 100).toFixed(0)}% of the drain\n`);
const ok = (cond) => (cond ? 'ok' : 'MISSED');
process.stdout.write(
  `targets: ${ok(drainRate >= 2000)} drain >= 2000 deliveries/s (${drainRate.toFixed(0)}); ` +
    `${ok(p(engineLat, 50) <= 10)} in-process p50 <= 10 ms (${p(engineLat, 50).toFixed(2)} ms)\n`,
);

await agent.close();
receiverThread.postMessage('close');
await new Promise((r) => receiverThread.once('exit', r));
