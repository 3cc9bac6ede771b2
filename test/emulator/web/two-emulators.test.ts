// Sessions in a browser that also shows other local servers. Browsers keep cookies per host name, never per port,
// so a session cookie set at 127.0.0.1 or localhost would go to every server browsed there: another emulator, or
// the developer's own app on :3000 on its /account paths. Each emulator's page lives at a name of its own
// (svc-<port>.localhost), opened from whichever address, and its cookies are set there only. Two emulators are the
// point, both started once for the file, beside one Chromium.
import {createServer, type IncomingMessage, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import type {Browser, BrowserContext, Page} from 'playwright-core';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {launchChromium} from '../../helpers/browser.js';
import {CHROMIUM, describeNeeding, unmet} from '../../helpers/requirements.js';

let one: RunningEmulator;
let two: RunningEmulator;
let browser: Browser;

beforeAll(async () => {
  [one, two] = await Promise.all([
    startEmulator({port: 0, inMemory: true}),
    startEmulator({port: 0, inMemory: true}),
  ]);
  if (!unmet([CHROMIUM])) browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await one?.stop();
  await two?.stop();
});

/**
 * Signs in the way a person does, starting from the emulator's API address (the first one its ready line prints,
 * and the one the account page had before it had a name of its own).
 */
async function signIn(page: Page, emu: RunningEmulator, email: string): Promise<void> {
  await page.goto(`${emu.apiUrl}/account`);
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', {name: 'Email me a sign-in link'}).click();
  await page.getByRole('heading', {name: 'Check the mailbox'}).waitFor({state: 'visible'});
  await page.goto(`${emu.apiUrl}/account/mailbox`);
  await page
    .getByRole('link', {name: `Sign in as ${email}`})
    .first()
    .click();
  await page.getByRole('button', {name: 'Sign in'}).click();
  await page.waitForURL(emu.accountUrl);
}

async function signedInAs(page: Page, emu: RunningEmulator): Promise<string | null> {
  await page.goto(`${emu.accountUrl}/keys`);
  if ((await page.getByRole('heading', {level: 1}).textContent()) === 'Sign in') return null;
  return page.locator('.who-email').first().textContent();
}

/** The addresses a browser on this machine may reach an emulator's page by. */
const addressesOf = (emu: RunningEmulator) => {
  const port = new URL(emu.apiUrl).port;
  return [emu.accountUrl, `${emu.apiUrl}/account/keys`, `http://localhost:${port}/account/keys`];
};

/** The names of the account-page cookies the browser would send to `url`. */
async function svcCookiesFor(context: BrowserContext, url: string): Promise<string[]> {
  return (await context.cookies(url)).filter((c) => c.name.startsWith('svc_')).map((c) => c.name);
}

/** A plain local HTTP server, like a developer's own app, that records the Cookie header of every request. */
async function recordingServer(): Promise<{
  server: Server;
  port: number;
  seen: {path: string; cookie: string}[];
}> {
  const seen: {path: string; cookie: string}[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    seen.push({path: req.url ?? '', cookie: req.headers.cookie ?? ''});
    // A cookie of its own, so the record shows that cookies for this host do arrive.
    res.setHeader('Set-Cookie', 'app_session=mine; Path=/');
    res.setHeader('Content-Type', 'text/html');
    res.end('<!doctype html><title>my app</title><h1>my app</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {server, port: (server.address() as AddressInfo).port, seen};
}

describeNeeding([CHROMIUM], 'session cookies in one browser', {timeout: 60_000}, () => {
  it('keeps a session with each of two emulators, and neither is ever sent the other’s cookies', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await signIn(page, one, 'first@example.com');
    await signIn(page, two, 'second@example.com');
    expect(await signedInAs(page, one)).toContain('first@example.com');
    expect(await signedInAs(page, two)).toContain('second@example.com');

    // Each emulator's cookies are the browser's to send only to that emulator, by whichever address it is reached.
    const oneCookies = await svcCookiesFor(context, one.accountUrl);
    expect(oneCookies).toContain(`svc_session_${new URL(one.apiUrl).port}`);
    for (const url of addressesOf(two)) {
      const sent = await svcCookiesFor(context, url);
      expect(sent, url).not.toContain(`svc_session_${new URL(one.apiUrl).port}`);
    }
    for (const url of addressesOf(one)) {
      const sent = await svcCookiesFor(context, url);
      expect(sent, url).not.toContain(`svc_session_${new URL(two.apiUrl).port}`);
    }

    // Signing out of one ends only that one.
    await page.goto(two.accountUrl);
    await page.getByRole('button', {name: 'Sign out'}).click();
    expect(await signedInAs(page, two)).toBeNull();
    expect(await signedInAs(page, one)).toContain('first@example.com');
    await context.close();
  });

  it('sends no session cookie to another local server, browsed at localhost or 127.0.0.1, on any path', async () => {
    const app = await recordingServer();
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      await signIn(page, one, 'owner@example.com');
      expect(await signedInAs(page, one)).toContain('owner@example.com');

      const paths = ['/', '/account', '/account/keys', '/account/mailbox', '/account/sign-in?token=x'];
      for (const host of ['localhost', '127.0.0.1']) {
        for (const path of paths) {
          const res = await page.goto(`http://${host}:${app.port}${path}`);
          expect(res?.status(), `${host}${path}`).toBe(200);
        }
      }
      // (Chromium asks for /favicon.ico now and then besides.)
      const pages = app.seen.filter((s) => s.path !== '/favicon.ico');
      expect(pages.map((s) => s.path)).toEqual([...paths, ...paths]);
      // The record works: the app's own cookie came back to it...
      expect(pages.at(-1)?.cookie).toContain('app_session=mine');
      // ...and nothing of the emulator's ever did.
      for (const s of app.seen) expect(s.cookie, s.path).not.toContain('svc_');

      // The browser holds the emulator's cookies only at its own name, none at a name every local server shares.
      const held = (await context.cookies()).filter((c) => c.name.startsWith('svc_'));
      expect(held.length).toBeGreaterThan(0);
      for (const c of held) expect(c.domain, c.name).toBe(new URL(one.accountUrl).hostname);
      await context.close();
    } finally {
      await new Promise((resolve) => app.server.close(resolve));
    }
  });
});
