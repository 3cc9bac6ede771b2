// @svc/webhooks/node on a real node:http server receiving real signed deliveries from the emulator.
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {createNodeHandler, type DeliveryContext} from '../../../src/webhooks/node.js';
import {signPayload} from '../../../src/webhooks/index.js';
import {type DeliveryRig, newRecord, post, startRig, svcHeaders, tampered} from './helpers.js';

const record = newRecord();
const contexts: DeliveryContext[] = [];
const rejected: unknown[] = [];
let server: Server;
let url: string;
let rig: DeliveryRig;
let secret = '';

beforeAll(async () => {
  // The secret is known only once the endpoint exists, and the endpoint needs the server's URL.
  let handler: ReturnType<typeof createNodeHandler> | undefined;
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () =>
      record.raw.push({headers: svcHeaders((n) => req.headers[n] as string), body: Buffer.concat(chunks)}),
    );
    void handler?.(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  rig = await startRig(url, record);
  secret = rig.secret;
  handler = createNodeHandler({
    secret,
    onEvent: (event, delivery) => {
      record.handled.push(event);
      contexts.push(delivery);
    },
    onError: (err) => rejected.push(err),
  });
});

afterAll(async () => {
  await rig?.stop();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

describe('@svc/webhooks/node', () => {
  it('hands each real delivery to the function as a typed event, with its delivery id and attempt', async () => {
    const ready = await rig.trigger('sandbox.ready');
    const stopped = await rig.trigger('sandbox.stopped');
    expect(record.handled.map((e) => [e.id, e.type])).toEqual([
      [ready, 'sandbox.ready'],
      [stopped, 'sandbox.stopped'],
    ]);
    expect(record.handled[0]?.data.sandbox.status).toBe('running');
    expect(contexts[0]?.deliveryId).toMatch(/^dlv_/);
    expect(contexts[0]?.attempt).toBe(1);
  });

  it('acknowledges a replayed delivery with 200 without calling the function again', async () => {
    await rig.delivered(1);
    const calls = record.handled.length;
    const first = (await rig.delivered(1))[0]!;
    const again = await post(url, first);
    expect(again).toEqual({status: 200, body: {received: true, duplicate: true}});
    expect(record.handled.length).toBe(calls);
  });

  it('answers 400 with the reason for a tampered body, and the function never sees it', async () => {
    await rig.delivered(2);
    const calls = record.handled.length;
    const res = await post(url, (await rig.delivered(2))[1]!, tampered((await rig.delivered(2))[1]!));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {code: 'signature_mismatch', message: 'no v1 signature matches this body'},
    });
    expect(record.handled.length).toBe(calls);
    expect(rejected.at(-1)).toMatchObject({reason: 'signature_mismatch'});
  });

  it('answers 200 to an event of a type it does not list (a later service may add one) without calling the function', async () => {
    const body = (await rig.delivered(1))[0]!.body
      .toString('utf8')
      .replace(/"type":"[^"]+"/, '"type":"sandbox.resized"')
      .replace(/"id":"evt_[^"]+"/, '"id":"evt_0000000000000000000resized"');
    const calls = record.handled.length;
    const header = signPayload({secret, payload: body, timestamp: Math.floor(Date.now() / 1000)});
    const res = await post(url, {headers: {'svc-signature': header}, body: Buffer.from(body)});
    expect(res).toEqual({status: 200, body: {received: true, ignored: 'unknown_event_type'}});
    expect(record.handled.length).toBe(calls);
  });

  it('refuses a correctly signed delivery whose timestamp is outside the tolerance', async () => {
    const body = (await rig.delivered(1))[0]!.body;
    const old = signPayload({secret, payload: body, timestamp: Math.floor(Date.now() / 1000) - 301});
    const res = await post(url, {headers: {'svc-signature': old}, body});
    expect(res).toEqual({
      status: 400,
      body: {
        error: {
          code: 'timestamp_outside_tolerance',
          message: 'the signature timestamp is outside the tolerance',
        },
      },
    });
  });

  it('answers 400 missing_header without a signature, 405 to a GET', async () => {
    const res = await post(url, {headers: {}, body: (await rig.delivered(1))[0]!.body});
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({error: {code: 'missing_header'}});
    const get = await fetch(url);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('refuses a body over maxBodyBytes with 413', async () => {
    const small = createServer(createNodeHandler({secret, onEvent: () => undefined, maxBodyBytes: 64}));
    await new Promise<void>((resolve) => small.listen(0, '127.0.0.1', resolve));
    try {
      const smallUrl = `http://127.0.0.1:${(small.address() as AddressInfo).port}/`;
      const res = await post(smallUrl, (await rig.delivered(1))[0]!);
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({error: {code: 'payload_too_large'}});
    } finally {
      small.closeAllConnections();
      await new Promise((resolve) => small.close(resolve));
    }
  });
});

describe('a function that throws', () => {
  it('gets 500, and the same event runs again when the sender retries', async () => {
    const body = (await rig.delivered(1))[0]!.body;
    const header = () => signPayload({secret, payload: body});
    let calls = 0;
    const failing = createServer(
      createNodeHandler({
        secret,
        onEvent: () => {
          calls++;
          if (calls === 1) throw new Error('database down');
        },
        onError: () => undefined,
      }),
    );
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    try {
      const failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/`;
      const first = await post(failingUrl, {headers: {'svc-signature': header()}, body});
      expect(first.status).toBe(500);
      expect(first.body).toMatchObject({error: {code: 'handler_failed'}});
      const retry = await post(failingUrl, {headers: {'svc-signature': header()}, body});
      expect(retry).toEqual({status: 200, body: {received: true}});
      expect(calls).toBe(2);
    } finally {
      failing.closeAllConnections();
      await new Promise((resolve) => failing.close(resolve));
    }
  });
});
