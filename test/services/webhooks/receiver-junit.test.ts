// The JUnit report of `svc webhooks test-receiver` is the same bytes on every run against the same receiver, the
// race and the burst included, whose measured figures (times, which rounds doubled, how many) change from run to
// run: ten runs each against a check-then-insert receiver (the race fails in some rounds, never the same ones) and
// a receiver that works 5.2 s before answering (a slow ack), every run on real HTTP on loopback. The figures stay
// in the report itself (what the text output and --json print).
import {createServer, type IncomingMessage, type RequestListener, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterAll, describe, expect, it} from 'vitest';
import {SLOW_ACK_BUDGET_SHARE, DELIVERY_TIMEOUT_MS} from '../../../src/definitions.js';
import {junitXml} from '../../../src/services/webhooks/receiver-junit.js';
import {type ReceiverReport, testReceiver} from '../../../src/services/webhooks/test-receiver.js';
import {verifySignature} from '../../../src/webhooks/index.js';

const SECRET = 'whsec_c3RlYWR5LWp1bml0LXJlcG9ydHMtc2VjcmV0LTAxMjM0NTY3ODlhYmNk';
const RUNS = 10;
const servers: Server[] = [];

afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

function rawBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function listen(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Verifies the raw body, then `then(eventId)` answers; GET /probe answers {"applied": n} from `applied`. */
function receiver(applied: Map<string, number>, then: (id: string) => Promise<void>): RequestListener {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://receiver');
    if (req.method === 'GET') {
      res.writeHead(200, {'content-type': 'application/json'});
      return res.end(JSON.stringify({applied: applied.get(url.searchParams.get('event_id') ?? '') ?? 0}));
    }
    const raw = await rawBody(req);
    try {
      verifySignature({payload: raw, header: req.headers['svc-signature'], secret: SECRET});
    } catch {
      return res.writeHead(400).end('bad signature');
    }
    await then((JSON.parse(raw.toString('utf8')) as {id: string}).id);
    res.writeHead(200).end();
  };
}

/** RUNS runs at once, the i-th against urls[i] (or all against the one). */
async function runs(
  urls: string[],
  options: {race?: number; probe?: (url: string) => string; burst?: string},
) {
  const reports: ReceiverReport[] = await Promise.all(
    Array.from({length: RUNS}, (_, i) => {
      const url = urls[i % urls.length] as string;
      const {probe, ...rest} = options;
      return testReceiver({...rest, url, probe: probe?.(url), secret: SECRET, env: {}, only: ['valid']});
    }),
  );
  return {reports, xml: new Set(reports.map(junitXml))};
}

describe.concurrent('test-receiver --junit is the same bytes on every run against the same receiver', () => {
  it('with a race that doubles events in some rounds (a check-then-insert dedupe)', {
    timeout: 120_000,
  }, async () => {
    const applied = new Map<string, number>();
    const seen = new Set<string>();
    // Each event's attempts that passed the check, and the first one's wake-up when it waits for another.
    const checked = new Map<string, number>();
    const partner = new Map<string, () => void>();
    const base = await listen(
      receiver(applied, async (id) => {
        if (seen.has(id)) return;
        const n = (checked.get(id) ?? 0) + 1;
        checked.set(id, n);
        if (n > 1) partner.get(id)?.();
        else if (Math.random() < 0.5) {
          // In about half the rounds, never the same ones, the database round trip between check and insert lasts
          // until the other attempt has checked too: both insert. However loaded the machine, every run doubles
          // some rounds, and how many differs from run to run. (Bounded, should no other attempt come.)
          await new Promise<void>((resolve) => {
            partner.set(id, resolve);
            setTimeout(resolve, 5_000).unref();
          });
        }
        await new Promise((resolve) => setImmediate(resolve)); // the database round trip between check and insert
        seen.add(id);
        applied.set(id, (applied.get(id) ?? 0) + 1);
      }),
    );
    const {reports, xml} = await runs([`${base}/webhooks`], {
      race: 2,
      probe: (url) => url.replace(/webhooks$/, 'probe'),
    });
    for (const r of reports) expect(r.checks.find((c) => c.id === 'race')?.status).toBe('fail');
    // The figures differ from run to run; the file does not.
    expect(new Set(reports.map((r) => r.checks.find((c) => c.id === 'race')?.got)).size).toBeGreaterThan(1);
    expect(xml.size).toBe(1);
    const [file] = [...xml];
    expect(file).toContain('double application: events applied more than once by 2 attempts at once');
    expect(file).not.toMatch(/evt_|\d ms|of 100 rounds/);
  });

  it('with a burst that is a slow ack', {timeout: 120_000}, async () => {
    const slowMs = DELIVERY_TIMEOUT_MS * SLOW_ACK_BUDGET_SHARE + 200;
    const base = await listen(
      receiver(new Map(), () => new Promise((resolve) => setTimeout(resolve, slowMs))),
    );
    // The valid delivery waits out the work too, and is still answered within the budget.
    const {reports, xml} = await runs([base], {burst: '3/s:1s'});
    for (const r of reports) expect(r.burst?.slow_ack).toBe(true);
    expect(xml.size).toBe(1);
    const [file] = [...xml];
    expect(file).toContain(
      `slow ack: p99 at or past ${slowMs - 200} ms of the ${DELIVERY_TIMEOUT_MS / 1000} s budget`,
    );
    expect(file).not.toMatch(/p50 \d/);
  });
});
