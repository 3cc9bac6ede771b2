// The account page in real Chromium against a real emulator: sign-in through the mailbox, keys, endpoints,
// deliveries, every validation error, forged posts, other orgs, accessibility (axe) and screenshots.
import type {Browser, BrowserContext, Page} from 'playwright-core';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {listEndpoints} from '../../../src/emulator/ops/endpoints.js';
import {MAX_ACTIVE_KEYS_PER_ORG, MAX_ENDPOINTS_PER_ORG} from '../../../src/definitions.js';
import type {EventType} from '../../../src/schemas/index.js';
import {
  DESKTOP,
  launchChromium,
  postWithCookies,
  screenshots,
  seriousAxeViolations,
} from '../../helpers/browser.js';
import {localhostFetch} from '../../helpers/localhost-fetch.js';
import {CHROMIUM, describeNeeding} from '../../helpers/requirements.js';
import {type Receiver, startReceiver} from '../delivery/helpers.js';

const START = new Date('2031-05-01T12:00:00.000Z');
const ARTIFACTS = 'account-page';

let emu: RunningEmulator;
const port = () => new URL(emu.apiUrl).port;
/** The session cookie of this emulator: named after its port. */
const sessionCookie = () => `svc_session_${port()}`;
let browser: Browser;
let receiver: Receiver;
const contexts: BrowserContext[] = [];

/** Every page the tests visit is checked by axe and photographed once at desktop and phone width. */
const checked = new Set<string>();
async function checkPage(page: Page, name: string): Promise<void> {
  if (checked.has(name)) return;
  checked.add(name);
  expect(await seriousAxeViolations(page), `axe on ${name}`).toEqual([]);
  await screenshots(page, ARTIFACTS, name);
}

async function newPage(
  base = emu,
  options: {javaScript?: boolean} = {},
): Promise<{context: BrowserContext; page: Page; outside: string[]}> {
  // The page is opened where the ready line says: its own name, svc-<port>.localhost.
  const origin = new URL(base.accountUrl).origin;
  const context = await browser.newContext({
    baseURL: origin,
    javaScriptEnabled: options.javaScript ?? true,
  });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  // No asset may come from anywhere but the emulator itself.
  const outside: string[] = [];
  page.on('request', (req) => {
    if (!req.url().startsWith(origin)) outside.push(req.url());
  });
  return {context, page, outside};
}

/** Asks for a link, opens it from the mailbox, confirms: the way a person signs in. */
async function signIn(page: Page, email: string, options: {check?: boolean} = {}): Promise<void> {
  await page.goto('/account');
  if (options.check) await checkPage(page, 'sign-in');
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', {name: 'Email me a sign-in link'}).click();
  // Waits for the heading to show (the page's 10 s default), and throws if it never does.
  await page.getByRole('heading', {name: 'Check the mailbox'}).waitFor({state: 'visible'});
  if (options.check) await checkPage(page, 'check-mailbox');
  await page.getByRole('link', {name: 'mailbox'}).first().click();
  if (options.check) await checkPage(page, 'mailbox');
  await page
    .getByRole('link', {name: `Sign in as ${email}`})
    .first()
    .click();
  if (options.check) await checkPage(page, 'sign-in-confirm');
  await page.getByRole('button', {name: 'Sign in'}).click();
  await page.waitForURL('**/account');
  expect(await page.getByRole('heading', {level: 1}).textContent()).toBe('Overview');
}

/** The newest sign-in link in the mailbox for an address (what the person would click). */
async function latestLink(page: Page, email: string): Promise<string> {
  await page.goto('/account/mailbox');
  return (await page
    .getByRole('link', {name: `Sign in as ${email}`})
    .first()
    .getAttribute('href')) as string;
}

async function requestLink(page: Page, email: string): Promise<string> {
  await page.goto('/account');
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', {name: 'Email me a sign-in link'}).click();
  return latestLink(page, email);
}

const errorsOn = async (page: Page) =>
  (await page.locator('.field-error').allTextContents()).map((t) => t.trim());

async function api(path: string, key: string): Promise<number> {
  const res = await fetch(`${emu.apiUrl}${path}`, {headers: {authorization: `Bearer ${key}`}});
  await res.arrayBuffer();
  return res.status;
}

