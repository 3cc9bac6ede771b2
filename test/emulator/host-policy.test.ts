// The names the emulator answers to: every request addressed to another name (DNS rebinding) is refused before
// any route runs, and a form's Origin must name the emulator too.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../emulator/index.js';
import {createHostPolicy} from '../../emulator/net/host-policy.js';
import {rawGet} from '../helpers/raw-get.js';

describe('createHostPolicy', () => {
  const local = createHostPolicy({boundHost: '127.0.0.1', allowedHosts: ['Box.Internal']});

  it.each([
    'localhost',
    'localhost:4010',
    '127.0.0.1:4010',
    '[::1]:4010',
    'box.internal',
    'BOX.internal:8080',
  ])('allows %s', (host) => expect(local.allows(host)).toBe(true));

  it.each([
    ['a rebound name', 'rebind.example.com:4010'],
    ['a subdomain of an allowed name', 'x.box.internal'],
    ['localhost with a trailing dot', 'localhost.:4010'],
    ['a .localhost name', 'app.localhost'],
    ['another address', '192.168.1.5:4010'],
    ['user info', 'user@127.0.0.1'],
    ['a path', '127.0.0.1/x'],
    ['nothing', ''],
  ])('refuses %s', (_what, host) => expect(local.allows(host)).toBe(false));

  it('says loopback is not exposed and every interface is', () => {
    expect(local.exposed).toBe(false);
    expect(createHostPolicy({boundHost: '0.0.0.0'}).exposed).toBe(true);
    expect(createHostPolicy({boundHost: '::'}).exposed).toBe(true);
    expect(createHostPolicy({boundHost: '192.168.1.5'}).exposed).toBe(true);
    expect(createHostPolicy({boundHost: '::1'}).exposed).toBe(false);
  });

  it('on every interface allows addresses typed as numbers, which cannot be rebound, but not other names', () => {
    const all = createHostPolicy({boundHost: '0.0.0.0'});
    expect(all.allows('192.168.1.5:4010')).toBe(true);
    expect(all.allows('[fe80::1]:4010')).toBe(true);
    expect(all.allows('0.0.0.0:4010')).toBe(true);
    expect(all.allows('my-box.lan:4010')).toBe(false);
  });

  it('allows the address it listens on', () => {
    expect(createHostPolicy({boundHost: '192.168.1.5'}).allows('192.168.1.5:4010')).toBe(true);
    expect(createHostPolicy({boundHost: '::1'}).allows('[::1]:4010')).toBe(true);
  });

  it.each(['http://box/', 'box/path', 'a b', ''])('refuses --allowed-host %j with the fix', (name) => {
    expect(() => createHostPolicy({boundHost: '127.0.0.1', allowedHosts: [name]})).toThrow(/--allowed-host/);
  });
});

describe('the host check on a running emulator', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({port: 0, inMemory: true, allowedHosts: ['box.internal']});
  }, 60_000);
  afterAll(() => emu?.stop());

  const get = (path: string, host: string, authorization?: string) =>
    rawGet(new URL(path, emu.apiUrl), {headers: {host}, authorization});

  it.each(['/account', '/account/mailbox', '/_emulator/health', '/v1/org', '/no-such-route'])(
    'answers 421 misdirected_request on %s for a foreign name',
    async (path) => {
      const answer = await get(path, 'rebind.example.com');
      expect(answer.status).toBe(421);
      const body = JSON.parse(answer.body) as {error: {code: string; message: string}};
      expect(body.error.code).toBe('misdirected_request');
      expect(body.error.message).toContain('--allowed-host');
    },
  );

  it('serves the loopback names and the names it was given', async () => {
    const port = new URL(emu.apiUrl).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `box.internal:${port}`]) {
      expect((await get('/account/mailbox', host)).status, host).toBe(200);
      expect((await get('/_emulator/health', host, `Bearer ${emu.adminToken}`)).status, host).toBe(200);
    }
  });

  it("refuses a form whose Origin names another site, even when the Host is the emulator's", async () => {
    const page = await fetch(`${emu.apiUrl}/account`);
    const cookie = (page.headers.getSetCookie()[0] as string).split(';')[0] as string;
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] as string;
    const post = (origin: string) =>
      fetch(`${emu.apiUrl}/account/login`, {
        method: 'POST',
        headers: {cookie, origin, 'content-type': 'application/x-www-form-urlencoded'},
        body: new URLSearchParams({csrf, email: 'someone@example.com'}),
      }).then((r) => r.status);
    const port = new URL(emu.apiUrl).port;
    expect(await post(`http://rebind.example.com:${port}`)).toBe(403);
    expect(await post(`http://localhost:${Number(port) + 1}`)).toBe(403);
    expect(await post(emu.apiUrl)).toBe(200);
  });
});
