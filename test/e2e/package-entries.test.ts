// Every entry point the package exports, imported by its name (as a project depending on svc writes it) in a
// process of its own, from the built package: each loads and offers what the README's table promises, and a few
// work together across entries. The installed package (npm pack, then install) is the package smoke's part.
import {existsSync, readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {runProcess} from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  name: string;
  exports: Record<string, string | {types?: string; default: string}>;
};

/** What the README's table says each entry offers (a few names each, not the whole surface). */
const PROMISED: Record<string, string[]> = {
  '.': [
    'WebhookVerifier',
    'verifySignature',
    'constructEvent',
    'signPayload',
    'createClient',
    'DeliverySchema',
  ],
  './webhooks': [
    'signPayload',
    'verifySignature',
    'constructEvent',
    'WebhookVerifier',
    'WebhookVerificationError',
    'EventDeduplicator',
  ],
  './webhooks/web': [
    'AsyncWebhookVerifier',
    'verifySignatureAsync',
    'constructEventAsync',
    'EventDeduplicator',
  ],
  './webhooks/node': ['createNodeHandler'],
  './webhooks/express': ['svcWebhooks'],
  './webhooks/fetch': ['createFetchHandler'],
  './client': ['createClient', 'UnauthorizedError', 'NetworkError'],
  './emulator': ['startEmulator', 'EmulatorControl'],
  './package.json': ['name', 'version'],
  // The OpenAPI document of /v1 and the webhooks (fixtures/openapi.json).
  './openapi.json': ['openapi', 'paths', 'webhooks', 'components'],
};

/** Runs an ES module script from the package root, where the package can import itself by name. */
function node(script: string): Promise<{code: number | null; stdout: string; stderr: string}> {
  return runProcess(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    env: {PATH: process.env.PATH, HOME: process.env.HOME},
    timeoutMs: 30_000,
  });
}

/** An event as the service sends it, from the shared test vectors. */
const EVENT_BODY = (
  JSON.parse(readFileSync(new URL('../../fixtures/webhooks/vectors.json', import.meta.url), 'utf8')) as {
    vectors: {name: string; body: string}[];
  }
).vectors.find((v) => v.name === 'construct-valid-event')?.body as string;

const specifier = (entry: string) => (entry === '.' ? pkg.name : `${pkg.name}/${entry.slice(2)}`);

describe('the package entry points, by name', {timeout: 60_000}, () => {
  it('are exactly the ones this test knows', () => {
    expect(Object.keys(pkg.exports).sort()).toEqual(Object.keys(PROMISED).sort());
  });

  it.each(Object.keys(PROMISED))('%s loads by name and offers what the README promises', async (entry) => {
    const name = specifier(entry);
    const load = entry.endsWith('.json')
      ? `(await import(${JSON.stringify(name)}, {with: {type: 'json'}})).default`
      : `await import(${JSON.stringify(name)})`;
    const r = await node(`const m = ${load};\nprocess.stdout.write(JSON.stringify(Object.keys(m)));`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(expect.arrayContaining(PROMISED[entry] as string[]));
    const target = pkg.exports[entry];
    if (typeof target === 'object' && target.types) expect(existsSync(`${ROOT}/${target.types}`)).toBe(true);
  });

  it('work together: signed by @svc/webhooks, verified by @svc/webhooks/web and received through @svc/webhooks/fetch', async () => {
    const r = await node(`
      import {signPayload} from '@svc/webhooks';
      import {verifySignatureAsync} from '@svc/webhooks/web';
      import {createFetchHandler} from '@svc/webhooks/fetch';
      const secret = 'whsec_' + 'a'.repeat(32);
      const body = ${JSON.stringify(EVENT_BODY)};
      const header = signPayload({payload: body, secret});
      await verifySignatureAsync({payload: body, header, secret});
      const seen = [];
      const receive = createFetchHandler({secret, onEvent: (event) => { seen.push(event.type); }});
      const ok = await receive(new Request('http://localhost/webhooks', {method: 'POST', body, headers: {'svc-signature': header}}));
      const forged = await receive(new Request('http://localhost/webhooks', {method: 'POST', body: body + ' ', headers: {'svc-signature': header}}));
      process.stdout.write(JSON.stringify({ok: ok.status, forged: forged.status, seen}));
    `);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ok: 200, forged: 400, seen: [JSON.parse(EVENT_BODY).type]});
  });

  it('work together: an emulator from @svc/cli/emulator answers the client from @svc/client', async () => {
    const r = await node(`
      import {startEmulator} from '@svc/cli/emulator';
      import {createClient} from '@svc/client';
      const emu = await startEmulator({port: 0, inMemory: true});
      try {
        const key = await emu.control.createKey({name: 'entry points'});
        const client = createClient({apiUrl: emu.apiUrl, apiKey: key.secret});
        const org = await client.getOrg();
        process.stdout.write(JSON.stringify({same: org.id === emu.orgId}));
      } finally {
        await emu.stop();
      }
    `);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({same: true});
  });
});
