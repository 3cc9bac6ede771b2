// Every account page, signed in, on an emulator (its own process) holding 25 keys, 10 endpoints and 100
// deliveries each (with their attempts), beside a static GET of the same server (the page's stylesheet) as baseline. Requests go one
// at a time over keep-alive; p99 of each page is set against the 20 ms budget and against the static GET.
// (The add-endpoint form is not among them: at 10 endpoints it gives way to the limit notice.)
// Also: the bytes of the page's own script and stylesheet against the 30 kB budget.
import {spawn} from 'node:child_process';
import {lookup as dnsLookup} from 'node:dns';
import {dirname, join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {fileURLToPath} from 'node:url';
import {Agent, fetch as undiciFetch} from 'undici';
import {median, percentile, printTable} from './lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const REQUESTS = 400;
const WARMUP = 60;
const BUDGET_MS = 20;
const ASSET_BUDGET_BYTES = 30 * 1024;

const {MAX_ACTIVE_KEYS_PER_ORG, MAX_ENDPOINTS_PER_ORG, MAX_DELIVERIES_LISTED} = await import(
  '../dist/src/definitions.js'
);
const {EmulatorControl} = await import('../dist/src/client/emulator-control.js');
const {readRuntimeFile} = await import('../dist/src/emulator-layout/runtime.js');

// The emulator in its own process, as `svc emulator start` runs it; this process only asks.
const child = spawn(
  process.execPath,
  [
    join(root, 'bin', 'run.js'),
    'emulator',
    'start',
    '--json',
    '--port',
    '0',
    '--in-memory',
    '--clock',
    'manual',
    '--allow-local-endpoints',
  ],
  {cwd: root, env: {...process.env, NO_COLOR: '1'}, stdio: ['ignore', 'pipe', 'ignore']},
);
const ready = await new Promise((resolve, reject) => {
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
    const nl = out.indexOf('\n');
    if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)));
  });
  child.on('exit', (code) => reject(new Error(`the emulator exited with ${code} before it was ready`)));
});

