// @svc/webhooks/express in a real Express app receiving real signed deliveries from the emulator.
import type {Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import express from 'express';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {ParsedBodyError, svcWebhooks} from '../../../src/webhooks/express.js';
import {type DeliveryRig, newRecord, post, startRig, svcHeaders, tampered} from './helpers.js';

const record = newRecord();
const setupErrors: unknown[] = [];
let server: Server;
let base: string;
let rig: DeliveryRig;

beforeAll(async () => {
  const app = express();
  let middleware: ReturnType<typeof svcWebhooks> | undefined;
  // Records the bytes as they arrive without consuming them for the handler.
  app.use((req, _res, next) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () =>
      record.raw.push({headers: svcHeaders((n) => req.get(n)), body: Buffer.concat(chunks)}),
    );
    next();
  });
  app.post('/webhooks', (req, res, next) => middleware?.(req, res, next));
  // The mistake users make most: a JSON parser in front of the webhook route.
  app.post('/parsed', express.json(), (req, res, next) => middleware?.(req, res, next));
  // express.raw() in front is fine: the bytes survive.
  app.post('/raw', express.raw({type: 'application/json'}), (req, res, next) => middleware?.(req, res, next));
  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    setupErrors.push(err);
    res.status(500).json({error: {code: 'setup', message: (err as Error).message}});
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  rig = await startRig(`${base}/webhooks`, record);
  middleware = svcWebhooks({
    secret: rig.secret,
    onEvent: (event) => {
      record.handled.push(event);
    },
    onError: () => undefined,
  });
});

afterAll(async () => {
  await rig?.stop();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

describe('@svc/webhooks/express', () => {
  it('verifies real deliveries and hands the typed events to the function', async () => {
    const id = await rig.trigger('sandbox.error');
    expect(record.handled.at(-1)).toMatchObject({id, type: 'sandbox.error', org_id: rig.emulator.orgId});
  });

  it('acknowledges a replay with 200 and does not call the function again', async () => {
    await rig.delivered(1);
    const calls = record.handled.length;
    expect(await post(`${base}/webhooks`, (await rig.delivered(1))[0]!)).toEqual({
      status: 200,
      body: {received: true, duplicate: true},
    });
    expect(record.handled.length).toBe(calls);
  });

  it('answers 400 with the reason for a tampered body', async () => {
    const res = await post(
      `${base}/webhooks`,
      (await rig.delivered(1))[0]!,
      tampered((await rig.delivered(1))[0]!),
    );
    expect(res).toEqual({
      status: 400,
      body: {error: {code: 'signature_mismatch', message: 'no v1 signature matches this body'}},
    });
  });

  it('accepts the bytes kept by express.raw() in front of it', async () => {
    const id = await rig.trigger('sandbox.expired');
    const delivery = record.raw.find((r) => r.headers['svc-event-id'] === id)!;
    const calls = record.handled.length;
    // Already handled through /webhooks: the same event through /raw is a verified duplicate.
    expect(await post(`${base}/raw`, delivery)).toEqual({
      status: 200,
      body: {received: true, duplicate: true},
    });
    expect(record.handled.length).toBe(calls);
  });

  it('says clearly that a JSON parser ran first, instead of failing every signature', async () => {
    const res = await post(`${base}/parsed`, (await rig.delivered(1))[0]!);
    expect(res.status).toBe(500);
    const err = setupErrors.at(-1);
    expect(err).toBeInstanceOf(ParsedBodyError);
    expect((err as Error).message).toMatch(/express\.json\(\).*before the svc webhook handler/);
    expect((err as Error).message).toMatch(/Register the webhook route before app\.use\(express\.json\(\)\)/);
  });
});
