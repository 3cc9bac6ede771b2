// The takeover through a port session, replayed in real Chromium: the app behind a link moves itself to the
// account page's own name (`svc-<port>.localhost`) and, from there, would read the mailbox as that page. A port
// session is served at a name of its own only, so the move lands back at the link's own origin, from which the page,
// the mailbox and the emulator's other routes stay out of reach.
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import type {Browser} from 'playwright-core';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {accountOrigin} from '../../../src/client/account-address.js';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {accountClient, csrfOf} from '../../helpers/account-client.js';
import {launchChromium} from '../../helpers/browser.js';
import {CHROMIUM, describeNeeding, unmet} from '../../helpers/requirements.js';

interface Report {
  origin: string;
  /** What the app read of the mailbox at the page's own name, as that page, had it got there. */
  asPage?: {status: number; text: string};
  crossOrigin?: string;
  sameOrigin?: number;
}

let emu: RunningEmulator;
let browser: Browser;
let app: Server;
const reports: Report[] = [];
let reported: (() => void) | undefined;

/**
 * The hostile app: at the page's own name it reads the mailbox; anywhere else it moves there once, keeping its
 * path under the link, and then tries to read the page across origins and at its own.
 */
const appPage = (pageOrigin: string) => `<!doctype html><title>app</title><script>
(async () => {
  const report = (r) => fetch(location.pathname.replace(/[^/]*$/, '') + 'report', {method: 'POST', body: JSON.stringify(r)});
  if (location.hostname.startsWith('svc-')) {
    const res = await fetch('/account/mailbox');
    await report({origin: location.origin, asPage: {status: res.status, text: await res.text()}});
    return;
  }
  if (!location.search.includes('moved')) {
    location.replace(${JSON.stringify(pageOrigin)} + location.pathname + '?moved=1');
    return;
  }
  let crossOrigin;
  try {
    crossOrigin = await (await fetch(${JSON.stringify(pageOrigin)} + '/account/mailbox', {credentials: 'include'})).text();
  } catch {
    crossOrigin = 'blocked';
  }
  const sameOrigin = (await fetch('/account/mailbox')).status;
  await report({origin: location.origin, crossOrigin, sameOrigin});
})();
</script>`;

beforeAll(async () => {
  emu = await startEmulator({port: 0, inMemory: true, log: () => undefined});
  const pageOrigin = accountOrigin(Number(new URL(emu.apiUrl).port));
  app = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/report') {
      let body = '';
      req.on('data', (d: Buffer) => {
        body += d.toString('utf8');
      });
      req.on('end', () => {
        reports.push(JSON.parse(body) as Report);
        res.end('ok');
        reported?.();
      });
      return;
    }
    res.writeHead(200, {'content-type': 'text/html; charset=utf-8'});
    res.end(appPage(pageOrigin));
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  if (!unmet([CHROMIUM])) browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await emu?.stop();
  await new Promise<void>((resolve) => {
    app?.closeAllConnections();
    app?.close(() => resolve());
  });
});

describeNeeding([CHROMIUM], 'a port session’s app against the account page', {timeout: 60_000}, () => {
  it('cannot move to the page’s own name nor read the page or the mailbox from its own origin', async () => {
    // The mailbox holds a sign-in link for the owner, the prize of the takeover.
    const person = accountClient(new URL(emu.accountUrl).origin);
    const login = await person.request('/account');
    expect(
      (await person.form('/account/login', {csrf: csrfOf(login.text), email: 'owner@example.com'})).status,
    ).toBe(200);
    const mailbox = await person.request('/account/mailbox');
    expect(mailbox.text).toContain('/account/sign-in?token=');

    const {sandbox} = await emu.control.createSandbox({name: 'dev'});
    const key = await emu.control.createKey({name: 'ci'});
    const port = (app.address() as AddressInfo).port;
    const link = await emu.control.createLink(sandbox.id, {kind: 'port', key_id: key.id, port});
    const linkOrigin = new URL(link.url).origin;

    const page = await (await browser.newContext()).newPage();
    const arrived = new Promise<void>((resolve) => {
      reported = resolve;
    });
    await page.goto(link.url);
    await arrived;
    const [report] = reports;
    expect(report?.asPage, 'the app ran as the account page').toBeUndefined();
    expect(new URL(link.url).hostname).toMatch(/^link-[0-9a-f]{32}\.localhost$/);
    expect(report).toEqual({origin: linkOrigin, crossOrigin: 'blocked', sameOrigin: 404});
    expect(new URL(page.url()).origin).toBe(linkOrigin);

    // Opened at the emulator's shared address, the link sends the browser to its own name too.
    await page.goto(`${emu.apiUrl}${new URL(link.url).pathname}?moved=1`);
    expect(new URL(page.url()).origin).toBe(linkOrigin);
    expect(JSON.stringify(reports)).not.toContain('/account/sign-in?token=');
  });
});
