// The network lane of `svc doctor`, each fault planted: localhost resolving to IPv6 only or elsewhere, a
// --forward-to port nobody listens on or one listening where its name does not lead, *.localhost unresolved,
// proxy variables without NO_PROXY for this machine.
import {createServer, type Server} from 'node:net';
import type {AddressInfo} from 'node:net';
import {afterEach, describe, expect, it} from 'vitest';
import {
  checkDotLocalhost,
  checkForwardTo,
  checkLocalhost,
  checkProxy,
  type Lookup,
} from '../../../src/services/doctor/network.js';

const answers =
  (table: Record<string, string[]>): Lookup =>
  async (host) => {
    const list = table[host];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), {code: 'ENOTFOUND'});
    return list.map((address) => ({address, family: address.includes(':') ? 6 : 4}));
  };

describe('network: localhost', () => {
  it('passes both loopbacks, warns about IPv6 only, fails an address elsewhere or none', async () => {
    expect(await checkLocalhost(answers({localhost: ['::1', '127.0.0.1']}))).toEqual({
      id: 'localhost',
      lane: 'network',
      status: 'ok',
      detail: 'localhost resolves to ::1, 127.0.0.1',
    });
    const v6 = await checkLocalhost(answers({localhost: ['::1']}));
    expect(v6).toMatchObject({status: 'warn', detail: expect.stringMatching(/::1 only \(IPv6\)/)});
    expect(v6.fix).toMatch(/127\.0\.0\.1/);
    expect(await checkLocalhost(answers({localhost: ['10.1.2.3']}))).toMatchObject({status: 'fail'});
    expect(await checkLocalhost(answers({}))).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/ENOTFOUND/),
    });
  });
});

describe('network: forward_to', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((r) => server?.close(r) ?? r(undefined));
    server = undefined;
  });

  async function listenOn(host: string): Promise<number> {
    const listening = createServer((s) => s.end());
    server = listening;
    await new Promise<void>((r, reject) => {
      listening.once('error', reject);
      listening.listen(0, host, r);
    });
    return (listening.address() as AddressInfo).port;
  }

  it('finds the server where localhost leads, and fails a port nobody listens on', async () => {
    const port = await listenOn('127.0.0.1');
    const lookup = answers({localhost: ['127.0.0.1']});
    const ok = await checkForwardTo({url: `http://localhost:${port}/hooks`, lookup, timeoutMs: 800});
    expect(ok).toMatchObject({
      status: 'ok',
      detail: `localhost:${port}: listens on 127.0.0.1 (localhost resolves to 127.0.0.1)`,
    });
    await new Promise((r) => server?.close(r));
    server = undefined;
    const down = await checkForwardTo({url: `http://localhost:${port}/hooks`, lookup, timeoutMs: 800});
    expect(down).toMatchObject({status: 'fail', detail: expect.stringMatching(/nothing listens/)});
    expect(down.fix).toMatch(new RegExp(`port ${port}`));
  });

  it('fails a server listening on the loopback its name does not resolve to, naming the address to use', async () => {
    const port = await listenOn('127.0.0.1');
    const r = await checkForwardTo({
      url: `http://localhost:${port}/in`,
      lookup: answers({localhost: ['::1']}),
      timeoutMs: 800,
    });
    expect(r.status).toBe('fail');
    expect(r.detail).toMatch(/listens on 127\.0\.0\.1 \(localhost resolves to ::1\)/);
    expect(r.fix).toBe(`Forward to the address it listens on: http://127.0.0.1:${port}/in`);
  });
});

describe('network: dot_localhost', () => {
  it('warns when the system resolver does not know *.localhost, fails one that leads elsewhere', async () => {
    const none = await checkDotLocalhost({name: 'svc-4010.localhost', lookup: answers({})});
    expect(none).toMatchObject({status: 'warn', detail: expect.stringMatching(/does not resolve/)});
    expect(none.fix).toMatch(/127\.0\.0\.1 svc-4010\.localhost/);
    const elsewhere = await checkDotLocalhost({
      name: 'svc-4010.localhost',
      lookup: answers({'svc-4010.localhost': ['192.168.1.9']}),
    });
    expect(elsewhere.status).toBe('fail');
    const fine = await checkDotLocalhost({
      name: 'svc-4010.localhost',
      lookup: answers({'svc-4010.localhost': ['127.0.0.1']}),
    });
    expect(fine.status).toBe('ok');
  });
});

describe('network: proxy', () => {
  it('warns about a proxy whose NO_PROXY leaves out this machine, and passes one that covers it', () => {
    expect(checkProxy({})).toMatchObject({status: 'ok', detail: 'no proxy variables are set'});
    const open = checkProxy({HTTPS_PROXY: 'http://proxy.example:3128', NO_PROXY: 'example.com'});
    expect(open.status).toBe('warn');
    expect(open.detail).toMatch(/HTTPS_PROXY set and NO_PROXY does not cover localhost, 127\.0\.0\.1, ::1/);
    expect(open.fix).toBe(
      'Add them to NO_PROXY: export NO_PROXY=example.com,localhost,127.0.0.1,::1,.localhost',
    );
    const covered = checkProxy({
      https_proxy: 'http://proxy.example:3128',
      no_proxy: 'localhost,127.0.0.0/8,[::1]',
    });
    expect(covered.status).toBe('ok');
    expect(checkProxy({HTTP_PROXY: 'http://p:1', NO_PROXY: '*'}).status).toBe('ok');
  });
});
