// Backends: a stream is cut on word of a committed write, which on PostgreSQL also comes by NOTIFY from the tables'
// triggers, and the link's key, sandbox and expiry are read back with PostgreSQL's own queries and clock.
// What flows through a port session over real HTTP: a server-sent-events stream and a WebSocket are cut the moment
// their link stops working (its key revoked or expired, its sandbox stopped or expired), while other links' traffic
// flows on; an app that does not answer gets 504; the app is told where a request came from by the emulator, never
// by the client; each request is in the request log without its token; and the port session is served at its own
// name only. Runs on PGlite and on PostgreSQL (shown skipped, with why, where there is none).
import {afterAll, beforeAll, beforeEach, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {accountOrigin} from '../../src/client/account-address.js';
import {EMULATOR_BACKENDS} from '../helpers/emulator-backends.js';
import {localhostFetch} from '../helpers/localhost-fetch.js';
import {describeEachBackend} from '../helpers/requirements.js';
import {type App, openStream, openWebSocket, startApp} from './link-app.js';

const START = new Date('2031-05-01T12:00:00.000Z');
describeEachBackend(EMULATOR_BACKENDS, 'traffic through port sessions on $name', (backend) => {
  let emu: RunningEmulator;
  let app: App;
  let dispose: () => Promise<void> = async () => {};
  let n = 0;

  beforeAll(async () => {
    const opened = await backend.options();
    dispose = opened.dispose;
    app = await startApp();
    emu = await startEmulator({
      ...opened.options,
      port: 0,
      clock: 'manual',
      clockStart: START,
      portSessionAnswerTimeoutMs: 300,
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await emu?.stop();
    await app?.close();
    await dispose();
  });
  beforeEach(async () => {
    await emu.control.resetLimiter();
  });

  const setUp = async (o: {expires?: '30'; sandboxExpiresIn?: string} = {}) => {
    const {sandbox} = await emu.control.createSandbox({
      name: 'dev',
      ...(o.sandboxExpiresIn ? {expires_in: o.sandboxExpiresIn} : {}),
    });
    const key = await emu.control.createKey({name: 'ci', ...(o.expires ? {expires: o.expires} : {})});
    const link = await emu.control.createLink(sandbox.id, {kind: 'port', key_id: key.id, port: app.port});
    return {sandbox, key, link};
  };
  const uniquePath = () => `/events/${++n}`;
  const stream = async (linkUrl: string) => {
    const path = uniquePath();
    return {path, ...(await openStream(`${linkUrl}${path.slice(1)}`))};
  };

  it('cuts an event stream the moment its key is revoked, and no other link’s', async () => {
    const {key, link} = await setUp();
    const other = await setUp();
    const doomed = await stream(link.url);
    const kept = await stream(other.link.url);
    await emu.control.revokeKey(key.id);
    await doomed.ended();
    await app.streamClosed(doomed.path);
    app.send(kept.path, 'still here');
    expect(await kept.next()).toBe('data: still here\n\n');
  });

  it('cuts an event stream the moment its sandbox stops', async () => {
    const {sandbox, link} = await setUp();
    const open = await stream(link.url);
    await emu.control.sandboxAction(sandbox.id, 'stop');
    await open.ended();
    await app.streamClosed(open.path);
  });

  it('cuts an event stream when the clock passes its key’s expiry, or its sandbox’s', async () => {
    const byKey = await setUp({expires: '30'});
    const bySandbox = await setUp({sandboxExpiresIn: '10m'});
    const keyStream = await stream(byKey.link.url);
    const sandboxStream = await stream(bySandbox.link.url);
    await emu.control.advanceClock('10m');
    await sandboxStream.ended();
    app.send(keyStream.path, 'before expiry');
    expect(await keyStream.next()).toBe('data: before expiry\n\n');
    await emu.control.advanceClock('30d');
    await keyStream.ended();
    await app.streamClosed(keyStream.path);
  });

  it('forwards a WebSocket upgrade, and cuts the connection when its key is revoked', async () => {
    const {key, link} = await setUp();
    const before = app.upgradesClosed.length;
    const ws = await openWebSocket(link.url, 'socket');
    expect(ws.head).toMatch(/^HTTP\/1\.1 101 /);
    expect(ws.head).toContain('Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
    await ws.echo('hello through the link');
    await emu.control.revokeKey(key.id);
    await ws.closed;
    await app.upgradesClosed[before];
    const refused = await openWebSocket(link.url, 'socket');
    expect(refused.head).toMatch(/^HTTP\/1\.1 403 /);
  });

  it('answers 504 when the app does not start answering in time', async () => {
    const {link} = await setUp();
    const res = await localhostFetch(`${link.url}silent`);
    expect(res.status).toBe(504);
    const body = (await res.json()) as {error: {code: string; message: string}};
    expect(body.error.code).toBe('gateway_timeout');
    expect(body.error.message).toContain(`port ${app.port} of the sandbox did not start answering`);
  });

  it('refuses, with 409 and never a 500, a stored port session whose port is none it can forward to', async () => {
    const {link} = await setUp();
    const emulatorPort = Number(new URL(emu.apiUrl).port);
    for (const port of [70_000, -5, emulatorPort, null]) {
      await emu.db.query('UPDATE sandbox_links SET port = $1 WHERE id = $2', [port, link.id]);
      const res = await localhostFetch(`${link.url}x`);
      expect(res.status, String(port)).toBe(409);
      const body = (await res.json()) as {error: {code: string; message: string}};
      expect(body.error.code).toBe('conflict');
      expect(body.error.message).toContain(`names port ${port}`);
    }
  });

  it('tells the app where a request came from itself, replacing what the client claimed', async () => {
    const {link} = await setUp();
    const res = await localhostFetch(`${link.url}headers`, {
      headers: {
        forwarded: 'for=203.0.113.9;host=bank.example;proto=https',
        'x-forwarded-for': '203.0.113.9',
        'x-forwarded-host': 'bank.example',
        'x-forwarded-proto': 'https',
        'x-forwarded-port': '443',
        'x-real-ip': '203.0.113.9',
      },
    });
    const {headers} = (await res.json()) as {headers: Record<string, string>};
    const host = new URL(link.url).host;
    expect(headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(headers['x-forwarded-host']).toBe(host);
    expect(headers['x-forwarded-proto']).toBe('http');
    expect(headers.forwarded).toBe(`for=127.0.0.1;host="${host}";proto=http`);
    expect(headers['x-forwarded-port']).toBeUndefined();
    expect(headers['x-real-ip']).toBeUndefined();
    expect(JSON.stringify(headers)).not.toContain('203.0.113.9');
  });

  it('logs each request through a link, without its token', async () => {
    const {link} = await setUp();
    const token = new URL(link.url).pathname.split('/')[2] as string;
    const after = (await emu.control.logs()).last;
    expect((await localhostFetch(`${link.url}logged/path?q=1`)).status).toBe(200);
    const entries = (await emu.control.logs({after})).data;
    expect(entries).toEqual([
      expect.objectContaining({method: 'GET', path: '/_links/…/logged/path', status: 200}),
    ]);
    expect(JSON.stringify((await emu.control.logs()).data)).not.toContain(token);
  });

  it('serves a port session at its own name only, and nothing else there', async () => {
    const {link} = await setUp();
    const other = await setUp();
    const url = new URL(link.url);
    const port = Number(url.port);
    // At the account page's own name and at the loopback names, the browser is sent to the link's own name.
    for (const origin of [accountOrigin(port), emu.apiUrl, `http://localhost:${port}`]) {
      const res = await localhostFetch(`${origin}${url.pathname}x?y=1`, {redirect: 'manual'});
      expect(res.status, origin).toBe(308);
      expect(res.headers.get('location'), origin).toBe(`${url.origin}${url.pathname}x?y=1`);
      expect(await res.text(), origin).not.toContain('headers');
    }
    // At the link's own name: nothing of the page, the mailbox, the control surface or another link.
    for (const path of ['/account/mailbox', '/account', '/_emulator/openapi.json', '/v1/webhooks', '/']) {
      const res = await localhostFetch(`${url.origin}${path}`, {redirect: 'manual'});
      expect(res.status, path).toBe(404);
    }
    const otherPath = new URL(other.link.url).pathname;
    expect((await localhostFetch(`${url.origin}${otherPath}`)).status).toBe(404);
  });
});
