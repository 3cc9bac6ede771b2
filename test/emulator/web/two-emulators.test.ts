// Two emulators in one browser: cookies belong to a host, not a port, so each emulator names its cookies after
// its port, and signing in to one leaves the other's session alone.
import type {Browser, Page} from 'playwright-core';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../../emulator/index.js';
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

async function signIn(page: Page, emu: RunningEmulator, email: string): Promise<void> {
  await page.goto(`${emu.accountUrl}`);
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', {name: 'Email me a sign-in link'}).click();
  await page.goto(`${emu.accountUrl}/mailbox`);
  await page
    .getByRole('link', {name: `Sign in as ${email}`})
    .first()
    .click();
  await page.getByRole('button', {name: 'Sign in'}).click();
  await page.waitForURL(`${emu.accountUrl}`);
}

async function signedInAs(page: Page, emu: RunningEmulator): Promise<string | null> {
  await page.goto(`${emu.accountUrl}/keys`);
  if ((await page.getByRole('heading', {level: 1}).textContent()) === 'Sign in') return null;
  return page.locator('.who-email').first().textContent();
}

describeNeeding([CHROMIUM], 'two emulators in one browser', {timeout: 60_000}, () => {
  it('keeps a session with each, whichever was signed in to last', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await signIn(page, one, 'first@example.com');
    await signIn(page, two, 'second@example.com');
    expect(await signedInAs(page, one)).toContain('first@example.com');
    expect(await signedInAs(page, two)).toContain('second@example.com');

    // Signing out of one ends only that one.
    await page.goto(`${two.accountUrl}`);
    await page.getByRole('button', {name: 'Sign out'}).click();
    expect(await signedInAs(page, two)).toBeNull();
    expect(await signedInAs(page, one)).toContain('first@example.com');
    const names = (await context.cookies()).map((c) => c.name).sort();
    expect(names).toContain(`svc_session_${new URL(one.apiUrl).port}`);
    await context.close();
  });
});
