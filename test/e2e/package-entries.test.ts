// Every entry point the package exports, imported by its name (as a project depending on svc writes it) in a
// process of its own, from the built package: each loads and offers what the README's table promises, and a few
// work together across entries. The installed package (npm pack, then install) is the package smoke's part.
import {existsSync, readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {runProcess} from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
interface Manifest {
  name: string;
  exports: Record<string, string | {types?: string; default?: string; import?: {types?: string}}>;
}
const read = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as Manifest;
/** The three packages of this tree, each with its folder. */
const PACKAGES: {pkg: Manifest; dir: string}[] = [
  {pkg: read('../../package.json'), dir: ''},
  {pkg: read('../../src/webhooks/package.json'), dir: 'src/webhooks/'},
  {pkg: read('../../src/client/package.json'), dir: 'src/client/'},
];

/** What the docs say each entry offers (a few names each, not the whole surface), by the name users import. */
const PROMISED: Record<string, string[]> = {
  '@svc/cli/emulator': ['startEmulator', 'EmulatorControl'],
  '@svc/cli/testing': ['startTestEmulator', 'createOrgFixture', 'connectTestEmulator'],
  '@svc/cli/testing/vitest': ['setupSvcOrg', 'createOrgFixture'],
  '@svc/cli/testing/vitest-setup': ['default'],
  '@svc/cli/package.json': ['name', 'version'],
  // The OpenAPI document of /v1 and the webhooks (fixtures/openapi.json).
  '@svc/cli/openapi.json': ['openapi', 'paths', 'webhooks', 'components'],
  // The JSON Schema of scenario files (fixtures/scenario.schema.json), for editors and validators.
  '@svc/cli/scenario.schema.json': ['$schema', 'title', 'properties', 'required'],
  '@svc/webhooks': [
    'signPayload',
    'verifySignature',
    'constructEvent',
    'WebhookVerifier',
    'WebhookVerificationError',
    'EventDeduplicator',
  ],
  '@svc/webhooks/web': [
    'AsyncWebhookVerifier',
    'verifySignatureAsync',
    'constructEventAsync',
    'EventDeduplicator',
  ],
  '@svc/webhooks/node': ['createNodeHandler'],
  '@svc/webhooks/express': ['svcWebhooks'],
  '@svc/webhooks/fetch': ['createFetchHandler'],
  '@svc/webhooks/package.json': ['name', 'version'],
  '@svc/client': ['createClient', 'UnauthorizedError', 'NetworkError', 'EmulatorControl', 'readRuntimeFile'],
  '@svc/client/package.json': ['name', 'version'],
};

/** Every entry of every package, by the name users import, with the types file it names (if any). */
const ENTRIES = PACKAGES.flatMap(({pkg, dir}) =>
  Object.entries(pkg.exports).map(([entry, target]) => {
    const types = typeof target === 'object' ? (target.types ?? target.import?.types) : undefined;
    return {
      name: entry === '.' ? pkg.name : `${pkg.name}/${entry.slice(2)}`,
      types: types && `${dir}${types}`,
    };
  }),
);

/** Runs an ES module script from the package root, where the package can import itself by name. */
// Spawned: the package's own resolution by name (its exports map, the built files) is under test, with no alias of
// this test run's in the way; each entry in a fresh process, so none loads thanks to another.
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

describe('the package entry points, by name', {timeout: 60_000}, () => {
  it('are exactly the ones this test knows', () => {
    expect(ENTRIES.map((e) => e.name).sort()).toEqual(Object.keys(PROMISED).sort());
  });

  it.each(ENTRIES.map((e) => e.name))('%s loads by name and offers what the docs promise', async (name) => {
    const load = name.endsWith('.json')
      ? `(await import(${JSON.stringify(name)}, {with: {type: 'json'}})).default`
      : `await import(${JSON.stringify(name)})`;
    const r = await node(`const m = ${load};\nprocess.stdout.write(JSON.stringify(Object.keys(m)));`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(expect.arrayContaining(PROMISED[name] as string[]));
    const types = ENTRIES.find((e) => e.name === name)?.types;
    if (types) expect(existsSync(`${ROOT}/${types}`)).toBe(true);
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
