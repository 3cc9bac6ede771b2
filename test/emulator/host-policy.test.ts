// The names the emulator answers to: every request addressed to another name (DNS rebinding) is refused before
// any route runs, and a form's Origin must name the emulator too.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {createHostPolicy} from '../../src/emulator/net/host-policy.js';
import {localhostFetch} from '../helpers/localhost-fetch.js';
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
  ])('allows %s', (host) => expect(local.allows(host, 4010)).toBe(true));

  it.each([
    ['a rebound name', 'rebind.example.com:4010'],
    ['a subdomain of an allowed name', 'x.box.internal'],
    ['localhost with a trailing dot', 'localhost.:4010'],
    ['a .localhost name', 'app.localhost'],
    ['another address', '192.168.1.5:4010'],
    ['user info', 'user@127.0.0.1'],
    ['a path', '127.0.0.1/x'],
    ['nothing', ''],
  ])('refuses %s', (_what, host) => expect(local.allows(host, 4010)).toBe(false));

  it('says loopback is not exposed and every interface is', () => {
    expect(local.exposed).toBe(false);
    expect(createHostPolicy({boundHost: '0.0.0.0'}).exposed).toBe(true);
    expect(createHostPolicy({boundHost: '::'}).exposed).toBe(true);
    expect(createHostPolicy({boundHost: '192.168.1.5'}).exposed).toBe(true);
    expect(createHostPolicy({boundHost: '::1'}).exposed).toBe(false);
  });

  it('on every interface allows addresses typed as numbers, which cannot be rebound, but not other names', () => {
    const all = createHostPolicy({boundHost: '0.0.0.0'});
    expect(all.allows('192.168.1.5:4010', 4010)).toBe(true);
    expect(all.allows('[fe80::1]:4010', 4010)).toBe(true);
    expect(all.allows('0.0.0.0:4010', 4010)).toBe(true);
    expect(all.allows('my-box.lan:4010', 4010)).toBe(false);
  });

  it('allows the address it listens on', () => {
    expect(createHostPolicy({boundHost: '192.168.1.5'}).allows('192.168.1.5:4010', 4010)).toBe(true);
    expect(createHostPolicy({boundHost: '::1'}).allows('[::1]:4010', 4010)).toBe(true);
  });

  it.each([
    ['svc-4010.localhost:4010', 4010],
    ['SVC-4010.localhost:4010', 4010],
    ['svc-80.localhost', 80],
  ] as const)('allows its own name %s, reached on port %d', (host, port) =>
    expect(local.allows(host, port)).toBe(true),
  );

  it.each([
    ['another emulator’s, on its port', 'svc-4011.localhost:4011'],
    ['another port than its name says', 'svc-4010.localhost:4011'],
    ['no port', 'svc-4010.localhost'],
    ['a leading zero', 'svc-04010.localhost:4010'],
    ['more in front', 'xsvc-4010.localhost:4010'],
    ['a name under it', 'a.svc-4010.localhost:4010'],
    ['a name ending in it', 'svc-4010.localhost.example.com:4010'],
  ])('refuses, reached on 4010, an own name with %s', (_what, host) =>
    expect(local.allows(host, 4010)).toBe(false),
  );
  it('refuses port 0 in an own name', () => expect(local.allows('svc-0.localhost:0', 0)).toBe(false));

  it('has own names only where browsers send them: 127.0.0.1, ::1 and every interface', () => {
    for (const bound of ['127.0.0.1', 'localhost', '::1', '0.0.0.0', '::']) {
      const policy = createHostPolicy({boundHost: bound});
      expect(policy.ownNames, bound).toBe(true);
      expect(policy.allows('svc-4010.localhost:4010', 4010), bound).toBe(true);
    }
    for (const bound of ['127.0.0.2', '192.168.1.5']) {
      const policy = createHostPolicy({boundHost: bound});
      expect(policy.ownNames, bound).toBe(false);
      expect(policy.allows('svc-4010.localhost:4010', 4010), bound).toBe(false);
    }
  });

  it('answers to a port session’s own name on its port, only where it has own names, and never shares it', () => {
    const name = `link-${'0a'.repeat(16)}.localhost`;
    expect(local.allows(`${name}:4010`, 4010)).toBe(true);
    expect(local.isLinkHost(`${name}:4010`, 4010)).toBe(true);
    expect(local.isShared(`${name}:4010`)).toBe(false);
    for (const host of [
      `${name}:4011`,
      `${name}`,
      `link-${'0A'.repeat(15)}.localhost:4010`,
      `a.${name}:4010`,
    ]) {
      expect(local.isLinkHost(host, 4010), host).toBe(false);
    }
    expect(local.isLinkHost('svc-4010.localhost:4010', 4010)).toBe(false);
    const elsewhere = createHostPolicy({boundHost: '192.168.1.5'});
    expect(elsewhere.allows(`${name}:4010`, 4010)).toBe(false);
    expect(elsewhere.isLinkHost(`${name}:4010`, 4010)).toBe(false);
  });

  it('calls the loopback names shared, and no other', () => {
    for (const host of [
      'localhost:4010',
      '127.0.0.1:4010',
      '127.0.0.9',
      '[::1]:4010',
      'LOCALHOST',
      '0.0.0.0:4010',
      '[::]:4010',
      '[::ffff:127.0.0.1]:4010',
    ])
      expect(local.isShared(host), host).toBe(true);
    for (const host of ['svc-4010.localhost:4010', 'box.internal', '192.168.1.5:4010', 'a/b'])
      expect(local.isShared(host), host).toBe(false);
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
    'answers 421 misdirected_request on %s for a foreign name, naming its own',
    async (path) => {
      const port = Number(new URL(emu.apiUrl).port);
      for (const host of ['rebind.example.com', `svc-${port + 1}.localhost:${port + 1}`]) {
        const answer = await get(path, host);
        expect(answer.status, host).toBe(421);
        const body = JSON.parse(answer.body) as {error: {code: string; message: string}};
        expect(body.error.code).toBe('misdirected_request');
        expect(body.error.message).toContain('--allowed-host');
        expect(body.error.message).toContain(`svc-${port}.localhost:${port}`);
      }
    },
  );

  it('serves the loopback names and the names it was given', async () => {
    const port = new URL(emu.apiUrl).port;
    const own = `svc-${port}.localhost:${port}`;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `box.internal:${port}`, own]) {
      expect((await get('/_emulator/health', host, `Bearer ${emu.adminToken}`)).status, host).toBe(200);
    }
    // The page itself is served at its own name and the names it was given; the names every local server shares
    // send the browser to its own name (see account-http.test.ts).
    for (const host of [`box.internal:${port}`, own])
      expect((await get('/account/mailbox', host)).status, host).toBe(200);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`])
      expect((await get('/account/mailbox', host)).status, host).toBe(302);
  });

  it("refuses a form whose Origin names another site, even when the Host is the emulator's", async () => {
    const pageOrigin = new URL(emu.accountUrl).origin;
    const page = await localhostFetch(emu.accountUrl);
    const cookie = (page.headers.getSetCookie()[0] as string).split(';')[0] as string;
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] as string;
    const post = (origin: string) =>
      localhostFetch(`${pageOrigin}/account/login`, {
        method: 'POST',
        headers: {cookie, origin, 'content-type': 'application/x-www-form-urlencoded'},
        body: new URLSearchParams({csrf, email: 'someone@example.com'}),
      }).then((r) => r.status);
    const port = Number(new URL(emu.apiUrl).port);
    expect(await post(`http://rebind.example.com:${port}`)).toBe(403);
    expect(await post(`http://localhost:${port + 1}`)).toBe(403);
    // Another emulator's page, and this one's API address: allowed names, but not where the form was served.
    expect(await post(`http://svc-${port + 1}.localhost:${port + 1}`)).toBe(403);
    expect(await post(emu.apiUrl)).toBe(403);
    expect(await post(pageOrigin)).toBe(200);
  });
});
