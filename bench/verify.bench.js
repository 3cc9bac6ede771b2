// Webhook verification against its floor: the same HMAC-SHA256 and constant-time compare written inline
// with node:crypto, over the same ~1 KB body. Also beside standardwebhooks' Webhook.verify (its own
// signing scheme, `id.t.body`, so it verifies input it signed itself).
import {createHmac, timingSafeEqual} from 'node:crypto';
import {Webhook} from 'standardwebhooks';
import {
  AsyncWebhookVerifier,
  constructEvent,
  signPayload,
  verifySignature,
  verifySignatureAsync,
  WebhookVerifier,
} from '../dist/src/webhooks/index.js';
import {compareOps, pairedSlowdown, printTable} from './lib.js';

const secret = `whsec_${Buffer.from('svc bench secret: 32 bytes long!').toString('base64')}`;
const event = {
  id: 'evt_4Vx9QmT2kLp8RsWn3YbZc7Hd',
  type: 'sandbox.stopped',
  created_at: '2026-01-01T00:00:00.000Z',
  org_id: 'org_7Gh2Jk4Lm6Np8Qr0St2Uv4Wx',
  data: {
    sandbox: {
      id: 'sbx_1Ab3Cd5Ef7Gh9Ij1Kl3Mn5Op',
      name: 'ci-runner-linux-x64-large',
      status: 'stopped',
      desired_state: 'running',
      last_error:
        'The VM stopped by itself: the guest kernel reported an out-of-memory condition while the build ' +
        'step "npm ci" was running; 7.8 GiB of 8 GiB in use. Last lines of the serial console: ' +
        '[ 4211.337] Out of memory: Killed process 4312 (node) total-vm:9123456kB, anon-rss:7812345kB; ' +
        '[ 4211.512] oom_reaper: reaped process 4312 (node), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB; ' +
        '[ 4212.001] systemd[1]: build.service: Main process exited, code=killed, status=9/KILL. ' +
        "[ 4212.004] systemd[1]: build.service: Failed with result 'signal'; consumed 1h 9min CPU time. " +
        'Resume the sandbox to continue, or fork it with a larger size.',
      expires_at: '2026-01-31T00:00:00.000Z',
    },
  },
};
// What express.raw() hands a receiver: a Buffer of the bytes as received.
const body = Buffer.from(JSON.stringify(event));
const t = Math.floor(Date.now() / 1000);
const header = signPayload({secret, payload: body, timestamp: t});
const tText = String(t);
const v1Hex = header.slice(header.indexOf('v1=') + 3);

function floor() {
  const mac = createHmac('sha256', secret).update(`${tText}.`).update(body).digest();
  if (!timingSafeEqual(mac, Buffer.from(v1Hex, 'hex'))) throw new Error('floor: mismatch');
}

// The least any constructEvent can do: the floor plus JSON.parse of the same bytes. It shows how much of
// constructEvent's ratio is parsing JSON at all, as opposed to this library's own work.
function floorAndParse() {
  floor();
  return JSON.parse(body.toString('utf8'));
}

const standard = new Webhook(secret);
const msgId = 'msg_2Lq7Wm4Rt6Yu8Io0Pa2Sd4Fg';
const standardHeaders = {
  'webhook-id': msgId,
  'webhook-timestamp': tText,
  'webhook-signature': standard.sign(msgId, new Date(t * 1000), body),
};

const verifier = new WebhookVerifier({secret});
const asyncVerifier = new AsyncWebhookVerifier({secret});

const cases = {
  floor,
  'floor + JSON.parse': floorAndParse,
  verifySignature: () => verifySignature({secret, payload: body, header}),
  constructEvent: () => constructEvent({secret, payload: body, header}),
  'WebhookVerifier.verify': () => verifier.verify({payload: body, header}),
  verifySignatureAsync: () => verifySignatureAsync({secret, payload: body, header}),
  'AsyncWebhookVerifier.verify': () => asyncVerifier.verify({payload: body, header}),
  'standardwebhooks verify': () => standard.verify(body, standardHeaders),
};
// Every case must succeed once before anything is timed: a bench of a failing path measures nothing.
for (const [name, fn] of Object.entries(cases)) {
  try {
    await fn();
  } catch (err) {
    throw new Error(`${name} does not verify the bench input: ${err.message}`);
  }
}

// CPU time, not wall time: all of this is CPU-bound, and the figures must not depend on what else
// the machine is doing.
const r = await compareOps(cases, {minMs: 60, rounds: 15, clock: 'cpu'});
const base = r.floor.opsPerSec;
const row = (name, target) => ({
  case: name,
  baseline: base,
  value: r[name].opsPerSec,
  unit: 'ops/s',
  ratio: pairedSlowdown(r, name, 'floor'),
  target,
});
printTable(
  `Webhook verification, ${body.length}-byte body (baseline: inline createHmac + timingSafeEqual; ratio = CPU time per op vs baseline)`,
  [
    row('verifySignature', 1.1),
    row('constructEvent', 1.5),
    row('WebhookVerifier.verify', 1.1),
    row('verifySignatureAsync'),
    row('AsyncWebhookVerifier.verify'),
    row('standardwebhooks verify'),
  ],
);
printTable('Against other baselines (ratio = CPU time per op vs the baseline named in the case)', [
  {
    case: 'constructEvent vs floor + JSON.parse',
    baseline: r['floor + JSON.parse'].opsPerSec,
    value: r.constructEvent.opsPerSec,
    unit: 'ops/s',
    ratio: pairedSlowdown(r, 'constructEvent', 'floor + JSON.parse'),
  },
  {
    case: 'floor + JSON.parse vs floor',
    baseline: base,
    value: r['floor + JSON.parse'].opsPerSec,
    unit: 'ops/s',
    ratio: pairedSlowdown(r, 'floor + JSON.parse', 'floor'),
  },
  {
    case: 'constructEvent vs standardwebhooks verify (which also parses JSON)',
    baseline: r['standardwebhooks verify'].opsPerSec,
    value: r.constructEvent.opsPerSec,
    unit: 'ops/s',
    ratio: pairedSlowdown(r, 'constructEvent', 'standardwebhooks verify'),
  },
]);
