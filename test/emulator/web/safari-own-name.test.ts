// The account page at a shared name (127.0.0.1) for a browser that may not resolve its own name
// (svc-<port>.localhost) by itself, replayed in Chromium with Safari's user agent: where the name resolves, the page
// goes there by itself; where it does not (a resolver rule makes it fail, as Safari's does), the page stays and
// says how to make it resolve, instead of a redirect to a server the browser cannot find.
import type {Browser} from 'playwright-core';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {launchChromium} from '../../helpers/browser.js';
import {CHROMIUM, describeNeeding, unmet} from '../../helpers/requirements.js';

const SAFARI =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15';

let emu: RunningEmulator;
let resolving: Browser;
let notResolving: Browser;

beforeAll(async () => {
  emu = await startEmulator({port: 0, inMemory: true});
  if (!unmet([CHROMIUM])) {
    resolving = await launchChromium();
    notResolving = await launchChromium([
      `--host-resolver-rules=MAP ${new URL(emu.accountUrl).hostname} ~NOTFOUND`,
    ]);
  }
}, 60_000);

afterAll(async () => {
  await resolving?.close();
  await notResolving?.close();
  await emu?.stop();
});

describeNeeding([CHROMIUM], 'the account page opened at 127.0.0.1 by Safari', () => {
  it('goes to the own name by itself where the name resolves, and signs in there', async () => {
    const context = await resolving.newContext({userAgent: SAFARI});
    const page = await context.newPage();
    await page.goto(`${emu.apiUrl}/account`);
    await page.waitForURL(emu.accountUrl);
    await expect(page.getByRole('heading', {name: 'Sign in'}).count()).resolves.toBeGreaterThan(0);
    // No cookie was ever set at the shared name.
    expect(await context.cookies(emu.apiUrl)).toEqual([]);
    await context.close();
  });

  it('stays, and says how to make the name resolve, where it does not', async () => {
    const context = await notResolving.newContext({userAgent: SAFARI});
    const page = await context.newPage();
    await page.goto(`${emu.apiUrl}/account/mailbox`);
    const fix = page.locator('#cannot');
    await fix.waitFor({state: 'visible'});
    const own = new URL(emu.accountUrl);
    expect(await fix.innerText()).toContain(`127.0.0.1 ${own.hostname}`);
    expect(await page.locator('#trying').isVisible()).toBe(false);
    expect(page.url()).toBe(`${emu.apiUrl}/account/mailbox`);
    expect(await page.getByRole('link', {name: `${own.origin}/account`}).getAttribute('href')).toBe(
      `${own.origin}/account/mailbox`,
    );
    expect(await context.cookies(emu.apiUrl)).toEqual([]);
    await context.close();
  });
});
