// The account page over plain HTTP (no browser): what is stored, what is logged, and how hostile or odd posts
// are answered. The whole flows in Chromium live in account-page.test.ts.
// Backends: people, sessions and sign-in links are SQL rows with unique keys and expiry each database enforces.
import {createHash} from 'node:crypto';
import {request} from 'node:http';
import fc from 'fast-check';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {
  type AccountClient,
  accountClient,
  askForSignInLink,
  csrfOf,
  signIn as signInThrough,
} from '../../helpers/account-client.js';
import {EMULATOR_BACKENDS} from '../../helpers/emulator-backends.js';
import {localhostFetch} from '../../helpers/localhost-fetch.js';
import {describeEachBackend} from '../../helpers/requirements.js';

const backends = EMULATOR_BACKENDS;

let emu: RunningEmulator;
const port = () => new URL(emu.apiUrl).port;
/** The session cookie of this emulator: named after its port. */
const sessionCookie = () => `svc_session_${port()}`;
const logs: string[] = [];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Where a browser opens the page: its own name, svc-<port>.localhost. */
const pageOrigin = () => new URL(emu.accountUrl).origin;
const client = () => accountClient(pageOrigin());
const askForLink = (c: AccountClient, email: string) => askForSignInLink(c, email, logs);
const signIn = (c: AccountClient, email: string) => signInThrough(c, email, logs);

