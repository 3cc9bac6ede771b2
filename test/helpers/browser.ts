// Real Chromium for page tests: Debian's (scripts/chromium-path.js) driven by playwright-core, axe-core checks and screenshots.
import {mkdir} from 'node:fs/promises';
import {join} from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import {type Browser, chromium, type Page} from 'playwright-core';
import {localhostFetch} from './localhost-fetch.js';
import {CHROMIUM_PATH} from './requirements.js';

/** `args`: further Chromium switches (a test of DNS rebinding maps a name to 127.0.0.1 with one). */
export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({executablePath: CHROMIUM_PATH, args: ['--no-sandbox', ...args]});
}

export const ARTIFACTS_DIR = join(process.cwd(), 'test-artifacts');

export const DESKTOP = {width: 1280, height: 800};
export const PHONE = {width: 375, height: 740};

/** Accessibility problems axe rates serious or critical, as readable lines. */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({page}).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/**
 * A full-page screenshot at desktop and at phone width, kept under test-artifacts/<folder>/ for a person to look
 * at, when SVC_TEST_SCREENSHOTS=1 asks for them (they assert nothing, and two full-page captures per page cost the
 * suite seconds it spends on every run).
 */
export async function screenshots(page: Page, folder: string, name: string): Promise<void> {
  if (process.env.SVC_TEST_SCREENSHOTS !== '1') return;
  const dir = join(ARTIFACTS_DIR, folder);
  await mkdir(dir, {recursive: true});
  const before = page.viewportSize() ?? DESKTOP;
  for (const [label, size] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(size);
    await page.screenshot({path: join(dir, `${name}-${label}.png`), fullPage: true});
  }
  await page.setViewportSize(before);
}

export interface PostOptions {
  form?: Record<string, string>;
  data?: unknown;
  headers?: Record<string, string>;
  /** 0: the first answer, not where it redirects. */
  maxRedirects?: number;
}

/**
 * A post outside the page with its browser context's cookies, as Playwright's `page.request.post` sends one, but
 * to an address resolved as the browser resolves it: the account page lives at svc-<port>.localhost, a name
 * Playwright's request context would ask Node's resolver for, which does not know it.
 */
export async function postWithCookies(page: Page, path: string, o: PostOptions) {
  const url = new URL(path, page.url());
  const cookie = (await page.context().cookies(url.href)).map((c) => `${c.name}=${c.value}`).join('; ');
  const res = await localhostFetch(url, {
    method: 'POST',
    redirect: o.maxRedirects === 0 ? 'manual' : 'follow',
    headers: {
      ...(cookie ? {cookie} : {}),
      'content-type': o.form ? 'application/x-www-form-urlencoded' : 'application/json',
      ...o.headers,
    },
    body: o.form ? new URLSearchParams(o.form).toString() : JSON.stringify(o.data),
  });
  const text = await res.text();
  return {status: () => res.status, text: async () => text};
}
