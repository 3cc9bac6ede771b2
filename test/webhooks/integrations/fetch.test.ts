// @svc/webhooks/fetch behind Hono on loopback receiving real signed deliveries from the emulator, and the
// same handler called with plain Request objects, as Next.js route handlers and workers call it.
import type {AddressInfo} from 'node:net';
import {serve} from '@hono/node-server';
import {Hono} from 'hono';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {signPayload} from '../../../src/webhooks/index.js';
import {createFetchHandler} from '../../../src/webhooks/fetch.js';
import {type DeliveryRig, newRecord, post, startRig, svcHeaders, tampered} from './helpers.js';

const record = newRecord();
let server: ReturnType<typeof serve>;
let url: string;
let rig: DeliveryRig;
let handler: ReturnType<typeof createFetchHandler>;

beforeAll(async () => {
  const app = new Hono();
  app.post('/webhooks', async (c) => {
    // A copy of the bytes for the test; the handler gets the untouched request.
    const copy = c.req.raw.clone();
    record.raw.push({
      headers: svcHeaders((n) => c.req.raw.headers.get(n)),
      body: Buffer.from(await copy.arrayBuffer()),
    });
    return handler(c.req.raw);
  });
  server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({fetch: app.fetch, port: 0, hostname: '127.0.0.1'}, () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  rig = await startRig(url, record);
  handler = createFetchHandler({
    secret: rig.secret,
    onEvent: (event) => {
      record.handled.push(event);
    },
    onError: () => undefined,
  });
});

afterAll(async () => {
  await rig?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

function request(body: BodyInit, headers: Record<string, string>, method = 'POST'): Request {
  return new Request('https://receiver.example/webhooks', {
    method,
    headers,
    body: method === 'POST' ? body : null,
  });
}

describe('@svc/webhooks/fetch behind Hono', () => {
  it('verifies real deliveries and hands the typed events to the function', async () => {
    const a = await rig.trigger('sandbox.ready');
    const b = await rig.trigger('sandbox.stopped');
    expect(record.handled.map((e) => e.id)).toEqual([a, b]);
    expect(record.handled[1]?.type).toBe('sandbox.stopped');
  });

  it('acknowledges a replay with 200 without calling the function again', async () => {
    await rig.delivered(1);
    const calls = record.handled.length;
    expect(await post(url, (await rig.delivered(1))[0]!)).toEqual({
      status: 200,
      body: {received: true, duplicate: true},
    });
    expect(record.handled.length).toBe(calls);
  });

  it('answers 400 with the reason for a tampered body', async () => {
    expect(await post(url, (await rig.delivered(2))[1]!, tampered((await rig.delivered(2))[1]!))).toEqual({
      status: 400,
      body: {error: {code: 'signature_mismatch', message: 'no v1 signature matches this body'}},
    });
  });
});

describe('@svc/webhooks/fetch with plain Request objects', () => {
  it('handles a new event, then acknowledges it as a duplicate', async () => {
    const calls: string[] = [];
    const receive = createFetchHandler({secret: rig.secret, onEvent: (e) => void calls.push(e.id)});
    const {body} = (await rig.delivered(1))[0]!;
    const headers = {'svc-signature': signPayload({secret: rig.secret, payload: body})};
    const first = await receive(request(body, headers));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json');
    expect(await first.json()).toEqual({received: true});
    const second = await receive(request(body, headers));
    expect(await second.json()).toEqual({received: true, duplicate: true});
    expect(calls).toHaveLength(1);
  });

  it('rejects an old timestamp, a missing header and a GET with the right status and reason', async () => {
    const receive = createFetchHandler({
      secret: rig.secret,
      onEvent: () => undefined,
      onError: () => undefined,
    });
    const {body} = (await rig.delivered(1))[0]!;
    const old = signPayload({
      secret: rig.secret,
      payload: body,
      timestamp: Math.floor(Date.now() / 1000) - 600,
    });
    const stale = await receive(request(body, {'svc-signature': old}));
    expect(stale.status).toBe(400);
    expect(await stale.json()).toMatchObject({error: {code: 'timestamp_outside_tolerance'}});
    const bare = await receive(request(body, {}));
    expect(await bare.json()).toMatchObject({error: {code: 'missing_header'}});
    const get = await receive(request('', {}, 'GET'));
    expect(get.status).toBe(405);
  });

  it('answers 500 when the function throws, so the sender retries', async () => {
    const receive = createFetchHandler({
      secret: rig.secret,
      onEvent: () => {
        throw new Error('queue full');
      },
      onError: () => undefined,
    });
    const {body} = (await rig.delivered(1))[0]!;
    const res = await receive(
      request(body, {'svc-signature': signPayload({secret: rig.secret, payload: body})}),
    );
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({error: {code: 'handler_failed'}});
  });

  it('throws a clear error when the body was already read', async () => {
    const receive = createFetchHandler({secret: rig.secret, onEvent: () => undefined});
    const req = request((await rig.delivered(1))[0]!.body, {});
    await req.json();
    await expect(receive(req)).rejects.toThrow(/body was already read/);
  });
});