describeEachBackend(backends, 'on $name', (backend) => {
  let dispose: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const opened = await backend.options();
    dispose = opened.dispose;
    emu = await startEmulator({...opened.options, port: 0, clock: 'manual', log: (l) => logs.push(l)});
  });
  afterAll(async () => {
    await emu?.stop();
    await dispose();
  });

  describe('sign-in links and sessions', () => {
    it('prints the link in the log, stores only its hash, and spends it once even when used twice at once', async () => {
      const c = client();
      const link = await askForLink(c, 'Hash@Example.com');
      const token = new URL(link, emu.apiUrl).searchParams.get('token') as string;
      const stored = await emu.db.query<{token_hash: string; email: string}>(
        'SELECT token_hash, email FROM sign_in_links WHERE email = $1',
        ['hash@example.com'],
      );
      expect(stored.rows).toEqual([{token_hash: sha256(token), email: 'hash@example.com'}]);

      const confirm = await c.request(link);
      const csrf = csrfOf(confirm.text);
      const [a, b] = await Promise.all([
        c.form('/account/sign-in', {csrf, token}),
        c.form('/account/sign-in', {csrf, token}),
      ]);
      expect([a.status, b.status].sort()).toEqual([303, 400]);

      const cookie = [...a.setCookies, ...b.setCookies].find((s) => s.startsWith(`${sessionCookie()}=`));
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      const sessionId = new RegExp(`${sessionCookie()}=([^;]+)`).exec(cookie as string)?.[1] as string;
      const sessions = await emu.db.query<{id_hash: string}>('SELECT id_hash FROM account_sessions');
      expect(sessions.rows.map((r) => r.id_hash)).toContain(sha256(sessionId));
      expect(JSON.stringify(sessions.rows)).not.toContain(sessionId);
    });

    it('takes /account/ with a trailing slash to the page', async () => {
      const res = await localhostFetch(`${pageOrigin()}/account/`, {redirect: 'manual'});
      expect(res.status).toBe(308);
      expect(res.headers.get('location')).toBe('/account');
      expect((await localhostFetch(`${pageOrigin()}/account/`)).status).toBe(200);
    });

    it('answers a logged-out request with the sign-in page and never data', async () => {
      const c = client();
      for (const path of [
        '/account/keys',
        '/account/webhooks',
        `/account/keys/key_${'a'.repeat(24)}/revoke`,
      ]) {
        const res = await c.request(path);
        expect(res.status).toBe(401);
        expect(res.text).toContain('<h1>Sign in</h1>');
        expect(res.text).not.toContain(emu.orgId);
      }
      const post = await c.form('/account/keys', {name: 'x', expires: 'never', csrf: 'x'.repeat(43)});
      expect(post.status).toBe(401);
      expect(post.text).toContain('Sign in');
    });

    it('ends a session at sign-out: the old cookie opens nothing', async () => {
      const c = client();
      expect((await signIn(c, 'leaving@example.com')).status).toBe(303);
      const id = c.jar.get(sessionCookie()) as string;
      const keys = await c.request('/account/keys');
      expect(keys.status).toBe(200);
      const out = await c.form('/account/logout', {csrf: csrfOf(keys.text)});
      expect(out.status).toBe(303);
      const again = await localhostFetch(`${pageOrigin()}/account/keys`, {
        headers: {cookie: `${sessionCookie()}=${id}`},
      });
      expect(again.status).toBe(401);
    });
  });

  describe('at a name every server on this machine shares', () => {
    const shared = () => [`127.0.0.1:${port()}`, `localhost:${port()}`];

    it('sends a browser to the page at its own name, and sets no cookie there', async () => {
      for (const host of shared()) {
        for (const path of ['/account', '/account/mailbox', '/account/keys', '/account/sign-in?token=abc']) {
          const answer = await sendTo(host, 'GET', path);
          expect(answer.status, `${host}${path}`).toBe(302);
          expect(answer.location).toBe(`${pageOrigin()}${path}`);
          expect(answer.setCookies).toEqual([]);
        }
      }
    });

    it('shows Safari, which cannot resolve the own name by itself, a page that tries it and says how to fix it', async () => {
      const own = new URL(emu.accountUrl);
      for (const host of shared()) {
        const answer = await sendTo(host, 'GET', '/account/keys?x=1', undefined, undefined, SAFARI);
        expect(answer.status, host).toBe(200);
        expect(answer.setCookies).toEqual([]);
        expect(answer.headers['cache-control']).toBe('no-store');
        expect(answer.text).toContain(`href="${pageOrigin()}/account/keys?x=1"`);
        expect(answer.text).toContain(`127.0.0.1 ${own.hostname}`);
        // The one script runs by its nonce, and the page may load images only from the own name (the probe).
        const csp = answer.headers['content-security-policy'] as string;
        const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
        expect(nonce).toBeTruthy();
        expect(answer.text).toContain(`<script nonce="${nonce}"`);
        expect(csp).toContain(`img-src ${pageOrigin()};`);
        expect(csp).toContain("default-src 'none'");
      }
      // A path that tries to break out of the page is text, never markup.
      const hostile = await sendTo(
        shared()[0] as string,
        'GET',
        '/account/%22%3E%3Cscript%3Ex',
        undefined,
        undefined,
        SAFARI,
      );
      expect(hostile.text).not.toContain('"><script>x');
      // Chromium and Firefox, which resolve it, are sent there at once.
      const chrome = await sendTo(shared()[0] as string, 'GET', '/account', undefined, undefined, CHROME);
      expect(chrome.status).toBe(302);
    });

    it('does nothing for a form posted there, and says where the page is', async () => {
      const c = client();
      const csrf = csrfOf((await c.request('/account')).text);
      const cookie = [...c.jar].map(([k, v]) => `${k}=${v}`).join('; ');
      const before = logs.length;
      for (const host of shared()) {
        const body = new URLSearchParams({csrf, email: 'shared@example.com'}).toString();
        const answer = await sendTo(host, 'POST', '/account/login', body, cookie);
        expect(answer.status).toBe(421);
        expect(answer.text).toContain(`${pageOrigin()}/account`);
        expect(answer.setCookies).toEqual([]);
      }
      expect(logs.slice(before).some((l) => l.includes('shared@example.com'))).toBe(false);
    });
  });

  describe('odd and hostile input', () => {
    it('refuses a post that is not an ordinary form (415), or has no token (403), with a page rather than a 500', async () => {
      const c = client();
      await signIn(c, 'odd@example.com');
      const keys = await c.request('/account/keys');
      const csrf = csrfOf(keys.text);
      const json = await c.request('/account/keys', {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify({csrf, name: 'x', expires: 'never'}),
      });
      expect(json.status).toBe(415);
      expect(json.text).toContain('Form not readable');
      const multipart = new FormData();
      multipart.set('csrf', csrf);
      multipart.set('name', 'x');
      expect((await c.request('/account/keys', {method: 'POST', body: multipart})).status).toBe(415);
      const noToken = await c.form('/account/keys', {name: 'x', expires: 'never'});
      expect(noToken.status).toBe(403);
      expect(noToken.text).toContain('Form refused');
      const twoTokens = await c.request('/account/keys', {
        method: 'POST',
        headers: {'content-type': 'application/x-www-form-urlencoded'},
        body: `csrf=${csrf}&csrf=${csrf}&name=dup&expires=never`,
      });
      expect(twoTokens.status).toBe(303);
    });

    it('answers an oversized form with 413 and over-long or control-character fields on the form', async () => {
      const c = client();
      const page = await c.request('/account');
      const csrf = csrfOf(page.text);
      const big = await c.form('/account/login', {csrf, email: `${'a'.repeat(20_000)}@example.com`});
      expect(big.status).toBe(413);
      expect(big.text).toContain('Form too large');

      const long = await c.form('/account/login', {csrf, email: `${'a'.repeat(320)}@example.com`});
      expect(long.status).toBe(400);
      expect(long.text).toContain('An email address is at most 320 characters.');
      const bell = await c.form('/account/login', {csrf, email: 'ring\u0007@example.com'});
      expect(bell.status).toBe(400);
      expect(bell.text).toContain('Enter an address like name@example.com.');
      expect(logs.some((l) => l.includes('ring'))).toBe(false);
    });

    it('builds sign-in links only for a name it answers to, leading to its own name', async () => {
      const c = client();
      const page = await c.request('/account');
      const body = new URLSearchParams({csrf: csrfOf(page.text), email: 'host@example.com'}).toString();
      const post = async (host: string) =>
        (
          await sendTo(
            host,
            'POST',
            '/account/login',
            body,
            [...c.jar].map(([k, v]) => `${k}=${v}`).join('; '),
          )
        ).status;
      // A name the emulator does not answer to gets nothing done at all (DNS rebinding), nor does the own name of
      // an emulator on another port, which a link would lead to.
      const mailed = () => logs.filter((l) => l.includes('to host@example.com:')).length;
      const before = mailed();
      expect(await post('evil.example')).toBe(421);
      expect(await post('svc-9999.localhost:9999')).toBe(421);
      expect(mailed()).toBe(before);
      expect(await post(new URL(pageOrigin()).host)).toBe(200);
      const line = logs.findLast((l) => l.includes('to host@example.com:')) as string;
      expect(line).toContain(`${pageOrigin()}/account/sign-in?token=`);
    });

    it('answers generated form posts and paths on every route with a page, never a 5xx', async () => {
      const c = client();
      await signIn(c, 'fuzz@example.com');
      const csrf = csrfOf((await c.request('/account/keys')).text);
      const key = await emu.control.createKey({name: 'fuzz target'});
      const value = fc.oneof(
        fc.string({maxLength: 30}),
        fc.string({unit: 'binary', maxLength: 30}),
        fc.constantFrom('', '\u0000', 'a\u0007b', '\ud800', 'x'.repeat(3000), 'sandbox.ready', '30', 'never'),
        fc.constantFrom(
          key.id,
          emu.orgId,
          `we_${'A'.repeat(24)}`,
          'https://example.com/h',
          'http://localhost/h',
        ),
      );
      const field = fc.constantFrom(
        'name',
        'expires',
        'url',
        'events',
        'description',
        'email',
        'org_id',
        'token',
        'csrf',
      );
      const route = fc.constantFrom(
        'POST /account/login',
        'POST /account/sign-in',
        'POST /account/org',
        'POST /account/team',
        'POST /account/keys',
        'POST /account/keys/:id/revoke',
        'POST /account/webhooks',
        'POST /account/webhooks/:id/delete',
        'GET /account/keys/:id/revoke',
        'GET /account/webhooks/:id',
        'GET /account/webhooks/:id/delete',
        'GET /account/webhooks/:id/deliveries/:id',
        'GET /account/sign-in',
      );
      const segment = fc.oneof(
        fc.constantFrom(
          key.id,
          `we_${'A'.repeat(24)}`,
          `dlv_${'A'.repeat(24)}`,
          '..',
          '%2e%2e',
          '%00',
          'x'.repeat(500),
        ),
        fc.string({unit: 'binary', maxLength: 20}).map(encodeURIComponent),
      );
      const failures: string[] = [];
      await fc.assert(
        fc.asyncProperty(
          route,
          fc.array(fc.tuple(field, value), {maxLength: 6}),
          segment,
          fc.boolean(),
          async (r, fields, seg, withToken) => {
            const [method, template] = r.split(' ') as [string, string];
            const path = template.replaceAll(':id', seg);
            const body = new URLSearchParams(fields);
            if (withToken) body.set('csrf', csrf);
            const res =
              method === 'GET'
                ? await c.request(`${path}?${body.toString()}`)
                : await c.request(path, {
                    method,
                    headers: {'content-type': 'application/x-www-form-urlencoded'},
                    body: body.toString(),
                  });
            if (res.status >= 500) failures.push(`${r} ${path} ${res.status}`);
            return res.status < 500;
          },
        ),
        {numRuns: 300, seed: 20261123, endOnFailure: true},
      );
      expect(failures).toEqual([]);
    }, 120_000);

    it('treats a malformed sign-in link as unknown, without a lookup error', async () => {
      const c = client();
      for (const token of ['', 'short', `${'a'.repeat(42)}!`, 'x'.repeat(5000)]) {
        const res = await c.request(`/account/sign-in?token=${encodeURIComponent(token)}`);
        expect(res.status).toBe(400);
        expect(res.text).toContain('This sign-in link is not valid.');
      }
    });

    it('serves the page under its security headers, and unknown account paths as a page', async () => {
      const c = client();
      const res = await c.request('/account');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('cache-control')).toBe('no-store');
      const missing = await c.request('/account/nowhere');
      expect(missing.status).toBe(404);
      expect(missing.headers.get('content-type')).toContain('text/html');
    });
  });
});

