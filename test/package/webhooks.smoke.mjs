// @svc/webhooks as a receiver installs it: alone in a fresh project (scripts/package-smoke.js installs the
// tarball and runs this file there with node --test). Real deliveries from an emulator (started from the
// installed @svc/cli) are verified through node:http, Express from a CommonJS file, a fetch handler, and a
// browser bundle in headless Chromium that has Web Crypto only. esbuild and playwright-core are tools taken from
// the source tree; the library itself always comes from this project's node_modules.
import assert from 'node:assert/strict';
import {spawn, spawnSync} from 'node:child_process';
import {readdirSync, readFileSync, realpathSync, writeFileSync} from 'node:fs';
import {createServer} from 'node:http';
import {createRequire} from 'node:module';
import {join} from 'node:path';
import {after, before, describe, it} from 'node:test';
import {fileURLToPath, pathToFileURL} from 'node:url';

const APP = realpathSync(process.cwd());
const {SVC_SMOKE_TREE: TREE, SVC_SMOKE_CLI_APP: CLI_APP, SVC_SMOKE_EXPRESS_APP: EXPRESS_APP} = process.env;
assert.ok(TREE && CLI_APP && EXPRESS_APP, 'run through scripts/package-smoke.js');
const INSTALLED = join(APP, 'node_modules', '@svc', 'webhooks');
const ENTRIES = ['', '/node', '/express', '/fetch', '/web'].map((e) => `@svc/webhooks${e}`);
const tools = createRequire(join(TREE, 'package.json'));
// Chosen by scripts/package-smoke.js (scripts/chromium-path.js).
const CHROMIUM = process.env.SVC_CHROMIUM_PATH;

/** The bad input a receiver hands over by mistake, and the good input in each form, through `verify`. */
const CASES_SOURCE = `
export async function runCases(verify, {secret, payload, header}) {
  const cases = {
    string: {secret, payload, header},
    uint8array: {secret, payload: new TextEncoder().encode(payload), header},
    ...(globalThis.Buffer ? {buffer: {secret, payload: globalThis.Buffer.from(payload), header}} : {}),
    parsed_object: {secret, payload: JSON.parse(payload), header},
    secret_without_prefix: {secret: secret.slice('whsec_'.length), payload, header},
    tampered: {secret, payload: payload + ' ', header},
    no_header: {secret, payload, header: ''},
  };
  const results = {};
  for (const [name, options] of Object.entries(cases)) {
    try {
      const verified = await verify(options);
      results[name] = {ok: true, secretIndex: verified.secretIndex};
    } catch (err) {
      results[name] = {ok: false, name: err.name, reason: err.reason, message: err.message};
    }
  }
  return results;
}
`;

const EXPRESS_RECEIVER = `
const express = require('express');
const {svcWebhooks} = require('@svc/webhooks/express');
const index = require('@svc/webhooks');
const node = require('@svc/webhooks/node');
const web = require('@svc/webhooks/web');
const say = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
let handler;
const app = express();
app.post('/hook', (req, res, next) => (handler ? handler(req, res, next) : res.sendStatus(503)));
// A refusal through a documented handler: the error it reports must be the one class every entry shares.
let refused;
const receive = require('@svc/webhooks/fetch').createFetchHandler({
  secret: 'whsec_AAAA',
  onEvent() {},
  onError(error) {
    refused = error;
  },
});
receive(new Request('http://127.0.0.1/hook', {method: 'POST', body: '{}', headers: {'svc-signature': 't=1,v1=AAAA'}})).then((answer) => {
  const outcome = {status: answer.status, error: refused};
  const server = app.listen(0, '127.0.0.1', () =>
    say({
      port: server.address().port,
      resolved: [require.resolve('@svc/webhooks'), require.resolve('@svc/webhooks/express')],
      sameErrorClass: index.WebhookVerificationError === web.WebhookVerificationError,
      receiverErrorIsIndexClass: outcome.error instanceof index.WebhookVerificationError,
      reason: outcome.error.reason,
      knownReason: index.VERIFICATION_FAILURE_REASONS.includes(outcome.error.reason),
    }),
  );
});
process.stdin.setEncoding('utf8');
process.stdin.on('data', (line) => {
  handler = svcWebhooks({secret: line.trim(), onEvent: (event) => say({event: event.id, type: event.type})});
  say({secretSet: true});
});
`;

