// A webhook receiver in Node, built-in modules only, as the example scenarios test it.
//
// It verifies each delivery's Svc-Signature with SVC_WEBHOOK_SECRET, applies each event once (by its id) and
// answers the probe: GET /probe?event_id=<id> -> {"applied": <count>}. It listens on 127.0.0.1:$PORT.
// RECEIVER_BUG seeds one mistake, for the tests that show a scenario catching it:
//   no-dedupe       applies every attempt, duplicates included
//   refuse-retries  answers 500 to any attempt after the first
//   refuse-expired  answers 500 to sandbox.expired
import {createHmac, timingSafeEqual} from 'node:crypto';
import {createServer} from 'node:http';

const SECRET = process.env.SVC_WEBHOOK_SECRET;
const BUG = process.env.RECEIVER_BUG ?? '';
const TOLERANCE_S = 300;
const applied = new Map();

function verified(header, body) {
  const parts = Object.fromEntries(
    String(header ?? '')
      .split(',')
      .map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]),
  );
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > TOLERANCE_S) return false;
  const expected = createHmac('sha256', SECRET).update(`${t}.`).update(body).digest('hex');
  const given = Buffer.from(String(parts.v1 ?? ''));
  return given.length === expected.length && timingSafeEqual(given, Buffer.from(expected));
}

function answer(res, status, body) {
  res.writeHead(status, {'content-type': 'application/json'}).end(JSON.stringify(body));
}

createServer((req, res) => {
  const url = new URL(req.url, 'http://receiver');
  if (req.method === 'GET') {
    if (url.pathname !== '/probe') return answer(res, 404, {error: 'not found'});
    return answer(res, 200, {applied: applied.get(url.searchParams.get('event_id')) ?? 0});
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (!verified(req.headers['svc-signature'], body)) return answer(res, 400, {error: 'signature'});
    const event = JSON.parse(body.toString('utf8'));
    const attempt = Number(req.headers['svc-delivery-attempt'] ?? 1);
    if (BUG === 'refuse-retries' && attempt > 1) return answer(res, 500, {error: 'replayed?'});
    if (BUG === 'refuse-expired' && event.type === 'sandbox.expired')
      return answer(res, 500, {error: 'unknown event'});
    if (BUG === 'no-dedupe' || !applied.has(event.id))
      applied.set(event.id, (applied.get(event.id) ?? 0) + 1);
    answer(res, 200, {received: true});
  });
}).listen(Number(process.env.PORT), '127.0.0.1');
