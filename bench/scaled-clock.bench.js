// A 60x scaled clock (issue 44): how far each retry lands from its scheduled time on the emulator's clock, as a
// share of the wait before it, against the 1% goal (retries 2 to 4: 30 s, 2 min and 10 min of clock time, 12.5 s of
// real time).
import {createServer} from 'node:http';
import {RETRY_WAITS_MS} from '../dist/src/definitions.js';
import {startEmulator} from '../dist/src/emulator/index.js';
import {percentile, printTable} from './lib.js';

const SCALED_EVENTS = Number(process.env.BENCH_SCALED_EVENTS ?? 20);
const SCALED_ATTEMPTS = 4;
// The scaled clock: every retry of SCALED_EVENTS events up to attempt SCALED_ATTEMPTS, each compared with the time
// the delivery said it was due (read as soon as the attempt before it was recorded).
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.statusCode = 500;
    res.end('no');
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const scaled = await startEmulator({port: 0, inMemory: true, clock: 'scaled:60', allowLocalEndpoints: true});
try {
  const {control} = scaled;
  // An org and an endpoint per event: one endpoint's deliveries go one after another (its lane), which would
  // measure that order rather than the clock.
  const shares = [];
  await Promise.all(
    Array.from({length: SCALED_EVENTS}, async (_, i) => {
      const org = await control.createOrg({name: `scaled ${i}`});
      await control.createWebhook({
        url: `http://127.0.0.1:${receiver.address().port}/`,
        events: ['sandbox.error'],
        org_id: org.id,
      });
      const move = await control.trigger({type: 'sandbox.error', org_id: org.id});
      let detail = await control.waitForDelivery({event_id: move.event.id, attempts: 1});
      for (let n = 2; n <= SCALED_ATTEMPTS; n++) {
        const dueAt = Date.parse(detail.delivery.next_attempt_at);
        detail = await control.waitForDelivery({
          delivery_id: detail.delivery.id,
          attempts: n,
          timeout: 60_000,
        });
        const madeAt = Date.parse(detail.attempts[n - 1].started_at);
        shares.push(Math.abs(madeAt - dueAt) / RETRY_WAITS_MS[n - 2]);
      }
    }),
  );
  const worst = Math.max(...shares) * 100;
  printTable(
    `A 60x scaled clock: each retry's distance from its scheduled time, as a share of its wait (baseline: the goal, %; ${shares.length} retries)`,
    [
      {case: 'retry off its time, p50', baseline: 1, value: percentile(shares, 50) * 100, unit: '%'},
      {case: 'retry off its time, max', baseline: 1, value: worst, unit: '%', ratio: worst / 1, target: 1},
    ],
  );
} finally {
  await scaled.stop();
  receiver.close();
}
