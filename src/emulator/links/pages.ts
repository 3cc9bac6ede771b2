// What a desktop link or a browser URL shows in the emulator (a small page naming the sandbox), and the answer a
// refused link request gets: a page for a browser, the service's error shape for anything else.
import {html} from 'hono/html';
import {SANDBOX_LINK_NOUNS, type SandboxLinkKind} from '../../definitions.js';
import type {HttpError} from '../http-error.js';

/** The token is in the page's address: no referrer may carry it elsewhere, nothing may cache or index it. */
export const LINK_PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex',
  'X-Content-Type-Options': 'nosniff',
});

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1b1f24}' +
  'code{background:#f0f2f4;padding:0 .25rem;border-radius:3px}.muted{color:#59636e}';

const TITLES: Record<Exclude<SandboxLinkKind, 'port'>, string> = {
  desktop: 'Desktop',
  browser: 'Browser',
};

function page(title: string, body: unknown): string {
  return String(html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>${title}</title>
    <style>
      ${STYLE}
    </style>
  </head>
  <body>
    ${body}
  </body>
</html>`);
}

export function linkPage(input: {
  kind: Exclude<SandboxLinkKind, 'port'>;
  sandbox: {id: string; name: string};
  path: string;
}): string {
  const title = `${TITLES[input.kind]} of sandbox ${input.sandbox.name}`;
  return page(
    title,
    html`<h1>${title}</h1>
      <p>Sandbox <code>${input.sandbox.id}</code> is running.</p>
      <p class="muted">
        On the service this ${SANDBOX_LINK_NOUNS[input.kind][0]} opens the sandbox's
        ${input.kind === 'desktop' ? 'desktop' : 'browser'}; the emulator shows this page in its place. It stops
        working when the key that made it is revoked or expires, or when the sandbox stops.
      </p>
      <p class="muted">Path: <code>${input.path}</code></p>`,
  );
}

/** A refusal as a page, for a person in a browser. */
export function refusalPage(error: HttpError): string {
  return page(
    'This link does not work',
    html`<h1>This link does not work</h1>
      <p>${error.message}</p>
      <p class="muted">${error.status} ${error.code}</p>`,
  );
}

/** Whether the caller asked for a page (a browser) rather than JSON. */
export function wantsPage(accept: string | undefined): boolean {
  return /\btext\/html\b/i.test(accept ?? '');
}
