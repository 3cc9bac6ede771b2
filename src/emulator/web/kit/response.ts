// How a page leaves: as HTML with the text policy applied, with the page headers, its assets named by content.
import {createHash} from 'node:crypto';
import {readFileSync} from 'node:fs';
import type {Context} from 'hono';
import {displayText} from '../../../definitions.js';
import {PAGE_HEADERS} from '../security.js';
import type {Assets} from '../views/layout.js';

export interface Asset {
  path: string;
  body: string;
  type: string;
}

/** The stylesheet and script, named by a hash of their content so browsers may keep them for good. */
export function loadAccountAssets(): {assets: Assets; files: Asset[]} {
  const load = (name: string, ext: string, type: string): Asset => {
    const body = readFileSync(new URL(`../assets/${name}.${ext}`, import.meta.url), 'utf8');
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    return {path: `/account/assets/${name}.${hash}.${ext}`, body, type};
  };
  const css = load('account', 'css', 'text/css; charset=utf-8');
  const js = load('account', 'js', 'text/javascript; charset=utf-8');
  return {assets: {css: css.path, js: js.path}, files: [css, js]};
}

const HTML_DOCTYPE = '<!doctype html>';

export async function pageHeaders(c: Context, next: () => Promise<void>): Promise<void> {
  await next();
  if (c.req.path.startsWith('/account/assets/')) return;
  for (const [name, value] of Object.entries(PAGE_HEADERS)) c.res.headers.set(name, value);
}

/**
 * The page as sent. hono/jsx escapes text for HTML; the text policy then writes out every control and invisible
 * character (a bidi override in a key name, a zero-width space in an address) as `\uXXXX`, so outside text can
 * neither reorder a row nor hide part of itself. The templates hold none of them, so only outside text changes.
 */
export function render(c: Context, page: unknown, status = 200): Response {
  return c.html(displayText(HTML_DOCTYPE + String(page), {multiline: true}), status as 200);
}
