// Backends: whether a link still works is read from the database on each request (key, sandbox, expiry, token
// hash), and on PostgreSQL revocations also arrive by NOTIFY from the tables' triggers.
// Sandbox links over real HTTP: a port session forwards to a loopback server, desktop links and browser URLs answer
// a page, and revoking (or expiring) the key that made them, or stopping their sandbox, stops each of them on the
// very next request. Runs on PGlite and on PostgreSQL (shown skipped, with why, where there is none).
import {afterAll, beforeAll, beforeEach, expect, it} from 'vitest';
import {EMULATOR_BACKENDS} from '../helpers/emulator-backends.js';
import {describeEachBackend} from '../helpers/requirements.js';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import type {CreatedSandboxLink} from '../../src/schemas/index.js';
import {accountClient, csrfOf, signIn} from '../helpers/account-client.js';
import {localhostFetch} from '../helpers/localhost-fetch.js';
import {type Receiver, startReceiver} from './delivery/helpers.js';

const backends = EMULATOR_BACKENDS;

const START = new Date('2031-05-01T12:00:00.000Z');

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json(): {error?: {code: string; message: string; problems?: {field: string; message: string}[]}};
}

/** As a browser would: a port session is served at a `*.localhost` name of its own. */
async function get(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await localhostFetch(url, init);
  const text = await res.text();
  return {status: res.status, headers: res.headers, text, json: () => JSON.parse(text)};
}

