// `svc emulator sandboxes links` as a user runs it: a port session to a server on this machine, a desktop link, the
// list with each status, and the key's revocation stopping them, through the built CLI (in-process) against a real
// emulator.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {type Receiver, startReceiver} from '../emulator/delivery/helpers.js';
import {localhostFetch} from '../helpers/localhost-fetch.js';
import {runCommand} from '../helpers/run-cli.js';

let dataDir: string;
let emulator: RunningEmulator | undefined;
let upstream: Receiver;
const cli = (args: string[]) => runCommand([...args, '--data-dir', dataDir]);
const json = async <T>(args: string[]): Promise<T> => {
  const r = await cli([...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-links-'));
  // What `svc emulator start --data-dir … --clock manual` runs (its start is not under test here), in this
  // process: the commands find it through the runtime file in its data dir.
  emulator = await startEmulator({port: 0, dataDir, inMemory: true, clock: 'manual'});
  upstream = await startReceiver((req, res) => res.end(`sandbox saw ${req.method} ${req.url}`));
});
afterAll(async () => {
  await emulator?.stop();
  await upstream?.close();
  await rm(dataDir, {recursive: true, force: true});
});

describe('svc emulator sandboxes links', () => {
  it('opens a port session and a desktop link for a key, lists them, and shows them stopped once the key is revoked', async () => {
    const {sandbox} = await json<{sandbox: {id: string}}>([
      'emulator',
      'sandboxes',
      'create',
      '--name',
      'web',
    ]);
    const key = await json<{id: string; secret: string}>(['emulator', 'keys', 'create', '--name', 'ci-42']);

    const made = await cli([
      'emulator',
      'sandboxes',
      'links',
      'create',
      sandbox.id,
      '--kind',
      'port',
      '--port',
      String(upstream.port),
      '--key',
      key.id,
    ]);
    expect(made.code, made.stderr).toBe(0);
    // Only the URL on stdout, so a script can take it with $(…).
    // A port session is served at a name of its own, never the emulator's shared address.
    const port = new URL(emulator?.apiUrl as string).port;
    expect(made.stdout).toMatch(
      new RegExp(`^http://link-[0-9a-f]{32}\\.localhost:${port}/_links/[A-Za-z0-9_-]{43}/\\n$`),
    );
    expect(made.stderr).toContain(`to port ${upstream.port} of this machine, for key ${key.id}`);
    expect(made.stderr).toContain('The URL is shown once');
    expect(made.stderr).toContain(`emulator sandboxes links list ${sandbox.id} --data-dir`);
    const portUrl = made.stdout.trim();
    const proxied = await localhostFetch(`${portUrl}status?verbose=1`);
    expect(proxied.status).toBe(200);
    expect(await proxied.text()).toBe('sandbox saw GET /status?verbose=1');

    const desktop = await json<Record<string, unknown>>([
      'emulator',
      'sandboxes',
      'links',
      'create',
      sandbox.id,
      '--kind',
      'desktop',
      '--key',
      key.id,
    ]);
    expect(Object.keys(desktop).sort()).toEqual(
      ['created_at', 'id', 'key_id', 'kind', 'port', 'sandbox_id', 'url'].sort(),
    );
    expect((await fetch(desktop.url as string)).status).toBe(200);

    const listed = await json<{data: {id: string; kind: string; status: string}[]}>([
      'emulator',
      'sandboxes',
      'links',
      'list',
      sandbox.id,
    ]);
    // Made at the same instant of the manual clock, so in no particular order.
    expect(listed.data.map((l) => [l.kind, l.status]).sort()).toEqual([
      ['desktop', 'active'],
      ['port', 'active'],
    ]);

    const revoked = await cli(['emulator', 'keys', 'revoke', key.id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await localhostFetch(portUrl)).status).toBe(403);
    expect((await fetch(desktop.url as string)).status).toBe(403);

    const table = await cli(['emulator', 'sandboxes', 'links', 'list']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+KIND\s+STATUS\s+SANDBOX\s+KEY\s+CREATED\n/);
    expect(table.stdout).toMatch(new RegExp(`${desktop.id}\\s+desktop\\s+revoked\\s+${sandbox.id}`));
    expect(table.stdout).toMatch(new RegExp(`port ${upstream.port}\\s+revoked`));
    // The list never shows a link's URL, which is its credential.
    expect(table.stdout).not.toContain('/_links/');
    expect(table.stdout).not.toContain(new URL(portUrl).pathname.split('/')[2]);
  });

  it('answers bad input with a usage error or the emulator’s reason, naming the field', async () => {
    const {sandbox} = await json<{sandbox: {id: string}}>(['emulator', 'sandboxes', 'create']);
    const key = await json<{id: string}>(['emulator', 'keys', 'create', '--name', 'bad-input']);
    const create = (...args: string[]) =>
      cli(['emulator', 'sandboxes', 'links', 'create', ...args, '--json']);

    const outOfRange = await create(sandbox.id, '--kind', 'port', '--port', '0', '--key', key.id);
    expect(outOfRange.code).toBe(2);
    const kind = await create(sandbox.id, '--kind', 'vnc', '--key', key.id);
    expect(kind.code).toBe(2);
    const unknown = await create(`sbx_${'a'.repeat(24)}`, '--kind', 'desktop', '--key', key.id);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout)).toMatchObject({
      error: {code: 'not_found', message: expect.stringContaining('sandbox_id')},
    });
    const noPort = await create(sandbox.id, '--kind', 'port', '--key', key.id);
    expect(noPort.code).toBe(1);
    expect(JSON.parse(noPort.stdout)).toMatchObject({
      error: {code: 'invalid_request', message: 'port is required for a port session'},
    });
    const empty = await cli(['emulator', 'sandboxes', 'links', 'list', sandbox.id]);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toContain('No sandbox links. Open one with');
  });
});
