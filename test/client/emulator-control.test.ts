// The control client against a real emulator over loopback HTTP: every answer of the control surface fits the
// schema both sides import (the client parses each one, so a route that drifted fails here), the relay stream
// arrives as typed messages, refusals keep their code and refused fields, and an answer of the wrong shape is
// an error rather than a value cast to the right type.
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {EmulatorControl, EmulatorControlError, type RelayMessage} from '../../src/client/emulator-control.js';
import {signPayload, verifySignature} from '../../src/webhooks/index.js';

let em: RunningEmulator;
const publicLookup = async () => [{address: '93.184.215.14', family: 4}];

beforeAll(async () => {
  em = await startEmulator({port: 0, inMemory: true, clock: 'manual', lookup: publicLookup});
});
afterAll(async () => {
  await em?.stop();
});

async function rejection(promise: Promise<unknown>): Promise<EmulatorControlError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EmulatorControlError);
  return err as EmulatorControlError;
}

describe('the control client', () => {
  it('parses every record the control surface answers with', async () => {
    const c = em.control;
    expect(await c.health()).toEqual({ok: true, org_id: em.orgId});
    const org = await c.createOrg({name: 'Second org'});
    expect(org.name).toBe('Second org');

    const key = await c.createKey({name: 'ci', expires: '30'});
    expect(key.secret.startsWith(key.prefix)).toBe(true);
    expect((await c.revokeKey(key.id)).status).toBe('revoked');

    // Subscribed to an event this test never emits: nothing is sent to the address.
    const hook = await c.createWebhook({url: 'https://hooks.example.com/a', events: ['sandbox.expired']});
    expect(hook).toMatchObject({
      url: 'https://hooks.example.com/a',
      events: ['sandbox.expired'],
      warnings: [],
    });
    const settings = {duplicate: 0.5, reorder: 0, delay_min_ms: 0, delay_max_ms: 0, seed: 7};
    expect(await c.setChaos(hook.id, settings)).toEqual({
      endpoint_id: hook.id,
      chaos: settings,
      source: 'endpoint',
    });
    expect((await c.getChaos(hook.id)).source).toBe('endpoint');
    expect(await c.setChaos(hook.id, null)).toEqual({endpoint_id: hook.id, chaos: null, source: 'none'});

    const clock = await c.clock();
    expect(clock.mode).toBe('manual');
    const later = await c.advanceClock('1h');
    expect(new Date(later.now).getTime() - new Date(clock.now).getTime()).toBe(3_600_000);
    expect((await c.setClock('2030-01-01T00:00:00.000Z')).now).toBe('2030-01-01T00:00:00.000Z');
    expect(await c.resetLimiter()).toEqual({reset: true});

    const triggered = await c.trigger({type: 'sandbox.ready'});
    expect(triggered.event?.type).toBe('sandbox.ready');
    expect(triggered.deliveries).toBe(0);
    const created = await c.createSandbox({name: 'box'});
    expect(created.sandbox.name).toBe('box');
    const stopped = await c.sandboxAction(created.sandbox.id, 'stop');
    expect(stopped.sandbox.id).toBe(created.sandbox.id);
    expect((await c.listSandboxes()).data.map((s) => s.id)).toContain(created.sandbox.id);
    expect((await c.listLinks()).data).toEqual([]);

    await c.deleteWebhook(hook.id);
    expect((await rejection(c.getChaos(hook.id))).code).toBe('not_found');
  });

  it('streams a relay endpoint’s deliveries as typed messages and takes the answer back', async () => {
    const c = em.control;
    const relay = await c.registerRelay({name: 'client-test', events: ['sandbox.error']});
    const cut = new AbortController();
    const stream = c.relayStream(relay.endpoint_id, {signal: cut.signal});
    const first = await stream.next();
    expect(first.value).toEqual({type: 'connected', endpoint_id: relay.endpoint_id});

    const triggered = await c.trigger({type: 'sandbox.error', last_error: 'boom'});
    let delivery: Extract<RelayMessage, {type: 'delivery'}> | undefined;
    for (let next = await stream.next(); !next.done; next = await stream.next()) {
      if (next.value.type === 'delivery') {
        delivery = next.value;
        break;
      }
    }
    expect(delivery?.event_id).toBe(triggered.event?.id);
    // What the stream hands over is signed by the relay endpoint's secret, over the bytes as sent.
    const header = delivery?.headers['svc-signature'] as string;
    const t = Number(/^t=(\d+)/.exec(header)?.[1]);
    expect(
      verifySignature({secret: relay.secret, payload: delivery?.body as string, header, now: t}),
    ).toEqual({
      timestamp: t,
      secretIndex: 0,
    });
    expect(header).toBe(signPayload({secret: relay.secret, payload: delivery?.body as string, timestamp: t}));

    await c.reportRelayResult(relay.endpoint_id, {
      delivery_id: delivery?.delivery_id as string,
      attempt: delivery?.attempt as number,
      status_code: 204,
      error: null,
      duration_ms: 3,
      body: '',
    });
    cut.abort();
    await c.waitForDelivery({delivery_id: delivery?.delivery_id as string, attempts: 1});
    const detail = await c.delivery(delivery?.delivery_id as string);
    expect(detail.endpoint_id).toBe(relay.endpoint_id);
    expect(detail.event).toEqual(JSON.parse(delivery?.body as string));
    expect(detail.delivery.status).toBe('succeeded');
    expect(detail.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        trigger: 'scheduled',
        status_code: 204,
        duration_ms: 3,
        signature_t: t,
      }),
    ]);
    // A resend goes to the relay as well; with the stream cut, it is recorded as failed, with the reason.
    const resent = await c.resendDelivery(delivery?.delivery_id as string);
    expect(resent.attempts.at(-1)).toMatchObject({attempt: 2, trigger: 'manual', status_code: null});
  });

  it('keeps the code and each refused field of a refusal', async () => {
    const err = await rejection(em.control.createWebhook({url: 'http://localhost:3000/h', events: ['nope']}));
    expect(err.status).toBe(400);
    expect(err.code).toBe('invalid_request');
    expect(err.problems).toEqual([
      expect.objectContaining({field: 'url', code: 'local_url'}),
      expect.objectContaining({field: 'events'}),
    ]);
  });
});

