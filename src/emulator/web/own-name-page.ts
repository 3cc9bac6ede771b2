// Where a browser opened at a shared name (localhost, 127.0.0.1) is sent: the account page at its own name,
// svc-<port>.localhost. Chromium and Firefox resolve every *.localhost name to this machine by themselves, so they
// get a plain redirect. Safari does not yet: a redirect would end on "Safari can't find the server", so Safari is
// shown a page that tries the own name and, when it cannot be reached, says how to make it reachable.
import {randomBytes} from 'node:crypto';
import {html, raw} from 'hono/html';

/**
 * Safari, by its user agent: WebKit with `Version/… Safari/…`. Chromium-based browsers also name Safari but not
 * `Version/`; the ones built on WebKit for iOS name themselves (CriOS, FxiOS, EdgiOS) and are treated alike.
 */
export function cannotResolveLocalhostNames(userAgent: string | undefined): boolean {
  if (!userAgent) return false;
  if (/\b(Chrome|Chromium|Edg|OPR)\//.test(userAgent)) return false;
  return /\bAppleWebKit\//.test(userAgent) && /\bSafari\//.test(userAgent);
}

export interface OwnNamePage {
  body: string;
  headers: Record<string, string>;
}

/** The page for a browser that may not reach `origin` (http://svc-<port>.localhost:<port>) by itself. */
export function ownNamePage(o: {origin: string; hostName: string; pathAndQuery: string}): OwnNamePage {
  const nonce = randomBytes(16).toString('base64');
  const target = `${o.origin}${o.pathAndQuery}`;
  const hostsLine = `127.0.0.1 ${o.hostName}`;
  // The probe loads the page's icon from the own name: loaded, the name works here and the browser goes there;
  // failed, the name does not resolve in this browser and the steps to fix it are shown.
  const script =
    'var s=document.currentScript,t=s.dataset.target,i=new Image();' +
    'i.onload=function(){location.replace(t)};' +
    "i.onerror=function(){document.getElementById('cannot').hidden=false;document.getElementById('trying').hidden=true};" +
    "i.src=s.dataset.origin+'/favicon.ico?probe='+Date.now();";
  const body = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc emulator: account page</title>
<style nonce="${nonce}">body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}h1{font-size:1.4rem}code{white-space:nowrap}pre{background:#f2f4f7;padding:.6rem .8rem;border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere}</style>
</head>
<body>
<main>
<h1>svc emulator: account page</h1>
<p>This emulator's account page is at <a href="${target}">${o.origin}/account</a>: a name of its own, so its sign-in
cookie reaches no other server on this machine.</p>
<p id="trying">Opening it…</p>
<div id="cannot" hidden>
<p>This browser cannot open <code>${o.hostName}</code>: Safari does not yet send names under <code>.localhost</code> to this
machine by itself. Add this line to <code>/etc/hosts</code>, then reload this page:</p>
<pre>${hostsLine}</pre>
<p>for example with</p>
<pre>echo '${hostsLine}' | sudo tee -a /etc/hosts</pre>
<p>Chrome and Firefox need nothing.</p>
</div>
</main>
<script nonce="${nonce}" data-origin="${o.origin}" data-target="${target}">${raw(script)}</script>
</body>
</html>
`;
  return {
    body: String(body),
    headers: {
      'Content-Type': 'text/html; charset=UTF-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': `default-src 'none'; img-src ${o.origin}; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    },
  };
}
