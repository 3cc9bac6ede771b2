// Webhook verification against its floor: the same HMAC-SHA256 and constant-time compare written inline
// with node:crypto, over the same ~1 KB body, given as a Buffer (what express.raw() and node:http hand
// over) and as a string (what request.text() hands over). Also beside standardwebhooks' Webhook.verify
// (its own signing scheme, `id.t.body`, so it verifies input it signed itself), and beside stripe-node's
// verifier (stripe is a development dependency, for this comparison only). The WebCrypto verifiers (for edge
// runtimes) are held to WebCrypto's own floor, the same HMAC through crypto.subtle.
//
// The receiver integrations (@svc/webhooks/node, /express, /fetch) are measured against the same work
// written by hand on the same request objects: read the body, constructEvent, answer 200. What they add
// is the de-duplication by event id and the answer; every delivery carries a different event id.
import {createHmac, timingSafeEqual} from 'node:crypto';
import {createRequire} from 'node:module';
import {Readable} from 'node:stream';
import {Webhook} from 'standardwebhooks';
import {svcWebhooks} from '../dist/src/webhooks/express.js';
import {createFetchHandler} from '../dist/src/webhooks/fetch.js';
import {
  AsyncWebhookVerifier,
  constructEvent,
  EventDeduplicator,
  MemoryDeduplicationStore,
  signPayload,
  verifySignature,
  verifySignatureAsync,
  WebhookVerifier,
} from '../dist/src/webhooks/index.js';
import {createNodeHandler} from '../dist/src/webhooks/node.js';
import {WebhookReceiver} from '../dist/src/webhooks/receiver.js';
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

const text = body.toString('utf8');

function floorOf(payload) {
  const mac = createHmac('sha256', secret).update(`${tText}.`).update(payload).digest();
  if (!timingSafeEqual(mac, Buffer.from(v1Hex, 'hex'))) throw new Error('floor: mismatch');
}
const floor = () => floorOf(body);
const floorString = () => floorOf(text);

// The same check with the digest taken as hex text and compared as bytes: a plain digest() builds its
// Buffer in C++, which costs about a quarter of the floor's time on a 1 KB body. This is the lowest this
// machine goes for one verification, so the library is shown beside it too.
const v1Text = Buffer.from(v1Hex, 'latin1');
function hexFloorOf(payload) {
  const mac = createHmac('sha256', secret).update(`${tText}.`).update(payload).digest('hex');
  if (!timingSafeEqual(Buffer.from(mac, 'latin1'), v1Text)) throw new Error('hex floor: mismatch');
}

// The least any constructEvent can do: the floor plus JSON.parse of the same bytes. It shows how much of
// constructEvent's ratio is parsing JSON at all, as opposed to this library's own work.
function floorAndParse() {
  floor();
  return JSON.parse(body.toString('utf8'));
}
function floorAndParseString() {
  floorString();
  return JSON.parse(text);
}

// WebCrypto's own floor, for the async verifiers (runtimes without node:crypto): the same HMAC through
// crypto.subtle, whose every call is a promise and a trip to a worker thread, with the same message built and
// the same constant-time compare. The key imported once (as AsyncWebhookVerifier keeps it), or on every call (as
// the one-shot verifySignatureAsync must).
const subtle = globalThis.crypto.subtle;
const v1Bytes = Buffer.from(v1Hex, 'hex');
const importSecret = () =>
  subtle.importKey('raw', Buffer.from(secret), {name: 'HMAC', hash: 'SHA-256'}, false, ['sign']);