try {
  const info = await readRuntimeFile(ready.data_dir);
  const control = new EmulatorControl({url: info.api_url, adminToken: info.admin_token});
  const apiUrl = info.api_url;

  // ---- Seed: the sizes the budget names, through the control surface ----
  const keys = [];
  for (let i = 0; i < MAX_ACTIVE_KEYS_PER_ORG; i++)
    keys.push(await control.createKey({name: `key ${i}`, expires: '90'}));
  const reader = keys[0].secret;
  const endpoints = [];
  for (let i = 0; i < MAX_ENDPOINTS_PER_ORG; i++) {
    const hook = await control.createWebhook({
      // Nothing listens on port 9: every first attempt fails fast and waits for a retry the manual clock never reaches.
      url: `http://127.0.0.1:9/hook/${i}`,
      events: ['sandbox.ready', 'sandbox.stopped'],
      description: `bench endpoint ${i}`,
    });
    endpoints.push(hook.id);
  }
  for (let n = 0; n < MAX_DELIVERIES_LISTED; n++) await control.trigger({type: 'sandbox.ready'});
  const deliveriesOf = async (id) => {
    const res = await fetch(`${apiUrl}/v1/webhooks/${id}/deliveries`, {
      headers: {authorization: `Bearer ${reader}`},
    });
    return (await res.json()).data;
  };
  // Every delivery attempted once, so the worker is quiet while pages are measured.
  for (const id of endpoints) {
    for (;;) {
      const list = await deliveriesOf(id);
      if (list.length === MAX_DELIVERIES_LISTED && list.every((d) => d.attempts >= 1)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const deliveryId = (await deliveriesOf(endpoints[0]))[0].id;

  // ---- Sign in as a person would, over HTTP, at the page's own name (svc-<port>.localhost) ----
  // Browsers resolve *.localhost to loopback themselves; Node does not, so this agent does it for them.
  const pageOrigin = new URL(info.account_url).origin;
  const asBrowser = new Agent({
    connect: {
      lookup: (hostname, options, callback) =>
        hostname.endsWith('.localhost')
          ? options.all
            ? callback(null, [{address: '127.0.0.1', family: 4}])
            : callback(null, '127.0.0.1', 4)
          : dnsLookup(hostname, options, callback),
    },
  });
  const jar = new Map();
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const request = async (path, init = {}) => {
    const res = await undiciFetch(`${pageOrigin}${path}`, {
      ...init,
      dispatcher: asBrowser,
      redirect: 'manual',
      headers: {...(init.headers ?? {}), cookie: cookieHeader()},
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [k, v] = pair.split('=');
      if (/Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(c)) jar.delete(k);
      else jar.set(k, v);
    }
    return {status: res.status, text: await res.text()};
  };
  const csrfOf = (html) => /name="csrf" value="([^"]+)"/.exec(html)[1];
  const post = (path, form) =>
    request(path, {
      method: 'POST',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams(form).toString(),
    });
  const login = await request('/account');
  await post('/account/login', {csrf: csrfOf(login.text), email: 'bench@example.com'});
  const mailbox = await request('/account/mailbox');
  const link = /href="([^"]*\/account\/sign-in\?token=[^"]+)"/.exec(mailbox.text)[1];
  const confirm = await request(new URL(link).pathname + new URL(link).search);
  const token = /name="token" value="([^"]+)"/.exec(confirm.text)[1];
  const signedIn = await post('/account/sign-in', {csrf: csrfOf(confirm.text), token});
  if (signedIn.status !== 303 || ![...jar.keys()].some((k) => k.startsWith('svc_session_')))
    throw new Error('bench: sign-in failed');

  const home = await request('/account');
  const css = /href="(\/account\/assets\/[^"]+\.css)"/.exec(home.text)[1];
  const js = /src="(\/account\/assets\/[^"]+\.js)"/.exec(home.text)[1];
  const assetBytes = (await request(css)).text.length + (await request(js)).text.length;

  const pages = {
    'static GET (stylesheet)': css,
    overview: '/account',
    'keys (25)': '/account/keys',
    'webhooks (10)': '/account/webhooks',
    'deliveries (100)': `/account/webhooks/${endpoints[0]}`,
    'delivery + attempts': `/account/webhooks/${endpoints[0]}/deliveries/${deliveryId}`,
    team: '/account/team',
    mailbox: '/account/mailbox',
  };
  for (const [name, path] of Object.entries(pages)) {
    const r = await request(path);
    if (r.status !== 200) throw new Error(`bench: ${name} answered ${r.status}`);
    if (name.startsWith('keys') && (r.text.match(/<tr>/g) ?? []).length < MAX_ACTIVE_KEYS_PER_ORG)
      throw new Error('bench: the keys page does not list every key');
  }

  // Rounds interleave the pages, so load from other processes hits every page alike.
  const samples = Object.fromEntries(Object.keys(pages).map((name) => [name, []]));
  for (let i = 0; i < WARMUP; i++) for (const path of Object.values(pages)) await request(path);
  for (let i = 0; i < REQUESTS; i++) {
    for (const [name, path] of Object.entries(pages)) {
      const t0 = performance.now();
      await request(path);
      samples[name].push(performance.now() - t0);
    }
  }

  const baseline = samples['static GET (stylesheet)'];
  const rows = Object.entries(samples)
    .filter(([name]) => !name.startsWith('static'))
    .map(([name, values]) => ({
      case: name,
      baseline: percentile(baseline, 99),
      value: percentile(values, 99),
      unit: 'ms p99',
      ratio: percentile(values, 99) / BUDGET_MS,
      target: 1,
    }));
  printTable(
    `Account pages, ${REQUESTS} requests each, one at a time: p99 against the ${BUDGET_MS} ms budget (baseline: the static GET's p99)`,
    rows,
  );
  printTable(
    'Account pages against a static GET of the same server (median time per request)',
    Object.entries(samples)
      .filter(([name]) => !name.startsWith('static'))
      .map(([name, values]) => ({
        case: name,
        baseline: median(baseline),
        value: median(values),
        unit: 'ms median',
        ratio: median(values) / median(baseline),
      })),
  );
  printTable('The page script and stylesheet', [
    {
      case: 'bytes',
      baseline: ASSET_BUDGET_BYTES,
      value: assetBytes,
      unit: 'bytes',
      ratio: assetBytes / ASSET_BUDGET_BYTES,
      target: 1,
    },
  ]);
} finally {
  child.kill('SIGTERM');
}
