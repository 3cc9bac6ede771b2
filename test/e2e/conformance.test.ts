// `svc conformance` as a CI job runs it: against the emulator every check passes; against a deployment that
// drifted (a renamed field, a 429 without Retry-After) it names each drift and exits 1.
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {runCommand} from '../helpers/run-cli.js';

let emu: RunningEmulator;
let secret: string;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-conformance-'));
  emu = await startEmulator({port: 0, inMemory: true, allowLocalEndpoints: true});
  secret = (await emu.control.createKey({name: 'conformance'})).secret;
  await emu.control.createWebhook({url: 'http://127.0.0.1:9/hooks', events: ['sandbox.ready']});
});
afterAll(async () => {
  await emu?.stop();
  await rm(root, {recursive: true, force: true});
});

/** The org's keys (id and status) and endpoints: what a write would change (using a key changes only its last use). */
async function orgState() {
  const read = async (path: string) =>
    (
      (await (
        await fetch(`${emu.apiUrl}${path}`, {headers: {authorization: `Bearer ${secret}`}})
      ).json()) as {
        data: {id: string; status?: string}[];
      }
    ).data.map((r) => [r.id, r.status]);
  return {keys: await read('/v1/api-keys'), webhooks: await read('/v1/webhooks')};
}

const conformance = (apiUrl: string, extra: NodeJS.ProcessEnv = {}, args = ['--json']) =>
  runCommand(['conformance', ...args], {
    env: {SVC_API_KEY: secret, SVC_API_URL: apiUrl, SVC_CONFIG_DIR: join(root, 'config'), ...extra},
  });

/** A deployment that drifted from the document: the emulator behind a proxy that renames and drops things. */
async function driftingDeployment(target: string): Promise<{url: string; close(): Promise<void>}> {
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const upstream = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers: Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => k === 'authorization' || k === 'content-type'),
      ) as Record<string, string>,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    let body = await upstream.text();
    // A field renamed in the key list.
    if (req.url === '/v1/api-keys' && upstream.status === 200)
      body = body.replaceAll('"prefix":', '"key_prefix":');
    const headers: Record<string, string> = {
      'content-type': upstream.headers.get('content-type') ?? 'application/json',
    };
    // Retry-After and Deprecation are the headers that drifted away: they are never passed on.
    res.writeHead(upstream.status, headers);
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe('svc conformance', {timeout: 90_000}, () => {
  it('passes every check against the emulator', async () => {
    await emu.control.resetLimiter();
    const before = await orgState();
    const r = await conformance(emu.apiUrl);
    await emu.control.resetLimiter();
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.api_url).toBe(emu.apiUrl);
    expect(report.failed).toBe(0);
    expect(report.checks.map((c: {id: string; status: string}) => [c.id, c.status])).toEqual([
      ['org.read', 'pass'],
      ['api-keys.read', 'pass'],
      ['webhooks.read', 'pass'],
      ['deliveries.read', 'pass'],
      ['deliveries.unknown-endpoint', 'pass'],
      ['auth.missing-key', 'pass'],
      ['auth.wrong-key', 'pass'],
      ['api-keys.create-refused', 'pass'],
      ['api-keys.revoke-refused', 'pass'],
      ['webhooks.create-refused', 'pass'],
      ['auth.rate-limited', 'pass'],
    ]);
    expect(report.passed).toBe(11);
    // Read-only: the org's keys and endpoints are as they were.
    expect(await orgState()).toEqual(before);
  });

  it('never leaves its caller locked out of an emulator: it resets the limiter it tripped, and says so', async () => {
    await emu.control.resetLimiter();
    // The emulator found by its data dir, as a command finds it.
    const found = {SVC_EMULATOR_DATA_DIR: emu.dataDir};
    const r = await conformance(emu.apiUrl, found, []);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "Rate limit: the 429 check locked this address out, and the emulator's limiter was reset after it: nothing waits on a 429",
    );
    // The very next command with the same key works.
    const org = await runCommand(['org', '--json'], {
      env: {SVC_API_KEY: secret, SVC_API_URL: emu.apiUrl, SVC_CONFIG_DIR: join(root, 'config')},
    });
    expect(org.code, org.stderr).toBe(0);

    const skipped = await conformance(emu.apiUrl, found, ['--json', '--skip-rate-limit']);
    expect(JSON.parse(skipped.stdout).rate_limit).toEqual({
      tripped: false,
      reset: false,
      summary: 'untouched: the 429 check was left out (--skip-rate-limit)',
    });
  });

  it('catches a renamed field, a missing Retry-After and a missing Deprecation, and exits 1', async () => {
    await emu.control.resetLimiter();
    const drifting = await driftingDeployment(emu.apiUrl);
    try {
      const r = await conformance(drifting.url);
      expect(r.code).toBe(1);
      const report = JSON.parse(r.stdout);
      const failed = report.checks.filter((c: {status: string}) => c.status === 'fail');
      expect(failed.map((c: {id: string}) => c.id)).toEqual([
        'api-keys.read',
        'webhooks.create-refused',
        'auth.rate-limited',
      ]);
      expect(failed[0].got).toContain('body data.0.prefix');
      expect(failed[1].got).toBe('header Deprecation is missing');
      expect(failed[2].got).toBe('header Retry-After is missing');
      expect(report.failed).toBe(3);
      expect(report.passed).toBe(8);
      // No emulator serves the proxy's address: the lockout stands, and the report says how to avoid it.
      expect(report.rate_limit).toMatchObject({tripped: true, reset: false});
      expect(report.rate_limit.summary).toContain('pass --skip-rate-limit next time');
    } finally {
      await drifting.close();
      await emu.control.resetLimiter();
    }
  });
});