describe('an emulator without a vault key', () => {
  it('says on the form that endpoints need one, and answers the deliveries page with a page, not a crash', async () => {
    const noVault = await startEmulator({
      port: 0,
      inMemory: true,
      noVaultKey: true,
      log: (l) => logs.push(l),
    });
    const previous = emu;
    emu = noVault;
    try {
      const c = client();
      await signIn(c, 'vaultless@example.com');
      const form = await c.request('/account/webhooks/new');
      const added = await c.form('/account/webhooks', {
        csrf: csrfOf(form.text),
        url: 'https://hooks.example.com/h',
        events: 'sandbox.ready',
      });
      expect(added.status).toBe(503);
      expect(added.text).toContain('Webhook endpoints need a vault key to store their signing secret.');
      const missing = await c.request(`/account/webhooks/we_${'A'.repeat(24)}`);
      expect(missing.status).toBe(404);
    } finally {
      emu = previous;
      await noVault.stop();
    }
  });
});

interface Sent {
  status: number;
  location?: string;
  setCookies: string[];
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const SAFARI =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15';
const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** A request to the emulator's address with a Host header of its own (fetch would not send one). */
function sendTo(
  host: string,
  method: string,
  path: string,
  body?: string,
  cookie?: string,
  userAgent?: string,
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${emu.apiUrl}${path}`,
      {
        method,
        headers: {
          host,
          ...(cookie ? {cookie} : {}),
          ...(userAgent ? {'user-agent': userAgent} : {}),
          ...(body === undefined
            ? {}
            : {
                'content-type': 'application/x-www-form-urlencoded',
                'content-length': Buffer.byteLength(body),
              }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            location: res.headers.location,
            setCookies: res.headers['set-cookie'] ?? [],
            headers: res.headers,
            text,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