describeEachBackend(backends, 'sandbox links on $name', (backend) => {
  let emu: RunningEmulator;
  let upstream: Receiver;
  let dispose: () => Promise<void> = async () => {};
  const logs: string[] = [];
  // Requests the loopback "sandbox" server holds until the test lets them go.
  const held: (() => void)[] = [];
  let reached: (() => void) | undefined;

  beforeAll(async () => {
    const opened = await backend.options();
    dispose = opened.dispose;
    emu = await startEmulator({
      ...opened.options,
      port: 0,
      clock: 'manual',
      clockStart: START,
      log: (l) => logs.push(l),
    });
    upstream = await startReceiver((req, res) => {
      const reply = () => {
        res.writeHead(201, {
          'content-type': 'application/json',
          'x-sandbox': 'yes',
          'set-cookie': ['a=1', 'b=2'],
        });
        res.end(
          JSON.stringify({
            method: req.method,
            url: req.url,
            body: req.body.toString('utf8'),
            host: req.headers.host,
          }),
        );
      };
      if (req.url?.startsWith('/slow')) {
        held.push(reply);
        reached?.();
      } else reply();
    });
  });
  afterAll(async () => {
    await upstream?.close();
    await emu?.stop();
    await dispose();
  });
  beforeEach(async () => {
    await emu.control.resetLimiter();
  });

  const running = async (name = 'dev') => (await emu.control.createSandbox({name})).sandbox;
  const key = (name = 'ci', expires?: '30') => emu.control.createKey({name, ...(expires ? {expires} : {})});
  const portSession = (sandboxId: string, keyId: string, port = upstream.port) =>
    emu.control.createLink(sandboxId, {kind: 'port', key_id: keyId, port});
  const statusOf = async (link: {id: string}) =>
    (await emu.control.listLinks()).data.find((l) => l.id === link.id)?.status;

  it('forwards a port session to the loopback server, body and headers intact, its URL carrying a token and never the key', async () => {
    const sandbox = await running();
    const k = await key();
    const link = await portSession(sandbox.id, k.id);
    expect(link).toMatchObject({kind: 'port', sandbox_id: sandbox.id, key_id: k.id, port: upstream.port});
    expect(link.id).toMatch(/^lnk_[0-9A-Za-z]{24}$/);
    const port = new URL(emu.apiUrl).port;
    expect(link.url).toMatch(
      new RegExp(`^http://link-[0-9a-f]{32}\\.localhost:${port}/_links/[A-Za-z0-9_-]{43}/$`),
    );
    expect(link.url).not.toContain(k.secret);
    expect(link.url).not.toContain(k.secret.slice(4));

    const res = await get(`${link.url}api/items?x=1&y=%20z`, {method: 'POST', body: 'hello sandbox'});
    expect(res.status).toBe(201);
    expect(res.headers.get('x-sandbox')).toBe('yes');
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(JSON.parse(res.text)).toEqual({
      method: 'POST',
      url: '/api/items?x=1&y=%20z',
      body: 'hello sandbox',
      host: `127.0.0.1:${upstream.port}`,
    });

    // The list shows the link and its status, never its URL or token.
    const listed = (await emu.control.listLinks({sandbox_id: sandbox.id})).data;
    expect(listed).toEqual([
      {
        id: link.id,
        kind: 'port',
        sandbox_id: sandbox.id,
        key_id: k.id,
        port: upstream.port,
        created_at: START.toISOString(),
        status: 'active',
      },
    ]);
    const token = new URL(link.url).pathname.split('/')[2] as string;
    const stored = await emu.db.query<Record<string, unknown>>('SELECT * FROM sandbox_links WHERE id = $1', [
      link.id,
    ]);
    expect(JSON.stringify(stored.rows)).not.toContain(token);
  });

  it('stops every link a key made on the very next request once it is revoked, and no other key’s', async () => {
    const sandbox = await running();
    const [doomed, other] = await Promise.all([key('leaked'), key('kept')]);
    const links = {
      port: await portSession(sandbox.id, doomed.id),
      desktop: await emu.control.createLink(sandbox.id, {kind: 'desktop', key_id: doomed.id}),
      browser: await emu.control.createLink(sandbox.id, {kind: 'browser', key_id: doomed.id}),
    };
    const kept = await portSession(sandbox.id, other.id);
    for (const link of [...Object.values(links), kept])
      expect((await get(link.url)).status).toBeLessThan(300);

    await emu.control.revokeKey(doomed.id);
    const seenBefore = upstream.requests.length;
    for (const link of Object.values(links)) {
      const refused = await get(`${link.url}anything`, {method: 'GET'});
      expect(refused.status).toBe(403);
      expect(refused.json().error?.code).toBe('forbidden');
      expect(refused.json().error?.message).toContain(`the API key that made it (${doomed.id}) was revoked`);
      const page = await get(link.url, {headers: {accept: 'text/html'}});
      expect(page.status).toBe(403);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(page.text).toContain('was revoked');
      expect(await statusOf(link)).toBe('revoked');
    }
    expect(upstream.requests.length).toBe(seenBefore);
    expect((await get(kept.url)).status).toBe(201);
    expect(await statusOf(kept)).toBe('active');
  });

  it('cuts a request in flight when the key is revoked, and refuses the next one', async () => {
    const sandbox = await running();
    const k = await key();
    const link = await portSession(sandbox.id, k.id);
    const arrived = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const inFlight = get(`${link.url}slow`);
    await arrived;
    await emu.control.revokeKey(k.id);
    const cut = await inFlight;
    expect(cut.status).toBe(403);
    expect(cut.json().error?.message).toContain(`the API key that made it (${k.id}) was revoked`);
    (held.shift() as () => void)();
    expect((await get(`${link.url}after`)).status).toBe(403);
  });

  it('stops the links of a key when it expires on the emulator clock', async () => {
    const sandbox = await running();
    const k = await key('thirty-days', '30');
    const port = await portSession(sandbox.id, k.id);
    const desktop = await emu.control.createLink(sandbox.id, {kind: 'desktop', key_id: k.id});
    await emu.control.advanceClock('29d');
    expect((await get(port.url)).status).toBe(201);
    await emu.control.advanceClock('1d');
    for (const link of [port, desktop]) {
      const refused = await get(link.url);
      expect(refused.status).toBe(403);
      expect(refused.json().error?.message).toContain(`(${k.id}) expired at ${k.expires_at}`);
      expect(await statusOf(link)).toBe('revoked');
    }
  });

  it('stops a sandbox’s links while it is stopped and from the instant it expires', async () => {
    const k = await key();
    const sandbox = await running();
    const link = await portSession(sandbox.id, k.id);
    await emu.control.sandboxAction(sandbox.id, 'stop');
    const refused = await get(link.url);
    expect(refused.status).toBe(409);
    expect(refused.json().error?.message).toContain(`sandbox ${sandbox.id} is stopped`);
    expect(await statusOf(link)).toBe('sandbox_stopped');
    await emu.control.sandboxAction(sandbox.id, 'resume');
    expect((await get(link.url)).status).toBe(201);

    const brief = (await emu.control.createSandbox({name: 'brief', expires_in: '10m'})).sandbox;
    const browser = await emu.control.createLink(brief.id, {kind: 'browser', key_id: k.id});
    expect((await get(browser.url)).status).toBe(200);
    await emu.control.advanceClock('10m');
    expect((await get(browser.url)).status).toBe(409);
    expect(await statusOf(browser)).toBe('sandbox_stopped');
  });

  it('answers a desktop link and a browser URL with a page naming the sandbox, that leaks its address nowhere', async () => {
    const sandbox = await running('design-review');
    const k = await key();
    for (const kind of ['desktop', 'browser'] as const) {
      const link = await emu.control.createLink(sandbox.id, {kind, key_id: k.id});
      expect(link.port).toBeNull();
      const page = await get(link.url);
      expect(page.status).toBe(200);
      expect(page.text).toContain(`${kind === 'desktop' ? 'Desktop' : 'Browser'} of sandbox design-review`);
      expect(page.text).toContain(sandbox.id);
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.headers.get('cache-control')).toBe('no-store');
      const posted = await get(link.url, {method: 'POST', body: 'x'});
      expect(posted.status).toBe(405);
      expect(posted.headers.get('allow')).toBe('GET, HEAD');
    }
  });

  it('refuses a guessed or altered token with one answer that does not say what was wrong', async () => {
    const sandbox = await running();
    const k = await key();
    const link = await portSession(sandbox.id, k.id);
    const token = new URL(link.url).pathname.split('/')[2] as string;
    const flip = (c: string) => (c === 'A' ? 'B' : 'A');
    const variants = [
      `${flip(token[0] as string)}${token.slice(1)}`,
      `${token.slice(0, -1)}${flip(token.at(-1) as string)}`,
      token.slice(0, -1),
      `${token}A`,
      token.toLowerCase(),
      'A'.repeat(43),
      link.id,
      k.secret,
      'x'.repeat(500),
    ];
    const seenBefore = upstream.requests.length;
    const answers = await Promise.all(variants.map((v) => get(`${emu.apiUrl}/_links/${v}/`)));
    for (const a of answers) {
      expect(a.status).toBe(404);
      expect(a.text).toBe(answers[0]?.text);
    }
    expect(answers[0]?.json().error?.code).toBe('not_found');
    for (const bare of ['/_links/', '/_links']) expect((await get(`${emu.apiUrl}${bare}`)).status).toBe(404);
    expect(upstream.requests.length).toBe(seenBefore);
  });

  it('says so when nothing listens on the port, and refuses a request forwarded back into a link', async () => {
    const sandbox = await running();
    const k = await key();
    const closed = await startReceiver();
    await closed.close();
    const dead = await portSession(sandbox.id, k.id, closed.port);
    const refused = await get(dead.url);
    expect(refused.status).toBe(502);
    expect(refused.json().error?.message).toContain(`nothing listens on port ${closed.port}`);

    const live = await portSession(sandbox.id, k.id);
    const looped = await get(live.url, {headers: {'svc-port-session': '1'}});
    expect(looped.status).toBe(400);
    expect(looped.json().error?.message).toContain('cannot forward to a link URL');
  });

  it('refuses bad input with 400 or 404 naming the field, and writes nothing', async () => {
    const sandbox = await running();
    const stopped = await running('stopped');
    await emu.control.sandboxAction(stopped.id, 'stop');
    const k = await key();
    const revoked = await key('revoked');
    await emu.control.revokeKey(revoked.id);
    const elsewhere = await emu.control.createOrg({name: 'Other org'});
    const foreign = await emu.control.createKey({name: 'theirs', org_id: elsewhere.id});
    const count = async () =>
      Number((await emu.db.query<{n: string}>('SELECT count(*) AS n FROM sandbox_links')).rows[0]?.n);
    const before = await count();

    const cases: [string, string, unknown, number, string][] = [
      ['unknown sandbox', 'sbx_000000000000000000000000', {kind: 'desktop', key_id: k.id}, 404, 'sandbox_id'],
      ['malformed sandbox id', 'sbx_nope', {kind: 'desktop', key_id: k.id}, 404, 'sandbox_id'],
      ['unknown kind', sandbox.id, {kind: 'vnc', key_id: k.id}, 400, 'kind'],
      ['no kind', sandbox.id, {key_id: k.id}, 400, 'kind'],
      ['port 0', sandbox.id, {kind: 'port', key_id: k.id, port: 0}, 400, 'port'],
      ['port 65536', sandbox.id, {kind: 'port', key_id: k.id, port: 65_536}, 400, 'port'],
      ['port 70000', sandbox.id, {kind: 'port', key_id: k.id, port: 70_000}, 400, 'port'],
      ['port -5', sandbox.id, {kind: 'port', key_id: k.id, port: -5}, 400, 'port'],
      [
        "the emulator's own port",
        sandbox.id,
        {kind: 'port', key_id: k.id, port: Number(new URL(emu.apiUrl).port)},
        400,
        'port',
      ],
      ['fractional port', sandbox.id, {kind: 'port', key_id: k.id, port: 80.5}, 400, 'port'],
      ['port as text', sandbox.id, {kind: 'port', key_id: k.id, port: '8080'}, 400, 'port'],
      ['no port for a port session', sandbox.id, {kind: 'port', key_id: k.id}, 400, 'port'],
      ['a port for a desktop link', sandbox.id, {kind: 'desktop', key_id: k.id, port: 80}, 400, 'port'],
      ['malformed key id', sandbox.id, {kind: 'desktop', key_id: 'svc_secret'}, 400, 'key_id'],
      ['unknown key', sandbox.id, {kind: 'desktop', key_id: 'key_000000000000000000000000'}, 400, 'key_id'],
      ['key of another org', sandbox.id, {kind: 'desktop', key_id: foreign.id}, 400, 'key_id'],
      ['revoked key', sandbox.id, {kind: 'desktop', key_id: revoked.id}, 400, 'key_id'],
      ['stopped sandbox', stopped.id, {kind: 'desktop', key_id: k.id}, 409, ''],
    ];
    for (const [what, sandboxId, body, status, field] of cases) {
      const res = await fetch(`${emu.apiUrl}/_emulator/sandboxes/${sandboxId}/links`, {
        method: 'POST',
        headers: {authorization: `Bearer ${emu.adminToken}`, 'content-type': 'application/json'},
        body: JSON.stringify(body),
      });
      const answer = (await res.json()) as {error: {message: string; problems?: {field: string}[]}};
      expect(res.status, what).toBe(status);
      if (field) {
        expect(
          answer.error.problems?.map((p) => p.field),
          what,
        ).toEqual([field]);
        expect(answer.error.message, what).toContain(field);
      }
    }
    expect(await count()).toBe(before);
    const unknown = await fetch(`${emu.apiUrl}/_emulator/links?sandbox_id=sbx_000000000000000000000000`, {
      headers: {authorization: `Bearer ${emu.adminToken}`},
    });
    expect(unknown.status).toBe(404);
  });

  it('answers a failure of its own with a 500 that logs the request without the link’s token', async () => {
    const sandbox = await running();
    const link = await emu.control.createLink(sandbox.id, {kind: 'desktop', key_id: (await key()).id});
    const token = new URL(link.url).pathname.split('/')[2] as string;
    await emu.db.query('ALTER TABLE sandbox_links RENAME TO sandbox_links_away');
    try {
      const failed = await get(`${link.url}x`);
      expect(failed.status).toBe(500);
      expect(failed.json().error?.code).toBe('internal');
    } finally {
      await emu.db.query('ALTER TABLE sandbox_links_away RENAME TO sandbox_links');
    }
    expect(logs.some((l) => l.startsWith('internal error on GET /_links/…'))).toBe(true);
    expect(logs.join('\n')).not.toContain(token);
    expect((await get(link.url)).status).toBe(200);
  });

  it('is made and listed with the admin token only, never with an API key', async () => {
    const sandbox = await running();
    const k = await key();
    for (const authorization of [`Bearer ${k.secret}`, '']) {
      const made = await fetch(`${emu.apiUrl}/_emulator/sandboxes/${sandbox.id}/links`, {
        method: 'POST',
        headers: {authorization, 'content-type': 'application/json'},
        body: JSON.stringify({kind: 'desktop', key_id: k.id}),
      });
      expect(made.status).toBe(401);
      const listed = await fetch(`${emu.apiUrl}/_emulator/links`, {headers: {authorization}});
      expect(listed.status).toBe(401);
    }
  });

  it('tells the person revoking a key on the account page what else stops, then stops it', async () => {
    const person = accountClient(new URL(emu.accountUrl).origin);
    expect((await signIn(person, 'owner@example.com', logs)).status).toBe(303);
    const sandbox = await running();
    const k = await key('ci-42');
    const made: CreatedSandboxLink[] = [
      await portSession(sandbox.id, k.id),
      await portSession(sandbox.id, k.id),
      await emu.control.createLink(sandbox.id, {kind: 'desktop', key_id: k.id}),
    ];
    const idle = await running('idle');
    await emu.control.createLink(idle.id, {kind: 'browser', key_id: k.id});
    await emu.control.sandboxAction(idle.id, 'stop');

    const keys = await person.request('/account/keys');
    const row = keys.text.slice(keys.text.indexOf('>ci-42<'));
    expect(row.slice(0, row.indexOf('</tr>'))).toContain('2 port sessions and 1 desktop link');

    const confirm = await person.request(`/account/keys/${k.id}/revoke`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Revoking ci-42 also stops 2 port sessions and 1 desktop link');
    expect(confirm.text).toContain('1 browser URL');
    const revoked = await person.form(`/account/keys/${k.id}/revoke`, {csrf: csrfOf(confirm.text)});
    expect(revoked.status).toBe(303);
    for (const link of made) expect((await get(link.url)).status).toBe(403);
    const after = await person.request('/account/keys');
    expect(after.text).toContain('its 2 port sessions and 1 desktop link stopped working');
  });
});
