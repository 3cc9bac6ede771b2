// receiver.mjs: a webhook receiver that passes every check of `svc webhooks test-receiver`, the later service's
// deliveries (--future) and the race with its probe (--race --probe) included. Run it with
//   SVC_WEBHOOK_SECRET=whsec_… node receiver.mjs
// and grade it with
//   SVC_WEBHOOK_SECRET=whsec_… svc webhooks test-receiver http://127.0.0.1:3000/webhooks \
//     --race --probe http://127.0.0.1:3000/svc-probe --burst 20/s:5s
// The guide that explains each step is docs/receivers.md.
import {createServer} from 'node:http';
import {WebhookVerificationError, WebhookVerifier} from '@svc/webhooks';

// The whole whsec_… string is the key; the verifier checks the raw body, every v1 entry and the 300 s tolerance.
const verifier = new WebhookVerifier({secret: process.env.SVC_WEBHOOK_SECRET});
const BODY_LIMIT = 1024 * 1024; // events reach hundreds of KiB; 1 MiB leaves room

// Stand-ins for your database: a table with a unique key on the event id, and what the probe reports.
const handledEvents = new Set();
const applied = new Map();
const work = [];

/** INSERT INTO handled_events (id) VALUES ($1) ON CONFLICT DO NOTHING: true when this call inserted the row. */
function insertEvent(id) {
  if (handledEvents.has(id)) return false;
  handledEvents.add(id);
  applied.set(id, (applied.get(id) ?? 0) + 1);
  return true;
}

/** The side effects, from a queue after the answer: a burst never waits for them. */
async function handle(event) {
  const sandbox = event.data.sandbox;
  switch (event.type) {
    case 'sandbox.ready':
      // expires_at is optional: read it as such.
      return console.log(
        `${sandbox.name} is ready${sandbox.expires_at ? ` until ${sandbox.expires_at}` : ''}`,
      );
    case 'sandbox.error':
      return console.log(`${sandbox.name} failed: ${sandbox.last_error ?? 'no reason given'}`);
    case 'sandbox.stopped':
    case 'sandbox.expired':
      return console.log(`${sandbox.name} is ${sandbox.status}`);
    default:
      // A type added later: acknowledged (it was recorded above) and otherwise ignored.
      return undefined;
  }
}

setInterval(() => {
  for (const event of work.splice(0)) handle(event).catch(console.error);
}, 50).unref();

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > BODY_LIMIT) reject(new Error('too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://localhost');
  // The probe (serve it only where your tests reach it): how many times this event's effect was taken on.
  if (req.method === 'GET' && url.pathname === '/svc-probe') {
    res.writeHead(200, {'content-type': 'application/json'});
    return res.end(JSON.stringify({applied: applied.get(url.searchParams.get('event_id')) ?? 0}));
  }
  // The exact path registered, no redirect to another one.
  if (req.method !== 'POST' || url.pathname !== '/webhooks') return res.writeHead(404).end();
  let raw;
  try {
    raw = await readBody(req);
  } catch {
    return res.writeHead(413, {connection: 'close'}).end('body too large');
  }
  let event;
  try {
    // The raw bytes, never a parsed and re-serialised body. constructEvent returns an event of any type, with any
    // fields and values a later service adds: nothing here refuses what it does not know.
    event = verifier.constructEvent({payload: raw, header: req.headers['svc-signature']});
  } catch (err) {
    const refused = err instanceof WebhookVerificationError;
    return res.writeHead(refused ? 400 : 500).end(refused ? err.reason : 'error');
  }
  // Record first, in one atomic step, then queue the work; a repeat is answered 2xx and not handled again.
  if (insertEvent(event.id)) work.push(event);
  res.writeHead(200, {'content-type': 'application/json'}).end('{"received":true}');
});

server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () =>
  console.log(`listening on http://127.0.0.1:${server.address().port}/webhooks`),
);
