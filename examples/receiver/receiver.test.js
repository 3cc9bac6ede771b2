// The receiver against a real emulator, end to end. Run it through the emulator, which starts fresh,
// runs the test with SVC_API_URL, SVC_API_KEY and SVC_EMULATOR_DATA_DIR set, and stops:
//
//   svc emulator exec --clock manual --allow-local-endpoints -- node --test examples/receiver/receiver.test.js
//
// With --clock manual, time moves only when told, so the 30 s wait before a retry takes no time at all; the
// signatures still carry the real time, so the receiver checks them against its own clock as in production.
import assert from 'node:assert/strict';
import {execFile} from 'node:child_process';
import {createServer} from 'node:http';
import {createRequire} from 'node:module';
import {dirname, join} from 'node:path';
import {after, before, test} from 'node:test';
import {promisify} from 'node:util';
import {webhookRoutes} from './server.js';

const run = promisify(execFile);
const cli = join(dirname(createRequire(import.meta.url).resolve('@svc/cli/package.json')), 'bin', 'run.js');

/** Runs `svc …` (the emulator's commands and the read commands) and parses its --json output. */
async function svc(...args) {
  const {stdout} = await run(process.execPath, [cli, ...args, '--json'], {env: process.env});
  return JSON.parse(stdout);
}

async function until(what, check, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const handled = []; // events the business logic finished
const attempts = []; // every call of the business logic, failed or not
const failOnce = new Set(); // event types to fail the first time
let server;
let endpoint;

before(async () => {
  assert.ok(
    process.env.SVC_EMULATOR_DATA_DIR,
    'run this test through `svc emulator exec` (see the top of the file)',
  );
  server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = await svc(
    'emulator',
    'webhooks',
    'create',
    '--url',
    `http://127.0.0.1:${server.address().port}/webhooks`,
    '--events',
    'sandbox.ready,sandbox.stopped',
  );
  server.on(
    'request',
    webhookRoutes({
      secret: endpoint.secret,
      onEvent: (event, delivery) => {
        attempts.push({type: event.type, attempt: delivery.attempt});
        if (failOnce.delete(event.type)) throw new Error(`failing ${event.type} on purpose`);
        handled.push(event);
      },
    }),
  );
});

after(() => {
  server?.closeAllConnections();
  server?.close();
});

async function deliveryOf(eventId) {
  const {data} = await svc('webhooks', 'deliveries', endpoint.id);
  return data.find((d) => d.event_id === eventId);
}

test('a delivered event reaches the business logic once, verified', async () => {
  const {event} = await svc('trigger', 'sandbox.ready');
  await until('sandbox.ready to be handled', () => handled.some((e) => e.id === event.id));
  const delivery = await until('the delivery to succeed', async () => {
    const d = await deliveryOf(event.id);
    return d?.status === 'succeeded' && d;
  });
  assert.equal(delivery.attempts, 1);
});

test('an event that fails is retried after 30 s of emulator time, and the retry succeeds', async () => {
  failOnce.add('sandbox.stopped');
  const {event} = await svc('trigger', 'sandbox.stopped');

  const failed = await until('the first attempt to fail', async () => {
    const d = await deliveryOf(event.id);
    return d?.attempts === 1 && d;
  });
  assert.equal(failed.status, 'pending');
  assert.equal(failed.last_status_code, 500);
  assert.equal(
    handled.some((e) => e.id === event.id),
    false,
  );

  await svc('emulator', 'clock', 'advance', '30s');

  await until('the retry to be handled', () => handled.some((e) => e.id === event.id));
  const done = await until('the delivery to succeed', async () => {
    const d = await deliveryOf(event.id);
    return d?.status === 'succeeded' && d;
  });
  assert.equal(done.attempts, 2);
  assert.equal(done.last_status_code, 200);
  assert.deepEqual(
    attempts.filter((a) => a.type === 'sandbox.stopped'),
    [
      {type: 'sandbox.stopped', attempt: 1},
      {type: 'sandbox.stopped', attempt: 2},
    ],
  );
});