describeNeeding([CHROMIUM], 'the account page in Chromium', {timeout: 60_000}, () => {
  let alice: Page;
  let aliceOutside: string[];

  beforeAll(async () => {
    receiver = await startReceiver((_q, res) => {
      res.writeHead(200, {'content-type': 'text/plain'});
      res.end('thanks, got it');
    });
    emu = await startEmulator({
      port: 0,
      inMemory: true,
      clock: 'manual',
      clockStart: START,
      allowLocalEndpoints: true,
      demo: true,
    });
    browser = await launchChromium();
    ({page: alice, outside: aliceOutside} = await newPage());
  }, 60_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await emu?.stop();
    await receiver?.close();
  });

  /**
   * Alice, the default org's owner, signed in: by the sign-in test when the file runs whole, here when a test runs
   * alone. The first address to sign in owns the default org, and no test signs anyone in before her.
   */
  async function aliceSignedIn(): Promise<void> {
    if ((await alice.context().cookies()).some((c) => c.name.startsWith('svc_session_'))) return;
    await signIn(alice, 'alice@example.com');
  }

  it('shows a logged-out visitor the sign-in page and never data', async () => {
    const {page} = await newPage();
    for (const path of ['/account/keys', '/account/webhooks', '/account/team']) {
      const res = await page.goto(path);
      expect(res?.status()).toBe(401);
      expect(await page.getByRole('heading', {level: 1}).textContent()).toBe('Sign in');
      expect(await page.content()).not.toContain(emu.orgId);
    }
  });

  it('signs the first address in as owner of the default org, with a rotated HttpOnly SameSite=Lax cookie', async () => {
    await signIn(alice, 'Alice@Example.com', {check: true});
    await checkPage(alice, 'overview');
    expect(await alice.locator('.org-line').textContent()).toContain(emu.orgId);
    expect(await alice.locator('.org-line').textContent()).toContain('owner');
    const cookies = await alice.context().cookies();
    const session = cookies.find((c) => c.name === sessionCookie());
    expect(session).toMatchObject({httpOnly: true, sameSite: 'Lax', path: '/account'});
    expect(cookies.some((c) => c.name === `svc_presession_${port()}`)).toBe(false);

    // Signing in again in the same browser (with a link asked for elsewhere) gets a new session id; the old
    // one stops working.
    const before = session?.value as string;
    const {page: elsewhere} = await newPage();
    const link = await requestLink(elsewhere, 'alice@example.com');
    await alice.goto(link);
    await alice.getByRole('button', {name: 'Sign in'}).click();
    await alice.waitForURL('**/account');
    const after = (await alice.context().cookies()).find((c) => c.name === sessionCookie())?.value;
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    const stale = await localhostFetch(`${new URL(emu.accountUrl).origin}/account/keys`, {
      headers: {cookie: `${sessionCookie()}=${before}`},
    });
    expect(stale.status).toBe(401);
    expect(await stale.text()).toContain('Sign in');
  });

  it('serves every page under a strict CSP with its own script and stylesheet only', async () => {
    const res = await alice.goto('/account');
    const csp = res?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await alice.content();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=/);
    const assets = await alice.evaluate(() =>
      performance.getEntriesByType('resource').map((e) => (e as PerformanceResourceTiming).encodedBodySize),
    );
    expect(assets.reduce((a, b) => a + b, 0)).toBeLessThan(30 * 1024);
    expect(aliceOutside).toEqual([]);
  });

  it('refuses a used link and an expired one', async () => {
    const {page} = await newPage();
    const used = await requestLink(page, 'dora@example.com');
    await page.goto(used);
    await page.getByRole('button', {name: 'Sign in'}).click();
    await page.waitForURL('**/account');
    const again = await page.goto(used);
    expect(again?.status()).toBe(400);
    expect(await page.locator('.notice').textContent()).toContain('already used');
    await checkPage(page, 'sign-in-link-refused');

    const {page: late} = await newPage();
    const link = await requestLink(late, 'erin@example.com');
    await emu.control.advanceClock('16m');
    await late.goto(link);
    expect(await late.locator('.notice').textContent()).toContain('expired');

    // Expiry counts at the moment of use too: a confirm page left open past 15 minutes does not sign in.
    const link2 = await requestLink(late, 'erin@example.com');
    await late.goto(link2);
    await emu.control.advanceClock('15m');
    await late.getByRole('button', {name: 'Sign in'}).click();
    expect(await late.locator('.notice').textContent()).toContain('expired');
    expect((await late.context().cookies()).some((c) => c.name === sessionCookie())).toBe(false);
  });

  it('creates a key, shows it once, and the API takes it until it is revoked', async () => {
    await aliceSignedIn();
    await alice.goto('/account/keys');
    await checkPage(alice, 'keys');
    await alice.getByLabel('Name').fill('ci runner');
    await alice.getByLabel('30 days').check();
    await alice.getByRole('button', {name: 'Create key'}).click();
    const secret = await alice.getByLabel('The new API key').inputValue();
    expect(secret).toMatch(/^svc_[0-9A-Za-z]{40}$/);
    expect(await alice.locator('.secret-once').textContent()).toContain('shown only this once');
    // The page's own script runs under the CSP: it shows the copy button, which puts the key on the clipboard.
    await alice.context().grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(emu.accountUrl).origin,
    });
    await alice.getByRole('button', {name: 'Copy'}).click();
    await alice.locator('.copy-status', {hasText: /./}).waitFor();
    expect(await alice.locator('.copy-status').textContent()).toBe('Copied to the clipboard.');
    expect(await alice.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await checkPage(alice, 'keys-created');

    const row = alice.getByRole('row').filter({hasText: 'ci runner'});
    expect(await row.textContent()).toContain(secret.slice(0, 8));
    expect(await row.textContent()).toContain('alice@example.com');
    expect(await row.textContent()).toContain('active');

    await alice.reload();
    expect(await alice.content()).not.toContain(secret);
    expect(await alice.getByLabel('The new API key').count()).toBe(0);

    expect(await api('/v1/org', secret)).toBe(200);

    // What the key opened onto a sandbox is on its row, and the confirmation says it stops too.
    const keyId = (await emu.repos.keys.list(emu.orgId)).find((k) => k.name === 'ci runner')?.id as string;
    const {sandbox} = await emu.control.createSandbox({name: 'review'});
    const desktop = await emu.control.createLink(sandbox.id, {kind: 'desktop', key_id: keyId});
    const browser = await emu.control.createLink(sandbox.id, {kind: 'browser', key_id: keyId});
    await alice.reload();
    expect(await row.textContent()).toContain('1 desktop link and 1 browser URL');

    await row.getByRole('link', {name: /Revoke/}).click();
    expect(await alice.getByRole('alert').textContent()).toContain(
      'Revoking ci runner also stops 1 desktop link and 1 browser URL',
    );
    await checkPage(alice, 'key-revoke-confirm');
    await alice.getByRole('button', {name: 'Revoke key'}).click();
    expect(await alice.locator('.notice').textContent()).toContain('revoked');
    expect(await alice.locator('.notice').textContent()).toContain(
      '1 desktop link and 1 browser URL stopped working',
    );
    expect(await alice.getByRole('row').filter({hasText: 'ci runner'}).textContent()).toContain('revoked');
    expect(await api('/v1/org', secret)).toBe(401);
    for (const link of [desktop, browser]) expect((await fetch(link.url)).status).toBe(403);
  });

  it('names every problem of the key form next to its field', async () => {
    await aliceSignedIn();
    await alice.goto('/account/keys');
    await alice.getByRole('button', {name: 'Create key'}).click();
    expect(await errorsOn(alice)).toEqual(['Error: Name must not be empty.']);
    expect(await alice.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    await expect(
      alice.locator('.error-summary').evaluate((el) => el === document.activeElement),
    ).resolves.toBe(true);
    await checkPage(alice, 'keys-errors');

    // What a browser would not let a person type, sent anyway.
    await alice.getByLabel('Name').evaluate((el) => {
      (el as HTMLInputElement).removeAttribute('maxlength');
      (el as HTMLInputElement).value = 'x'.repeat(101);
    });
    await alice.getByRole('button', {name: 'Create key'}).click();
    expect(await errorsOn(alice)).toEqual(['Error: Name must be at most 100 characters.']);

    await alice.getByLabel('Name').evaluate((el) => {
      (el as HTMLInputElement).value = 'bell\u0007';
    });
    await alice.getByRole('button', {name: 'Create key'}).click();
    expect(await errorsOn(alice)).toEqual(['Error: Name must not contain control characters.']);

    await alice.getByLabel('Name').fill('ok');
    await alice.getByLabel('Never').evaluate((el) => {
      (el as HTMLInputElement).value = 'forever';
      (el as HTMLInputElement).checked = true;
    });
    await alice.getByRole('button', {name: 'Create key'}).click();
    expect(await errorsOn(alice)).toEqual(['Error: Expires must be one of 30, 90, 365, never.']);
    expect(await alice.getByLabel('Name').inputValue()).toBe('ok');
  });

  it('explains the 25-active-key limit where it is reached', async () => {
    await aliceSignedIn();
    const active = (await emu.repos.keys.list(emu.orgId)).filter((k) => !k.revokedAt).length;
    for (let i = active; i < MAX_ACTIVE_KEYS_PER_ORG; i++) await emu.control.createKey({name: `bulk ${i}`});
    await alice.goto('/account/keys');
    expect(await alice.getByRole('button', {name: 'Create key'}).count()).toBe(0);
    expect(await alice.locator('.notice-warning').textContent()).toContain(
      `${MAX_ACTIVE_KEYS_PER_ORG} active keys, the most it can hold`,
    );
    await checkPage(alice, 'keys-limit');
  });

  let endpointId = '';
  it('adds an endpoint, shows its signing secret once, and lists a delivery with its attempt', async () => {
    await aliceSignedIn();
    await alice.goto('/account/webhooks');
    await checkPage(alice, 'webhooks-empty');
    await alice.getByRole('link', {name: 'Add endpoint'}).click();
    await checkPage(alice, 'webhook-new');
    await alice.getByLabel('URL').fill(`${receiver.url}/hooks`);
    await alice.getByLabel(/sandbox\.ready/).check();
    await alice.getByLabel(/Description/).fill('local test receiver');
    await alice.getByRole('button', {name: 'Add endpoint'}).click();
    const secret = await alice.getByLabel('The signing secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await checkPage(alice, 'webhooks-created');
    await alice.reload();
    expect(await alice.content()).not.toContain(secret);

    // The page's own timers run on a clock the test moves: its 5-second update comes when told, not 5 s later.
    await alice.clock.install();
    await alice
      .getByRole('link', {name: /^Deliveries/})
      .first()
      .click();
    endpointId = alice.url().split('/').pop() as string;
    expect(await alice.locator('.empty').textContent()).toContain('No deliveries yet');

    const move = await emu.control.trigger({type: 'sandbox.ready'});
    await (receiver as Receiver).received(1);
    // No reload: the page's script brings the list up to date by itself, on its next 5-second tick.
    expect(await alice.getByLabel('Update every 5 seconds').isChecked()).toBe(true);
    await alice.clock.runFor(5000);
    await alice.locator('#deliveries .badge-succeeded').first().waitFor({timeout: 20_000});
    expect(await alice.locator('[data-live-status]').textContent()).toBe('The deliveries list was updated.');
    await checkPage(alice, 'deliveries');
    await alice
      .getByRole('link', {name: /sandbox\.ready/})
      .first()
      .click();
    expect(await alice.locator('.attempts').textContent()).toContain('HTTP 200');
    await alice.getByText(/Response body/).click();
    expect(await alice.locator('.attempts pre').textContent()).toBe('thanks, got it');
    expect(await alice.locator('pre.code').last().textContent()).toContain(move.event?.id as string);
    expect(await alice.getByText(/Response body/).textContent()).toBe(
      'Response body (the first 4 kB, as kept)',
    );
    await checkPage(alice, 'delivery');

    // Resent from the page as from the CLI; attempts read oldest first, as the CLI and the TUI list them.
    await alice.getByRole('button', {name: 'Resend now'}).click();
    expect(await alice.locator('.notice').textContent()).toBe('Resent as attempt 2: HTTP 200.');
    expect(await alice.locator('.attempts .attempt-head strong').allTextContents()).toEqual([
      'Attempt 1',
      'Attempt 2',
    ]);
    expect(await alice.locator('.attempts').textContent()).toContain('resent');
    await (receiver as Receiver).received(2);
    expect(receiver.requests[1]?.headers['svc-delivery-attempt']).toBe('2');
  });

  it('names every problem of the endpoint form next to its field', async () => {
    await aliceSignedIn();
    await alice.goto('/account/webhooks/new');
    await alice.getByRole('button', {name: 'Add endpoint'}).click();
    expect(await errorsOn(alice)).toEqual([
      'Error: URL is required.',
      'Error: Events must name at least one event type (sandbox.ready, sandbox.stopped, sandbox.error, sandbox.expired).',
    ]);
    await checkPage(alice, 'webhook-errors');

    const cases: [string, string][] = [
      ['https://user:pw@example.com/hook', 'URL must not contain a user name or password.'],
      ['https://example.com/hook#part', 'URL must not contain a fragment.'],
      ['ftp://example.com/hook', 'URL must use https:// or http://.'],
      [`https://example.com/${'a'.repeat(2050)}`, 'URL is longer than 2048 characters.'],
      ['not a url', 'URL contains whitespace or control characters.'],
    ];
    for (const [url, message] of cases) {
      await alice.getByLabel('URL').fill(url);
      await alice.getByLabel(/sandbox\.error/).check();
      await alice.getByRole('button', {name: 'Add endpoint'}).click();
      expect(await errorsOn(alice), url.slice(0, 40)).toEqual([`Error: ${message}`]);
      expect(await alice.getByLabel('URL').inputValue()).toBe(url);
    }

    await alice.getByLabel('URL').fill('https://example.com/hook');
    await alice.getByLabel('Description (optional)').evaluate((el) => {
      (el as HTMLTextAreaElement).removeAttribute('maxlength');
      (el as HTMLTextAreaElement).value = 'd'.repeat(201);
    });
    await alice.getByRole('button', {name: 'Add endpoint'}).click();
    expect(await errorsOn(alice)).toEqual(['Error: Description must be at most 200 characters.']);

    await alice.getByLabel('Description (optional)').evaluate((el) => {
      (el as HTMLTextAreaElement).value = 'tab\u0001';
    });
    await alice.getByLabel(/sandbox\.stopped/).evaluate((el) => {
      (el as HTMLInputElement).value = 'sandbox.exploded';
      (el as HTMLInputElement).checked = true;
    });
    await alice.getByRole('button', {name: 'Add endpoint'}).click();
    expect(await errorsOn(alice)).toEqual([
      'Error: Unknown event type "sandbox.exploded"; known: sandbox.ready, sandbox.stopped, sandbox.error, sandbox.expired.',
      'Error: Description must not contain control characters.',
    ]);
  });

  it('takes the description on one line: Enter there adds the endpoint, and a pasted line break is no refusal', async () => {
    await alice.goto('/account/webhooks/new');
    await alice.getByLabel('URL', {exact: true}).fill(`${receiver.url}/one-line`);
    await alice.getByLabel(/sandbox\.stopped/).check();
    const description = alice.getByLabel(/Description/);
    await description.fill('billing receiver\non staging');
    expect(await description.inputValue()).not.toMatch(/[\r\n]/);
    await description.press('Enter');
    expect(await alice.getByLabel('The signing secret').inputValue()).toMatch(/^whsec_/);
    const added = (await listEndpoints(emu.context, emu.orgId)).find((w) => w.url.endsWith('/one-line'));
    expect(added?.description).toMatch(/^billing receiver ?on staging$/);
    await emu.control.deleteWebhook(added?.id as string);
  });

  it('refuses a local URL on an emulator without --allow-local-endpoints and shows the way out', async () => {
    const strict = await startEmulator({port: 0, inMemory: true, clock: 'manual', clockStart: START});
    try {
      const {page} = await newPage(strict);
      await signIn(page, 'frank@example.com');
      await page.goto('/account/webhooks/new');
      expect(await page.locator('#url-rule').textContent()).toContain('https:// only, a public host');
      await page.getByLabel('URL').fill('http://localhost:3000/webhooks');
      await page.getByLabel(/sandbox\.ready/).check();
      await page.getByRole('button', {name: 'Add endpoint'}).click();
      expect(await errorsOn(page)).toEqual(['Error: URL must use https://.']);
      const wayOut = await page.locator('.notice').textContent();
      expect(wayOut).toContain('svc listen --forward-to');
      expect(wayOut).toContain('--allow-local-endpoints');
      await checkPage(page, 'webhook-local-refused');

      await page.getByLabel('URL').fill('https://127.0.0.1/webhooks');
      await page.getByRole('button', {name: 'Add endpoint'}).click();
      expect((await errorsOn(page))[0]).toContain('public address');
      expect(await page.locator('.notice').textContent()).toContain('svc listen');
    } finally {
      await strict.stop();
    }
  });

  it('deletes an endpoint after a confirmation, and explains the 10-endpoint limit', async () => {
    await aliceSignedIn();
    // The endpoint the test before added, or one of its own when it runs alone.
    endpointId ||= (
      await emu.control.createWebhook({url: `${receiver.url}/hooks`, events: ['sandbox.ready']})
    ).id;
    await alice.goto(`/account/webhooks/${endpointId}/delete`);
    await checkPage(alice, 'webhook-delete-confirm');
    await alice.getByRole('button', {name: 'Delete endpoint'}).click();
    expect(await alice.locator('.notice').textContent()).toContain('is deleted');
    expect(await alice.content()).not.toContain(endpointId);

    // The relay of svc listen is listed but takes none of the 10 places, on the page as in the CLI.
    const relay = await emu.control.registerRelay();
    for (let i = 0; i < MAX_ENDPOINTS_PER_ORG - 1; i++) {
      await emu.control.createWebhook({url: `${receiver.url}/n${i}`, events: ['sandbox.error']});
    }
    await alice.goto('/account/webhooks');
    expect(await alice.locator('.bar .muted').textContent()).toBe(
      '9 of 10 endpoints, and the svc listen relay, which does not count.',
    );
    expect(await alice.getByRole('link', {name: 'Add endpoint'}).count()).toBe(1);
    await alice.goto(`/account/webhooks/${relay.endpoint_id}/delete`);
    expect(await alice.locator('.notice-warning').textContent()).toContain('a running svc listen stops');
    await emu.control.createWebhook({url: `${receiver.url}/last`, events: ['sandbox.error']});
    await alice.goto('/account/webhooks');
    expect(await alice.locator('.bar .muted').textContent()).toContain('10 of 10 endpoints');
    expect(await alice.getByRole('link', {name: 'Add endpoint'}).count()).toBe(0);
    expect(await alice.locator('.notice-warning').textContent()).toContain('10 webhook endpoints, the most');
    await checkPage(alice, 'webhooks-limit');
  });

  it('fits phones down to 320 px: no page scrolls sideways, and every tab is whole', async () => {
    const before = alice.viewportSize();
    try {
      for (const width of [390, 375, 360, 320]) {
        await alice.setViewportSize({width, height: 740});
        for (const path of ['/account', '/account/keys', '/account/webhooks', '/account/team']) {
          await alice.goto(path);
          const fit = await alice.evaluate(() => ({
            page: document.documentElement.scrollWidth,
            view: document.documentElement.clientWidth,
            tabs: [...document.querySelectorAll('.tabs a')].map((a) => {
              const r = a.getBoundingClientRect();
              return {text: a.textContent, right: Math.ceil(r.right), left: Math.floor(r.left)};
            }),
          }));
          expect(fit.page, `${path} at ${width} px`).toBeLessThanOrEqual(fit.view);
          for (const tab of fit.tabs) {
            expect(tab.left, `${tab.text} at ${width} px`).toBeGreaterThanOrEqual(0);
            expect(tab.right, `${tab.text} at ${width} px`).toBeLessThanOrEqual(fit.view);
          }
        }
      }
    } finally {
      if (before) await alice.setViewportSize(before);
    }
  });

  it('refuses forged form posts: no token, a wrong token, another origin', async () => {
    await aliceSignedIn();
    await alice.goto('/account/keys');
    const token = await alice.locator('input[name=csrf]').first().inputValue();
    const before = (await emu.repos.keys.list(emu.orgId)).length;
    const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      postWithCookies(alice, '/account/team', {form, headers, maxRedirects: 0});
    expect((await post({email: 'mallory@example.com'})).status()).toBe(403);
    expect((await post({email: 'mallory@example.com', csrf: 'x'.repeat(43)})).status()).toBe(403);
    const crossSite = await post(
      {email: 'mallory@example.com', csrf: token},
      {origin: 'http://evil.example'},
    );
    expect(crossSite.status()).toBe(403);
    expect(await crossSite.text()).toContain('Form refused');
    const logout = await postWithCookies(alice, '/account/logout', {form: {}, maxRedirects: 0});
    expect(logout.status()).toBe(403);
    expect((await emu.repos.keys.list(emu.orgId)).length).toBe(before);
    await alice.goto('/account/team');
    expect(await alice.content()).not.toContain('mallory');
  });

  it('refuses oversized and unreadable posts with a page, never a 500', async () => {
    await aliceSignedIn();
    await alice.goto('/account/keys');
    const csrf = await alice.locator('input[name=csrf]').first().inputValue();
    const big = await postWithCookies(alice, '/account/keys', {form: {csrf, name: 'x'.repeat(20_000)}});
    expect(big.status()).toBe(413);
    expect(await big.text()).toContain('Form too large');
    const json = await postWithCookies(alice, '/account/keys', {data: {csrf, name: 'json'}});
    expect(json.status()).toBe(415);
  });

  it('lets the owner invite an admin, who manages the same org; another person sees only their own org', async () => {
    await aliceSignedIn();
    await alice.goto('/account/team');
    await alice.getByRole('button', {name: 'Invite admin'}).click();
    expect(await errorsOn(alice)).toEqual(['Error: Enter an email address.']);
    await alice.getByLabel('Email address').fill('carol@');
    await alice.getByRole('button', {name: 'Invite admin'}).click();
    expect(await errorsOn(alice)).toEqual(['Error: Enter an address like name@example.com.']);
    await alice.getByLabel('Email address').fill('alice@example.com');
    await alice.getByRole('button', {name: 'Invite admin'}).click();
    expect(await errorsOn(alice)).toEqual(['Error: alice@example.com is already in this org.']);
    await alice.getByLabel('Email address').fill('carol@example.com');
    await alice.getByRole('button', {name: 'Invite admin'}).click();
    expect(await alice.locator('.notice').textContent()).toContain(
      'An invitation for carol@example.com is in the mailbox',
    );
    await checkPage(alice, 'team');

    // An invitation is an offer: Carol lands in an org of her own until she accepts it on her overview.
    const {page: carol} = await newPage();
    await signIn(carol, 'carol@example.com');
    expect(await carol.locator('.org-line').textContent()).not.toContain(emu.orgId);
    await checkPage(carol, 'overview-invitation');
    await carol.getByRole('button', {name: 'Accept'}).click();
    expect(await carol.locator('.org-line').textContent()).toContain(emu.orgId);
    expect(await carol.locator('.org-line').textContent()).toContain('admin');
    await carol.goto('/account/team');
    expect(await carol.getByRole('button', {name: 'Invite admin'}).count()).toBe(0);
    const csrf = await carol.locator('input[name=csrf]').first().inputValue();
    const invite = await postWithCookies(carol, '/account/team', {form: {csrf, email: 'x@example.com'}});
    expect(invite.status()).toBe(403);

    let {page: bob} = await newPage();
    await signIn(bob, 'bob@example.com');
    const bobOrg = await bob.locator('.org-line code').textContent();
    expect(bobOrg).not.toBe(emu.orgId);
    await bob.goto('/account/keys');
    expect(await bob.content()).not.toContain('bulk 1');
    await bob.goto('/account/webhooks');
    expect(await bob.content()).not.toContain(receiver.url);

    // Things of Alice's org for Bob to try to reach: what earlier tests made, or made here when this runs alone.
    if ((await emu.repos.endpoints.list(emu.orgId)).length === 0)
      await emu.control.createWebhook({url: `${receiver.url}/hooks`, events: ['sandbox.ready']});
    const hasDelivery = async () =>
      (await emu.db.query('SELECT 1 FROM deliveries WHERE org_id = $1 LIMIT 1', [emu.orgId])).rows.length > 0;
    if (!(await hasDelivery())) {
      // An event one of the org's endpoints takes (the full-file run left only sandbox.error endpoints).
      const [hook] = await emu.repos.endpoints.list(emu.orgId);
      // The trigger records the event and its deliveries before it answers.
      const moved = await emu.control.trigger({type: hook?.events[0] as EventType});
      expect(moved.deliveries).toBeGreaterThan(0);
      expect(await hasDelivery()).toBe(true);
    }
    const aliceKey = (await emu.repos.keys.list(emu.orgId)).find((k) => !k.revokedAt);
    const aliceHook = (await emu.repos.endpoints.list(emu.orgId))[0];
    const delivery = await emu.db.query<{id: string; endpoint_id: string}>(
      'SELECT id, endpoint_id FROM deliveries WHERE org_id = $1 LIMIT 1',
      [emu.orgId],
    );
    const d = delivery.rows[0];
    for (const path of [
      `/account/keys/${aliceKey?.id}/revoke`,
      `/account/webhooks/${aliceHook?.id}`,
      `/account/webhooks/${aliceHook?.id}/delete`,
      `/account/webhooks/${d?.endpoint_id}/deliveries/${d?.id}`,
    ]) {
      const res = await bob.goto(path);
      expect(res?.status(), path).toBe(404);
    }
    await checkPage(bob, 'not-found');
    const bobCsrf = await bob.locator('input[name=csrf]').first().inputValue();
    const revoke = await postWithCookies(bob, `/account/keys/${aliceKey?.id}/revoke`, {
      form: {csrf: bobCsrf},
    });
    expect(revoke.status()).toBe(404);
    const remove = await postWithCookies(bob, `/account/webhooks/${aliceHook?.id}/delete`, {
      form: {csrf: bobCsrf},
    });
    expect(remove.status()).toBe(404);
    expect((await emu.repos.keys.get(undefined, aliceKey?.id as string))?.revokedAt).toBeNull();
    expect(await emu.repos.endpoints.get(undefined, aliceHook?.id as string)).toBeDefined();

    // Bob, invited to Alice's org as well, accepts and can switch between the two.
    await alice.goto('/account/team');
    await alice.getByLabel('Email address').fill('bob@example.com');
    await alice.getByRole('button', {name: 'Invite admin'}).click();
    const {page: bobAgain} = await newPage();
    await signIn(bobAgain, 'bob@example.com');
    bob = bobAgain;
    expect(await bob.locator('.org-line code').textContent()).toBe(bobOrg);
    await bob.getByRole('button', {name: 'Accept'}).click();
    expect(await bob.locator('.org-line code').textContent()).toBe(emu.orgId);
    await checkPage(bob, 'overview-two-orgs');
    await bob.getByLabel('Switch org').selectOption({label: "bob@example.com's org"});
    await bob.getByRole('button', {name: 'Switch', exact: true}).click();
    expect(await bob.locator('.org-line code').textContent()).toBe(bobOrg);
    await bob.goto('/account/keys');
    expect(await bob.content()).not.toContain('bulk 1');
    // A forged switch to an org he does not belong to is refused.
    const csrfNow = await bob.locator('input[name=csrf]').first().inputValue();
    const strangerOrg = (await emu.control.createOrg({name: 'Stranger org'})).id;
    const forgedSwitch = await postWithCookies(bob, '/account/org', {
      form: {csrf: csrfNow, org_id: strangerOrg},
    });
    expect(forgedSwitch.status()).toBe(404);
    await bob.goto('/account');
    expect(await bob.locator('.org-line code').textContent()).toBe(bobOrg);
  });

  it('keeps an invitation an offer: withdrawn, declined, or accepted and left; a sign-in lands where one last was', async () => {
    const invite = async (email: string) => {
      await alice.goto('/account/team');
      await alice.getByLabel('Email address').fill(email);
      await alice.getByRole('button', {name: 'Invite admin'}).click();
    };
    const members = async () =>
      (await alice.locator('table').first().locator('td[data-label=Email]').allTextContents()).map((t) =>
        t.trim(),
      );
    await invite('dave@example.com');
    await invite('dave@example.com');
    expect(await errorsOn(alice)).toEqual(['Error: dave@example.com already has an invitation waiting.']);
    expect(await members()).not.toContain('dave@example.com');
    expect(
      await alice.getByRole('button', {name: 'Withdraw the invitation of dave@example.com'}).count(),
    ).toBe(1);

    // Dave signs in to an org of his own: what he makes there is not the inviter's.
    const {page: dave} = await newPage();
    await signIn(dave, 'dave@example.com');
    const daveOrg = (await dave.locator('.org-line code').textContent()) as string;
    expect(daveOrg).not.toBe(emu.orgId);
    await dave.goto('/account/keys');
    await dave.getByLabel('Name').fill('daves key');
    await dave.getByRole('button', {name: 'Create key'}).click();
    expect((await emu.repos.keys.list(emu.orgId)).some((k) => k.name === 'daves key')).toBe(false);

    // Withdrawn: the offer is gone from his overview, and a form still open for it is refused.
    await dave.goto('/account');
    const csrf = await dave.locator('input[name=csrf]').first().inputValue();
    await alice.goto('/account/team');
    await alice.getByRole('button', {name: 'Withdraw the invitation of dave@example.com'}).click();
    expect(await alice.locator('.notice').textContent()).toContain('The invitation is withdrawn.');
    const late = await postWithCookies(dave, `/account/invitations/${emu.orgId}/accept`, {form: {csrf}});
    expect(late.status()).toBe(404);
    await dave.goto('/account');
    expect(await dave.getByRole('button', {name: 'Accept'}).count()).toBe(0);
    expect(await dave.locator('.org-line code').textContent()).toBe(daveOrg);

    // Declined: nothing changes.
    await invite('dave@example.com');
    await dave.goto('/account');
    await dave.getByRole('button', {name: 'Decline'}).click();
    expect(await dave.getByRole('button', {name: 'Accept'}).count()).toBe(0);
    await alice.goto('/account/team');
    expect(await members()).not.toContain('dave@example.com');

    // Accepted, he is an admin there, and his next sign-in lands where he last was.
    await invite('dave@example.com');
    await dave.goto('/account');
    await dave.getByRole('button', {name: 'Accept'}).click();
    expect(await dave.locator('.org-line code').textContent()).toBe(emu.orgId);
    const {page: daveAgain} = await newPage();
    await signIn(daveAgain, 'dave@example.com');
    expect(await daveAgain.locator('.org-line code').textContent()).toBe(emu.orgId);

    // He leaves, and is back in his own org; the owner cannot leave hers.
    await daveAgain.goto('/account/team');
    await daveAgain.getByRole('button', {name: 'Leave this org'}).click();
    expect(await daveAgain.locator('.org-line code').textContent()).toBe(daveOrg);
    await alice.goto('/account/team');
    expect(await members()).not.toContain('dave@example.com');
    expect(await alice.getByRole('button', {name: 'Leave this org'}).count()).toBe(0);
    const aliceCsrf = await alice.locator('input[name=csrf]').first().inputValue();
    const ownerLeaves = await postWithCookies(alice, '/account/team/leave', {form: {csrf: aliceCsrf}});
    expect(ownerLeaves.status()).toBe(403);
  });

  it('works without JavaScript: sign in, create a key and see it once, with nothing the script would add', async () => {
    const {page} = await newPage(emu, {javaScript: false});
    await signIn(page, 'nojs@example.com');
    await page.goto('/account/keys');
    await page.getByLabel('Name').fill('no script');
    await page.getByRole('button', {name: 'Create key'}).click();
    expect(await page.getByLabel('The new API key').inputValue()).toMatch(/^svc_/);
    expect(await page.getByRole('button', {name: 'Copy'}).isVisible()).toBe(false);
    const orgId = (await page.locator('.org-line code').textContent()) as string;
    const hook = await emu.control.createWebhook({
      url: `${receiver.url}/nojs`,
      events: ['sandbox.ready'],
      org_id: orgId,
    });
    await page.goto(`/account/webhooks/${hook.id}`);
    expect(await page.getByText('Update every 5 seconds').isVisible()).toBe(false);
    expect(await page.getByRole('link', {name: 'Refresh'}).isVisible()).toBe(true);
  });

  it('keeps a hyphenated key name on one line at desktop width: agent-7, never agent- above 7', async () => {
    const {page} = await newPage();
    await page.setViewportSize(DESKTOP);
    await signIn(page, 'hyphen@example.com');
    await page.goto('/account/keys');
    await page.getByLabel('Name').fill('agent-7');
    await page.getByRole('button', {name: 'Create key'}).click();
    await page.getByRole('heading', {name: 'Keys', exact: true}).waitFor();
    const cell = page.getByRole('cell', {name: 'agent-7', exact: true});
    // The lines the name's text takes: the height of its text over the height of one line.
    const lines = await cell.evaluate((td) => {
      const range = document.createRange();
      range.selectNodeContents(td);
      return Math.round(
        range.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(td).lineHeight),
      );
    });
    expect(lines).toBe(1);
  });

  it('works from the keyboard alone: sign out reached by Tab and Enter', async () => {
    const {page} = await newPage();
    await signIn(page, 'gina@example.com');
    await page.goto('/account/keys');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    let found = false;
    for (let i = 0; i < 10 && !found; i++) {
      await page.keyboard.press('Tab');
      found = (await page.evaluate(() => document.activeElement?.textContent)) === 'Sign out';
    }
    expect(found).toBe(true);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/account');
    expect(await page.getByRole('heading', {level: 1}).textContent()).toBe('Sign in');
    const res = await page.goto('/account/keys');
    expect(res?.status()).toBe(401);
  });
});