const webKey = await importSecret();
async function webFloorWith(key) {
  const message = Buffer.concat([Buffer.from(`${tText}.`), body]);
  const mac = new Uint8Array(await subtle.sign('HMAC', key, message));
  if (!timingSafeEqual(mac, v1Bytes)) throw new Error('WebCrypto floor: mismatch');
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

// ---- Receiver integrations -------------------------------------------------------------------------------
// Deliveries of distinct events (same size as `body`), cycled through, so that de-duplication does real
// work on every call. The store forgets an id one tick after recording it (its clock ticks once per read),
// so the ids come round again as new events, and the store still inserts, looks up and evicts each time.
const DELIVERIES = 1024;
const deliveries = Array.from({length: DELIVERIES}, (_, i) => {
  const payload = Buffer.from(JSON.stringify({...event, id: `evt_${String(i).padStart(24, '0')}`}));
  return {payload, header: signPayload({secret, payload, timestamp: t})};
});
let next = 0;
const nextDelivery = () => deliveries[next++ & (DELIVERIES - 1)];
function deduplicator() {
  let tick = 0;
  return new EventDeduplicator({ttlMs: 1, store: new MemoryDeduplicationStore({now: () => tick++})});
}
const handled = {count: 0};
const onEvent = () => {
  handled.count++;
};

/** What node:http hands a handler: a readable request with headers, and a response to write. */
function nodeRequest(delivery) {
  const req = Readable.from([delivery.payload], {objectMode: false});
  req.method = 'POST';
  req.url = '/webhooks';
  req.headers = {
    'content-type': 'application/json',
    'content-length': String(delivery.payload.length),
    'svc-signature': delivery.header,
    'svc-delivery-id': 'dlv_4Vx9QmT2kLp8RsWn3YbZc7Hd',
    'svc-delivery-attempt': '1',
  };
  return req;
}
class NodeResponse {
  headersSent = false;
  statusCode = 0;
  writeHead(status) {
    this.statusCode = status;
    this.headersSent = true;
    return this;
  }
  end(chunk) {
    this.body = chunk;
  }
}
function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
function checkOk(res) {
  if (res.statusCode !== 200) throw new Error(`answered ${res.statusCode}: ${res.body}`);
}

const receiver = new WebhookReceiver({secret, onEvent, deduplicator: deduplicator()});
const nodeHandler = createNodeHandler({secret, onEvent, deduplicator: deduplicator()});
const expressHandler = svcWebhooks({secret, onEvent, deduplicator: deduplicator()});
const fetchHandler = createFetchHandler({secret, onEvent, deduplicator: deduplicator()});
const fetchRequest = (delivery) =>
  new Request('http://127.0.0.1/webhooks', {
    method: 'POST',
    headers: {'content-type': 'application/json', 'svc-signature': delivery.header},
    body: delivery.payload,
  });

const integrationCases = {
  'constructEvent (distinct events)': () => {
    const d = nextDelivery();
    onEvent(verifier.constructEvent({payload: d.payload, header: d.header}));
  },
  'WebhookReceiver.receive': async () => {
    const d = nextDelivery();
    const outcome = await receiver.receive({payload: d.payload, signature: d.header, attempt: '1'});
    if (outcome.status !== 200 || outcome.duplicate) throw new Error('receive: not handled');
  },
  'node:http by hand': async () => {
    const req = nodeRequest(nextDelivery());
    const res = new NodeResponse();
    const payload = await readBody(req);
    onEvent(verifier.constructEvent({payload, header: req.headers['svc-signature']}));
    res.writeHead(200, {'content-type': 'application/json'});
    res.end('{"received":true}');
    checkOk(res);
  },
  '@svc/webhooks/node': async () => {
    const res = new NodeResponse();
    await nodeHandler(nodeRequest(nextDelivery()), res);
    checkOk(res);
  },
  '@svc/webhooks/express': async () => {
    const res = new NodeResponse();
    await new Promise((resolve, reject) => {
      res.end = (chunk) => {
        res.body = chunk;
        resolve();
      };
      expressHandler(nodeRequest(nextDelivery()), res, reject);
    });
    checkOk(res);
  },
  'fetch by hand': async () => {
    const request = fetchRequest(nextDelivery());
    const payload = new Uint8Array(await request.arrayBuffer());
    onEvent(verifier.constructEvent({payload, header: request.headers.get('svc-signature')}));
    const res = new Response('{"received":true}', {
      status: 200,
      headers: {'content-type': 'application/json'},
    });
    if (res.status !== 200) throw new Error('fetch by hand');
  },
  '@svc/webhooks/fetch': async () => {
    const res = await fetchHandler(fetchRequest(nextDelivery()));
    if (res.status !== 200) throw new Error(`fetch: answered ${res.status}: ${await res.text()}`);
  },
};

const cases = {
  floor,
  'floor + JSON.parse': floorAndParse,
  'floor, string body': floorString,
  'floor + JSON.parse, string body': floorAndParseString,
  'hex floor': () => hexFloorOf(body),
  'hex floor, string body': () => hexFloorOf(text),
  verifySignature: () => verifySignature({secret, payload: body, header}),
  'verifySignature, string body': () => verifySignature({secret, payload: text, header}),
  constructEvent: () => constructEvent({secret, payload: body, header}),
  'constructEvent, string body': () => constructEvent({secret, payload: text, header}),
  'WebhookVerifier.verify': () => verifier.verify({payload: body, header}),
  'WebCrypto floor': () => webFloorWith(webKey),
  'WebCrypto floor, key imported per call': async () => webFloorWith(await importSecret()),
  verifySignatureAsync: () => verifySignatureAsync({secret, payload: body, header}),
  'AsyncWebhookVerifier.verify': () => asyncVerifier.verify({payload: body, header}),
  'standardwebhooks verify': () => standard.verify(body, standardHeaders),
};
// Every case must succeed once before anything is timed: a bench of a failing path measures nothing.
for (const [name, fn] of Object.entries({...cases, ...integrationCases})) {
  try {
    await fn();
  } catch (err) {
    throw new Error(`${name} does not verify the bench input: ${err.message}`);
  }
}

// CPU time, not wall time: all of this is CPU-bound, and the figures must not depend on what else
// the machine is doing.
const r = await compareOps(cases, {minMs: 60, rounds: 15, clock: 'cpu'});
const vs = (name, baseline, target) => ({
  case: name,
  baseline: r[baseline].opsPerSec,
  value: r[name].opsPerSec,
  unit: 'ops/s',
  ratio: pairedSlowdown(r, name, baseline),
  target,
});
printTable(
  `Webhook verification, ${body.length}-byte body (baseline: inline createHmac + timingSafeEqual on the same body; ratio = CPU time per op vs baseline)`,
  [
    vs('verifySignature', 'floor', 1.1),
    vs('verifySignature, string body', 'floor, string body', 1.1),
    vs('WebhookVerifier.verify', 'floor', 1.1),
    vs('verifySignature', 'hex floor'),
    vs('verifySignature, string body', 'hex floor, string body'),
    vs('WebhookVerifier.verify', 'hex floor'),
    vs('hex floor', 'floor'),
    vs('AsyncWebhookVerifier.verify', 'WebCrypto floor', 1.1),
    vs('verifySignatureAsync', 'WebCrypto floor, key imported per call', 1.1),
    vs('WebCrypto floor', 'floor'),
    vs('verifySignatureAsync', 'floor'),
    vs('AsyncWebhookVerifier.verify', 'floor'),
    vs('standardwebhooks verify', 'floor'),
  ],
);
printTable(
  'constructEvent against its physical limit (baseline: the floor plus JSON.parse of the same body)',
  [
    vs('constructEvent', 'floor + JSON.parse', 1.1),
    vs('constructEvent, string body', 'floor + JSON.parse, string body', 1.1),
    vs('floor + JSON.parse', 'floor'),
    vs('constructEvent', 'standardwebhooks verify'),
  ],
);
// stripe-node's verifier (same header shape), measured on its own after the cases above: loading that large
// package and running it among them changed the floor's own speed by up to a fifth between runs.
const Stripe = createRequire(import.meta.url)('stripe');
const stripe = new Stripe('sk_test_bench');
const stripeCases = {
  floor,
  constructEvent: cases.constructEvent,
  'stripe-node constructEvent': () => stripe.webhooks.constructEvent(body, header, secret),
};
stripeCases['stripe-node constructEvent']();
const rs = await compareOps(stripeCases, {minMs: 60, rounds: 11, clock: 'cpu'});
const vss = (name, baseline) => ({
  case: name,
  baseline: rs[baseline].opsPerSec,
  value: rs[name].opsPerSec,
  unit: 'ops/s',
  ratio: pairedSlowdown(rs, name, baseline),
});
printTable('Beside stripe-node (ratio = CPU time per op vs the baseline named)', [
  vss('stripe-node constructEvent', 'floor'),
  vss('constructEvent', 'floor'),
  vss('constructEvent', 'stripe-node constructEvent'),
]);

const ri = await compareOps(integrationCases, {minMs: 60, rounds: 11, clock: 'cpu'});
const vsi = (name, baseline, target) => ({
  case: name,
  baseline: ri[baseline].opsPerSec,
  value: ri[name].opsPerSec,
  unit: 'ops/s',
  ratio: pairedSlowdown(ri, name, baseline),
  target,
});
if (handled.count === 0) throw new Error('no integration case handled an event');
printTable(
  'Receiver integrations, a new event each time (ratio = CPU time per op vs the baseline: the same request read and answered by hand around constructEvent)',
  [
    vsi('WebhookReceiver.receive', 'constructEvent (distinct events)', 1.2),
    vsi('@svc/webhooks/node', 'node:http by hand', 1.2),
    vsi('@svc/webhooks/express', 'node:http by hand', 1.2),
    vsi('@svc/webhooks/fetch', 'fetch by hand', 1.2),
    vsi('node:http by hand', 'constructEvent (distinct events)'),
    vsi('fetch by hand', 'constructEvent (distinct events)'),
  ],
);
