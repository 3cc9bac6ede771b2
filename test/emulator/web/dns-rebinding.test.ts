// DNS rebinding replayed in real Chromium: a page loaded from another site's name, whose name then resolves to
// 127.0.0.1, runs the whole takeover (read the mailbox, sign in as the org's owner through it, create a key and
// read its secret) from its own origin. The same script from the emulator's own address shows it would work.
import type {Browser, Page} from 'playwright-core';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {launchChromium} from '../../helpers/browser.js';
import {CHROMIUM, describeNeeding, unmet} from '../../helpers/requirements.js';

const REBOUND = 'rebind.test';
const OWNER = 'owner@example.com';

let emu: RunningEmulator;
let browser: Browser;

beforeAll(async () => {
  emu = await startEmulator({port: 0, inMemory: true});
  if (!unmet([CHROMIUM])) {
    // The name resolves to the emulator's address, as a rebinding DNS server makes it after the page has loaded.
    browser = await launchChromium([
      `--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`,
      // Chromium asks before a public page reaches a local address (Local Network Access); other browsers do
      // not, and a person may allow it: the emulator has to hold without that prompt.
      '--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests',
    ]);
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await emu?.stop();
});

interface Step {
  what: string;
  status: number;
}
interface Takeover {
  steps: Step[];
  secret?: string;
}

/**
 * What the hostile page's script does, every request same-origin from its point of view: the browser sends
 * its cookies and lets it read every answer.
 */
async function takeOver(page: Page, email: string): Promise<Takeover> {
  return page.evaluate(async (address: string): Promise<Takeover> => {
    const steps: {what: string; status: number}[] = [];
    const csrfIn = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
    const get = async (what: string, path: string) => {
      const res = await fetch(path);
      steps.push({what, status: res.status});
      return res.text();
    };
    const post = async (what: string, path: string, fields: Record<string, string>) => {
      const res = await fetch(path, {method: 'POST', body: new URLSearchParams(fields)});
      steps.push({what, status: res.status});
      return res.text();
    };
    const login = await get('sign-in page', '/account');
    await post('ask for a link', '/account/login', {csrf: csrfIn(login), email: address});
    const mailbox = await get('mailbox', '/account/mailbox');
    const link = /href="([^"]*\/account\/sign-in\?token=[^"]+)"/.exec(mailbox)?.[1]?.replaceAll('&amp;', '&');
    if (!link) return {steps};
    const confirm = await get('sign-in link', new URL(link).pathname + new URL(link).search);
    const token = /name="token" value="([^"]+)"/.exec(confirm)?.[1] ?? '';
    await post('confirm sign-in', '/account/sign-in', {csrf: csrfIn(confirm), token});
    const keys = await get('keys page', '/account/keys');
    const created = await post('create a key', '/account/keys', {
      csrf: csrfIn(keys),
      name: 'taken',
      expires: 'never',
    });
    return {steps, secret: /svc_[0-9A-Za-z]{40}/.exec(created)?.[0]};
  }, email);
}

/** A page whose origin is `origin`, its HTML served by the test (the hostile site, before its name rebinds). */
async function pageAt(origin: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.route(`${origin}/start`, (route) =>
    route.fulfill({status: 200, contentType: 'text/html', body: '<!doctype html><title>a page</title>'}),
  );
  await page.goto(`${origin}/start`);
  return page;
}

describeNeeding([CHROMIUM], 'DNS rebinding against the account page', {timeout: 60_000}, () => {
  it('refuses every request of a page whose name rebinds to 127.0.0.1: no mailbox, no sign-in, no key', async () => {
    const port = new URL(emu.apiUrl).port;
    const hostile = await pageAt(`http://${REBOUND}:${port}`);
    const attempt = await takeOver(hostile, OWNER);
    console.log(`from ${REBOUND}: ${JSON.stringify(attempt.steps)}`);
    expect(attempt.secret).toBeUndefined();
    expect(attempt.steps.length).toBeGreaterThan(0);
    for (const step of attempt.steps) expect(step, step.what).toEqual({what: step.what, status: 421});
    expect(await emu.repos.keys.list(emu.orgId)).toEqual([]);

    // The same script from the page's own address gets all the way: the refusal above is the name's.
    const own = await pageAt(new URL(emu.accountUrl).origin);
    const signedIn = await takeOver(own, OWNER);
    expect(signedIn.secret, JSON.stringify(signedIn.steps)).toMatch(/^svc_/);
    expect((await emu.repos.keys.list(emu.orgId)).map((k) => k.name)).toEqual(['taken']);
  });

  it('refuses a rebound name on the control surface and /v1 before looking at the token', async () => {
    const port = new URL(emu.apiUrl).port;
    const page = await pageAt(`http://${REBOUND}:${port}`);
    const statuses = await page.evaluate(
      async (token) =>
        Promise.all(
          ['/_emulator/health', '/v1/org'].map(
            async (path) => (await fetch(path, {headers: {authorization: `Bearer ${token}`}})).status,
          ),
        ),
      emu.adminToken,
    );
    expect(statuses).toEqual([421, 421]);
  });
});