function run(command, args, cwd = APP) {
  const r = spawnSync(command, args, {cwd, encoding: 'utf8', env: process.env});
  return {code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? ''};
}

async function until(check, what, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function listen(handler) {
  const server = createServer(handler);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({server, url: `http://127.0.0.1:${server.address().port}`})),
  );
}

/** The Express receiver, in a CommonJS project of its own: its first line says what it loaded. */
async function startExpress() {
  writeFileSync(join(EXPRESS_APP, 'receiver.cjs'), EXPRESS_RECEIVER);
  const child = spawn(process.execPath, ['receiver.cjs'], {
    cwd: EXPRESS_APP,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = [];
  let buffer = '';
  child.stdout.on('data', (d) => {
    buffer += d;
    const parts = buffer.split('\n');
    buffer = parts.pop();
    for (const part of parts) lines.push(JSON.parse(part));
  });
  await until(() => lines.length > 0 || child.exitCode !== null, 'the Express receiver listens');
  assert.ok(lines.length > 0, `the Express receiver exited ${child.exitCode}`);
  return {
    info: lines[0],
    events: () => lines.filter((l) => l.event),
    hasSecret: () => lines.some((l) => l.secretSet),
    child,
  };
}

describe('@svc/webhooks installed alone', () => {
  it('has no dependency at all: npm ls, its package.json, node_modules', () => {
    const ls = run('npm', ['ls', '--all', '--json']);
    assert.equal(ls.code, 0, ls.stderr);
    const tree = JSON.parse(ls.stdout);
    assert.deepEqual(Object.keys(tree.dependencies), ['@svc/webhooks']);
    assert.deepEqual(tree.dependencies['@svc/webhooks'].dependencies ?? {}, {});
    const pkg = JSON.parse(readFileSync(join(INSTALLED, 'package.json'), 'utf8'));
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'])
      assert.deepEqual(pkg[field] ?? {}, {}, field);
    const modules = readdirSync(join(APP, 'node_modules')).filter((f) => !f.startsWith('.'));
    assert.deepEqual(modules, ['@svc']);
    assert.deepEqual(readdirSync(join(APP, 'node_modules', '@svc')), ['webhooks']);
  });

  it('loads every entry with import and with require, from this install, sharing its error classes', async () => {
    const require = createRequire(join(APP, 'package.json'));
    for (const entry of ENTRIES) {
      for (const resolved of [fileURLToPath(import.meta.resolve(entry)), require.resolve(entry)]) {
        assert.ok(resolved.startsWith(`${INSTALLED}/`), `${entry} resolved to ${resolved}`);
      }
      assert.ok(Object.keys(await import(entry)).length > 0, `${entry} (import) exports nothing`);
      assert.ok(Object.keys(require(entry)).length > 0, `${entry} (require) exports nothing`);
    }
    for (const load of [(e) => import(e), async (e) => require(e)]) {
      const index = await load('@svc/webhooks');
      const node = await load('@svc/webhooks/node');
      const web = await load('@svc/webhooks/web');
      assert.equal(index.WebhookVerificationError, web.WebhookVerificationError);
      const fetchEntry = await load('@svc/webhooks/fetch');
      assert.equal(typeof node.createNodeHandler, 'function');
      let refused;
      const receive = fetchEntry.createFetchHandler({
        secret: 'whsec_AAAA',
        onEvent() {},
        onError(error) {
          refused = error;
        },
      });
      const answer = await receive(
        new Request('http://127.0.0.1/hook', {
          method: 'POST',
          body: '{}',
          headers: {'svc-signature': 't=1,v1=AAAA'},
        }),
      );
      const outcome = {status: answer.status, error: refused};
      assert.equal(outcome.status, 400);
      assert.ok(outcome.error instanceof index.WebhookVerificationError);
      assert.ok(index.isWebhookVerificationError(outcome.error));
    }
  });

  describe('real deliveries from an emulator', () => {
    let emu;
    let express;
    let nodeReceiver;
    let capture;
    const nodeEvents = [];
    const captured = [];
    let delivery;

    before(async () => {
      const cli = createRequire(join(CLI_APP, 'package.json'));
      const {startEmulator} = await import(pathToFileURL(cli.resolve('@svc/cli/emulator')).href);
      emu = await startEmulator({inMemory: true, port: 0, allowLocalEndpoints: true});

      const {createNodeHandler} = await import('@svc/webhooks/node');
      let nodeHandler;
      nodeReceiver = await listen((req, res) =>
        nodeHandler ? nodeHandler(req, res) : res.writeHead(503).end(),
      );
      capture = await listen((req, res) => {
        const chunks = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => {
          captured.push({body: Buffer.concat(chunks).toString('utf8'), header: req.headers['svc-signature']});
          res.writeHead(200).end();
        });
      });
      express = await startExpress();

      const events = ['sandbox.ready'];
      const toNode = await emu.control.createWebhook({url: `${nodeReceiver.url}/hook`, events});
      nodeHandler = createNodeHandler({
        secret: toNode.secret,
        onEvent: (event) => void nodeEvents.push(event),
      });
      const toExpress = await emu.control.createWebhook({
        url: `http://127.0.0.1:${express.info.port}/hook`,
        events,
      });
      express.child.stdin.write(`${toExpress.secret}\n`);
      const toCapture = await emu.control.createWebhook({url: `${capture.url}/hook`, events});
      await until(express.hasSecret, 'the Express receiver took its secret');
      await emu.control.trigger({type: 'sandbox.ready'});
      await until(
        () => nodeEvents.length > 0 && express.events().length > 0 && captured.length > 0,
        'a verified delivery at each receiver',
      );
      delivery = {secret: toCapture.secret, payload: captured[0].body, header: captured[0].header};
    });

    after(async () => {
      express?.child.kill();
      nodeReceiver?.server.close();
      capture?.server.close();
      await emu?.stop();
    });

    it('verifies through node:http (@svc/webhooks/node)', () => {
      assert.equal(nodeEvents[0].type, 'sandbox.ready');
      assert.equal(nodeEvents[0].org_id, emu.orgId);
    });

    it('verifies through Express, required from a CommonJS file', () => {
      const {info} = express;
      for (const resolved of info.resolved) assert.ok(resolved.startsWith(`${INSTALLED}/`), resolved);
      assert.ok(
        info.resolved.every((r) => r.includes('/dist/cjs/')),
        info.resolved.join(', '),
      );
      assert.equal(info.sameErrorClass, true);
      assert.equal(info.receiverErrorIsIndexClass, true);
      assert.equal(info.knownReason, true, info.reason);
      assert.equal(express.events()[0].type, 'sandbox.ready');
    });

    it('verifies through a fetch handler (@svc/webhooks/fetch), and refuses the delivery altered', async () => {
      const {createFetchHandler} = await import('@svc/webhooks/fetch');
      const handled = [];
      const handler = createFetchHandler({
        secret: delivery.secret,
        onEvent: (event) => void handled.push(event),
        onError() {},
      });
      const post = (body) =>
        handler(
          new Request('http://receiver.invalid/hook', {
            method: 'POST',
            headers: {'svc-signature': delivery.header, 'content-type': 'application/json'},
            body,
          }),
        );
      assert.equal((await post(delivery.payload)).status, 200);
      assert.equal(handled[0].id, JSON.parse(delivery.payload).id);
      const refused = await post(`${delivery.payload} `);
      assert.equal(refused.status, 400);
      assert.equal((await refused.json()).error.code, 'signature_mismatch');
    });

    it('gives the same typed errors for bad input with node:crypto and with Web Crypto', async () => {
      writeFileSync(join(APP, 'cases.mjs'), CASES_SOURCE);
      const {runCases} = await import(pathToFileURL(join(APP, 'cases.mjs')).href);
      const {verifySignature} = await import('@svc/webhooks');
      const {verifySignatureAsync} = await import('@svc/webhooks/web');
      const withNodeCrypto = await runCases(verifySignature, delivery);
      const withWebCrypto = await runCases(verifySignatureAsync, delivery);
      assert.deepEqual(withWebCrypto, withNodeCrypto);
      for (const form of ['string', 'uint8array', 'buffer'])
        assert.equal(withNodeCrypto[form].ok, true, form);
      assert.equal(withNodeCrypto.parsed_object.reason, 'invalid_payload');
      assert.match(withNodeCrypto.parsed_object.message, /raw/);
      assert.equal(withNodeCrypto.secret_without_prefix.reason, 'signature_mismatch');
      assert.match(withNodeCrypto.secret_without_prefix.message, /whsec_/);
      assert.equal(withNodeCrypto.tampered.reason, 'signature_mismatch');
      assert.equal(withNodeCrypto.no_header.reason, 'missing_header');
      for (const result of Object.values(withNodeCrypto)) {
        if (!result.ok) {
          assert.equal(result.name, 'WebhookVerificationError');
          assert.ok(!result.message.includes(delivery.secret), 'a message holds the secret');
        }
      }
    });

    it('verifies in headless Chromium from an esbuild browser bundle of @svc/webhooks/web, no node: import in it', async () => {
      writeFileSync(join(APP, 'cases.mjs'), CASES_SOURCE);
      writeFileSync(
        join(APP, 'browser-receiver.mjs'),
        [
          "import {constructEventAsync, verifySignatureAsync} from '@svc/webhooks/web';",
          "import {runCases} from './cases.mjs';",
          'globalThis.receive = async (d) => {',
          '  const event = await constructEventAsync(d);',
          '  return {id: event.id, type: event.type, cases: await runCases(verifySignatureAsync, d)};',
          '};',
        ].join('\n'),
      );
      const esbuild = tools('esbuild');
      const built = await esbuild.build({
        entryPoints: [join(APP, 'browser-receiver.mjs')],
        absWorkingDir: APP,
        bundle: true,
        platform: 'browser',
        format: 'iife',
        write: false,
        metafile: true,
        logLevel: 'silent',
      });
      const bundle = built.outputFiles[0].text;
      assert.doesNotMatch(bundle, /["'`]node:/);
      assert.doesNotMatch(bundle, /\brequire\(/);
      const inputs = Object.keys(built.metafile.inputs).map((p) => join(APP, p));
      assert.ok(
        inputs.some((p) => p.startsWith(`${INSTALLED}/dist/`)),
        `the bundle did not take the installed package: ${inputs.join(', ')}`,
      );

      // A page from loopback, a secure context, so Web Crypto is there as on any HTTPS page.
      const page = await listen((req, res) => {
        if (req.url === '/receiver.js') res.writeHead(200, {'content-type': 'text/javascript'}).end(bundle);
        else
          res
            .writeHead(200, {'content-type': 'text/html'})
            .end('<!doctype html><title>receiver</title><script src="/receiver.js"></script>');
      });
      const {chromium} = tools('playwright-core');
      const browser = await chromium.launch({executablePath: CHROMIUM, args: ['--no-sandbox']});
      try {
        const tab = await browser.newPage();
        await tab.goto(page.url);
        const seen = await tab.evaluate(async (d) => {
          const result = await globalThis.receive(d);
          return {
            ...result,
            hasBuffer: typeof globalThis.Buffer !== 'undefined',
            hasProcess: 'process' in globalThis,
          };
        }, delivery);
        assert.equal(seen.hasBuffer, false);
        assert.equal(seen.hasProcess, false);
        assert.equal(seen.type, 'sandbox.ready');
        assert.equal(seen.id, JSON.parse(delivery.payload).id);
        const {verifySignatureAsync} = await import('@svc/webhooks/web');
        const {runCases} = await import(pathToFileURL(join(APP, 'cases.mjs')).href);
        const {buffer: _inNodeOnly, ...inNode} = await runCases(verifySignatureAsync, delivery);
        assert.deepEqual(seen.cases, inNode);
      } finally {
        await browser.close();
        page.server.close();
      }
    });
  });
});