describe('answers that do not fit', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/_emulator/clock') res.end(JSON.stringify({now: 42, mode: 'sometimes'}));
      else if (req.url === '/_emulator/health') res.end('not json');
      else {
        res.statusCode = 502;
        res.end('<html>bad gateway</html>');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('are errors naming what is wrong, not values of the wrong type', async () => {
    const c = new EmulatorControl({url, adminToken: 'x'});
    const wrongShape = await rejection(c.clock());
    expect(wrongShape.code).toBe('invalid_response');
    expect(wrongShape.message).toMatch(/\/_emulator\/clock does not have the expected shape at (now|mode)/);
    expect((await rejection(c.health())).code).toBe('invalid_response');
    const notOurs = await rejection(c.delivery('dlv_000000000000000000000000'));
    expect({status: notOurs.status, code: notOurs.code}).toEqual({status: 502, code: 'error'});
  });

  it('says so when nothing answers', async () => {
    const gone = new EmulatorControl({url: 'http://127.0.0.1:9', adminToken: 'x'});
    const err = await rejection(gone.health());
    expect({status: err.status, code: err.code}).toEqual({status: 0, code: 'unreachable'});
  });
});

describe('redirects', () => {
  // An address that answers every control request with a redirect to another origin, which records what reaches it.
  let redirector: Server;
  let elsewhere: Server;
  let url: string;
  const reached: {method?: string; url?: string; body: string; authorization?: string}[] = [];
  const listen = async (server: Server) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  beforeAll(async () => {
    elsewhere = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        reached.push({method: req.method, url: req.url, body, authorization: req.headers.authorization});
        res.setHeader('content-type', 'application/json');
        res.end('{}');
      });
    });
    const other = await listen(elsewhere);
    redirector = createServer((req, res) => {
      // 307 and 308 keep the method and the body: a client following them posts both to the new address.
      res.statusCode = req.url?.startsWith('/_emulator/relay/') ? 302 : 307;
      res.setHeader('location', `${other}${req.url}`);
      res.end();
    });
    url = await listen(redirector);
  });
  afterAll(async () => {
    await new Promise((resolve) => redirector.close(resolve));
    await new Promise((resolve) => elsewhere.close(resolve));
  });

  it('are refused like the API client refuses them: no body and no token goes to another origin', async () => {
    const c = new EmulatorControl({url, adminToken: 'adm_secret-token-of-the-emulator'});
    const imported = await rejection(
      c.importState({document: {version: 1, orgs: []}, source: 'secrets.json', mode: 'merge'}),
    );
    expect({status: imported.status, code: imported.code}).toEqual({
      status: 307,
      code: 'unexpected_redirect',
    });
    expect(imported.message).toContain(
      `the emulator at ${url} answered with a redirect (307), which svc does not follow`,
    );
    expect((await rejection(c.createKey({name: 'ci'}))).code).toBe('unexpected_redirect');
    expect((await rejection(c.clock())).code).toBe('unexpected_redirect');
    const stream = c.relayStream('whk_000000000000000000000000');
    expect((await rejection(stream.next())).code).toBe('unexpected_redirect');
    expect(reached).toEqual([]);
  });
});
