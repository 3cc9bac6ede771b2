// Sandbox links across emulator processes sharing one PostgreSQL: a link made through one works through any, and
// revoking its key, expiring it on the shared clock or stopping its sandbox through one process refuses the very
// next request to it through another, and cuts the stream open through it there.
import {randomBytes} from 'node:crypto';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {type Receiver, startReceiver} from '../delivery/helpers.js';
import {type App, openStream, startApp} from '../link-app.js';
import {localhostFetch} from '../../helpers/localhost-fetch.js';
import {describeNeeding, POSTGRES} from '../../helpers/requirements.js';
import {type EmulatorProcess, freshSchema, type Schema, startProcess} from './cluster.js';

describeNeeding([POSTGRES], 'sandbox links across processes sharing one PostgreSQL', () => {
  const vaultKey = randomBytes(32);
  let schema: Schema;
  let a: EmulatorProcess;
  let b: EmulatorProcess;
  let upstream: Receiver;
  let app: App;

  beforeAll(async () => {
    schema = await freshSchema();
    upstream = await startReceiver((req, res) => res.end(`sandbox: ${req.url}`));
    app = await startApp();
    const tuning = {clock: 'manual', clockStart: '2030-01-01T00:00:00.000Z'} as const;
    [a, b] = await Promise.all([
      startProcess(schema.url, vaultKey, tuning),
      startProcess(schema.url, vaultKey, tuning),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await upstream?.close();
    await app?.close();
    await schema?.drop();
  });

  /** The same link through each process: only the port differs (and the host, but for a port session's own name). */
  const through = (p: EmulatorProcess, url: string) => {
    const link = new URL(url);
    const api = new URL(p.apiUrl);
    link.port = api.port;
    if (!link.hostname.startsWith('link-')) link.hostname = api.hostname;
    return link.href;
  };
  const statusVia = async (p: EmulatorProcess, url: string) => (await localhostFetch(through(p, url))).status;

  it('refuses the links of a key revoked through one process on the very next request to the other', async () => {
    const {sandbox} = await a.control.createSandbox({name: 'shared'});
    for (let i = 0; i < 5; i++) {
      const [doomed, kept] = await Promise.all([
        a.control.createKey({name: `doomed-${i}`}),
        b.control.createKey({name: `kept-${i}`}),
      ]);
      const port = await a.control.createLink(sandbox.id, {
        kind: 'port',
        key_id: doomed.id,
        port: upstream.port,
      });
      const desktop = await b.control.createLink(sandbox.id, {kind: 'desktop', key_id: doomed.id});
      const other = await b.control.createLink(sandbox.id, {
        kind: 'port',
        key_id: kept.id,
        port: upstream.port,
      });
      // Used through both first, so neither process can answer from anything it read before.
      for (const p of [a, b]) {
        const res = await localhostFetch(through(p, `${port.url}hello`));
        expect(await res.text()).toBe('sandbox: /hello');
        expect(await statusVia(p, desktop.url)).toBe(200);
      }

      const [revoker, bystander] = i % 2 === 0 ? [a, b] : [b, a];
      await revoker.control.revokeKey(doomed.id);
      expect(await statusVia(bystander, port.url)).toBe(403);
      expect(await statusVia(bystander, desktop.url)).toBe(403);
      expect(await statusVia(revoker, port.url)).toBe(403);
      expect(await statusVia(bystander, other.url)).toBe(200);
      const listed = (await bystander.control.listLinks({sandbox_id: sandbox.id})).data;
      expect(listed.find((l) => l.id === desktop.id)?.status).toBe('revoked');
      expect(listed.find((l) => l.id === other.id)?.status).toBe('active');
    }
  });

  it('stops links when the shared clock passes their key’s expiry or their sandbox stops, whichever process moved it', async () => {
    const {sandbox} = await a.control.createSandbox({name: 'clocked'});
    const key = await a.control.createKey({name: 'month', expires: '30'});
    const link = await a.control.createLink(sandbox.id, {kind: 'browser', key_id: key.id});
    expect(await statusVia(b, link.url)).toBe(200);
    await a.control.advanceClock('30d');
    expect(await statusVia(b, link.url)).toBe(403);

    const fresh = await b.control.createKey({name: 'fresh'});
    const {sandbox: other} = await b.control.createSandbox({name: 'stoppable'});
    const port = await b.control.createLink(other.id, {kind: 'port', key_id: fresh.id, port: upstream.port});
    expect(await statusVia(a, port.url)).toBe(200);
    await b.control.sandboxAction(other.id, 'stop');
    expect(await statusVia(a, port.url)).toBe(409);
  });

  it('cuts a stream open through one process when its key is revoked, its sandbox stopped or its key expired through the other', async () => {
    const session = async (expires?: '30') => {
      const {sandbox} = await a.control.createSandbox({name: 'streams'});
      const key = await a.control.createKey({name: 'streamer', ...(expires ? {expires} : {})});
      const link = await a.control.createLink(sandbox.id, {kind: 'port', key_id: key.id, port: app.port});
      return {sandbox, key, link};
    };
    let n = 0;
    const streamVia = async (p: EmulatorProcess, url: string) => {
      const path = `/events/mp-${++n}`;
      return {path, ...(await openStream(through(p, `${url}${path.slice(1)}`)))};
    };

    const revoked = await session();
    const stopped = await session();
    const expiring = await session('30');
    const kept = await session();
    const streams = {
      revoked: await streamVia(b, revoked.link.url),
      stopped: await streamVia(b, stopped.link.url),
      expiring: await streamVia(b, expiring.link.url),
      kept: await streamVia(b, kept.link.url),
    };

    await a.control.revokeKey(revoked.key.id);
    await streams.revoked.ended();
    await app.streamClosed(streams.revoked.path);

    await a.control.sandboxAction(stopped.sandbox.id, 'stop');
    await streams.stopped.ended();
    await app.streamClosed(streams.stopped.path);

    await a.control.advanceClock('30d');
    await streams.expiring.ended();
    await app.streamClosed(streams.expiring.path);

    app.send(streams.kept.path, 'still flowing');
    expect(await streams.kept.next()).toBe('data: still flowing\n\n');
  });
});
