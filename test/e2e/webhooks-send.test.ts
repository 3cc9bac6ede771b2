// `svc webhooks send` as a user runs it (the built CLI, in-process), posting to real receivers on loopback. The
// receiver here judges each delivery with the receiver library, so a wrong signature or header would show.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {EventSchema} from '../../src/schemas/index.js';
import {verifySignature, type WebhookVerificationError} from '../../src/webhooks/index.js';
import {answer, type Receiver, startReceiver} from '../emulator/delivery/helpers.js';
import {runCommand} from '../helpers/run-cli.js';

const SECRET = 'whsec_c2VuZC10ZXN0LXNlY3JldC0wMTIzNDU2Nzg5YWJjZGVmZ2hpams=';
const env = {SVC_WEBHOOK_SECRET: SECRET};
const nowSeconds = () => Math.floor(Date.now() / 1000);

let receiver: Receiver;
let redirecting: Receiver;
let chatty: Receiver;

beforeAll(async () => {
  // Answers 204 to what verifies now, 400 with the reason to anything else.
  receiver = await startReceiver((req, res) => {
    try {
      verifySignature({payload: req.body, header: req.headers['svc-signature'], secret: SECRET});
      res.writeHead(204).end();
    } catch (err) {
      res.writeHead(400, {'content-type': 'application/json'});
      res.end(JSON.stringify({error: (err as WebhookVerificationError).reason}));
    }
  });
  redirecting = await startReceiver(answer(308, 'moved', {location: `${receiver.url}/moved`}));
  chatty = await startReceiver(answer(200, 'x'.repeat(10_000)));
});

afterAll(async () => {
  await Promise.all([receiver?.close(), redirecting?.close(), chatty?.close()]);
});

function expectNoSecret(r: {stdout: string; stderr: string}) {
  expect(r.stdout).not.toContain(SECRET);
  expect(r.stderr).not.toContain(SECRET);
}

describe('svc webhooks send', () => {
  it('posts a sample event of the type with every Svc-* header, signed so that the library accepts it', async () => {
    const before = receiver.requests.length;
    const r = await runCommand(
      ['webhooks', 'send', `${receiver.url}/hooks`, '--type', 'sandbox.error', '--json'],
      {env},
    );
    expect(r.code).toBe(0);
    expectNoSecret(r);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({status_code: 204, accepted: true, error: null, event_type: 'sandbox.error'});
    expect(receiver.requests.length).toBe(before + 1);
    const got = receiver.requests.at(-1)!;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/hooks');
    const event = EventSchema.parse(JSON.parse(got.body.toString('utf8')));
    expect(event).toMatchObject({
      id: out.event_id,
      type: 'sandbox.error',
      data: {sandbox: {status: 'error'}},
    });
    expect(got.headers).toMatchObject({
      'content-type': 'application/json',
      'svc-event-id': out.event_id,
      'svc-event-type': 'sandbox.error',
      'svc-delivery-id': out.delivery_id,
      'svc-delivery-attempt': '1',
    });
    expect(out.delivery_id).toMatch(/^dlv_[0-9A-Za-z]{24}$/);
    expect(Math.abs(out.signature_t - nowSeconds())).toBeLessThan(60);
    expect(out.body_bytes).toBe(got.body.length);
  });

  it('signs a body of its own from stdin byte for byte, announcing the id it carries', async () => {
    const body = '{"id":"evt_OwnOwnOwnOwnOwnOwnOwnOwn12","type":"sandbox.expired","weird": true}\r\n';
    const r = await runCommand(['webhooks', 'send', receiver.url, '--data', '-', '--json'], {
      env,
      input: body,
    });
    expect(r.code).toBe(0);
    const got = receiver.requests.at(-1)!;
    expect(got.body.toString('utf8')).toBe(body);
    expect(got.headers['svc-event-id']).toBe('evt_OwnOwnOwnOwnOwnOwnOwnOwn12');
    expect(got.headers['svc-event-type']).toBe('sandbox.expired');
  });

  it('uses the timestamp given; one the receiver finds stale is shown with its answer and exits 1', async () => {
    const t = nowSeconds() - 301;
    const r = await runCommand(['webhooks', 'send', receiver.url, '--timestamp', String(t)], {env});
    expect(r.code).toBe(1);
    expect(receiver.requests.at(-1)!.headers['svc-signature']).toMatch(
      new RegExp(`^t=${t},v1=[0-9a-f]{64}$`),
    );
    expect(r.stdout).toContain(`t=${t}`);
    expect(r.stdout).toMatch(/✗ 400 Bad Request in \d+ ms/);
    expect(r.stdout).toContain('{"error":"timestamp_outside_tolerance"}');
    expect(r.stderr).toMatch(/retries/);
    expectNoSecret(r);
  });

  it('takes an ISO 8601 timestamp and refuses one that is neither form', async () => {
    const iso = await runCommand(
      ['webhooks', 'send', receiver.url, '--timestamp', '2026-01-01T00:00:00Z', '--json'],
      {env},
    );
    expect(JSON.parse(iso.stdout).signature_t).toBe(1767225600);
    const bad = await runCommand(['webhooks', 'send', receiver.url, '--timestamp', 'yesterday'], {env});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/neither Unix seconds nor an ISO/);
  });

  it('does not follow a redirect: it reports it, and the target never sees the delivery', async () => {
    const before = receiver.requests.length;
    const r = await runCommand(['webhooks', 'send', redirecting.url, '--json'], {env});
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({status_code: 308, accepted: false});
    expect(out.error).toMatch(/redirect \(308 to .*\/moved\) not followed/);
    expect(receiver.requests.length).toBe(before);
  });

  it('keeps the first 4 kB of a long answer and says it was cut', async () => {
    const r = await runCommand(['webhooks', 'send', chatty.url, '--json'], {env});
    const out = JSON.parse(r.stdout);
    expect(out.response_body).toBe('x'.repeat(4096));
    expect(out.response_truncated).toBe(true);
  });

  it('says nothing answered when nothing listens there, and exits 1', async () => {
    const closed = await startReceiver();
    await closed.close();
    const r = await runCommand(['webhooks', 'send', closed.url], {env});
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/ECONNREFUSED/);
    expect(r.stderr).toMatch(/Nothing answered/);
  });

  it('refuses an API key given as the secret, and a missing secret, without echoing either', async () => {
    const apiKey = 'svc_0123456789abcdefghijABCDEFGHIJ0123456789';
    const wrong = await runCommand(['webhooks', 'send', receiver.url], {env: {SVC_WEBHOOK_SECRET: apiKey}});
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/an API key, not a signing secret/);
    expect(wrong.stderr + wrong.stdout).not.toContain(apiKey);
    const none = await runCommand(['webhooks', 'send', receiver.url, '--json']);
    expect(none.code).toBe(2);
    expect(JSON.parse(none.stdout).error.message).toMatch(/SVC_WEBHOOK_SECRET/);
  });

  it('refuses a URL that is not http(s) and an unknown type as usage errors', async () => {
    const ftp = await runCommand(['webhooks', 'send', 'ftp://127.0.0.1/x'], {env});
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toMatch(/http:\/\/ or https:\/\//);
    const type = await runCommand(['webhooks', 'send', receiver.url, '--type', 'sandbox.exploded'], {env});
    expect(type.code).toBe(2);
  });
});
