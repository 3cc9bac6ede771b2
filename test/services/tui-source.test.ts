// Where `svc tui` reads: a browser opened before any login follows the login made meanwhile in another terminal,
// header address, attempt detail and resend included.
import {mkdtemp, rm} from 'node:fs/promises';
import {createServer} from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {openCommandSession} from '../../src/auth/session.js';
import {createClient} from '../../src/client/index.js';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {toUserError} from '../../src/lib/error-mapper.js';
import {openTuiSource, prefetchEndpoints} from '../../src/services/tui.js';
import {describeTrouble} from '../../src/ui/tui/trouble.js';
import {runCommand} from '../helpers/run-cli.js';

let root: string;
let emu: RunningEmulator;

/** As `svc tui` opens it: the client of the command's session, asked for on each use (a failure is not kept). */
const tuiSource = (env: NodeJS.ProcessEnv) =>
  openTuiSource({
    env,
    client: async () => (await openCommandSession({env, apiUrl: undefined})).client,
  });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-tui-source-'));
  emu = await startEmulator({port: 0, dataDir: join(root, 'emulator')});
});
afterAll(async () => {
  await emu?.stop();
  await rm(root, {recursive: true, force: true});
});

describe('openTuiSource', () => {
  it('names the address of the login made after it opened, and offers the emulator parts there', async () => {
    const env = {SVC_CONFIG_DIR: join(root, 'config'), SVC_EMULATOR_DATA_DIR: join(root, 'emulator')};
    const source = prefetchEndpoints(await tuiSource(env));
    // No address at all yet (this build has no default): the browser opens and says so.
    expect(source.apiUrl).toBe('');
    expect(source.emulator).toBe(false);
    await expect(source.listEndpoints()).rejects.toMatchObject({exitCode: 2, code: 'no_api_url'});

    // Another terminal logs in to the emulator.
    const key = await emu.control.createKey({name: 'later'});
    const login = await runCommand(['login', '--api-url', emu.apiUrl], {env, input: `${key.secret}\n`});
    expect(login.code, login.stderr).toBe(0);

    expect(await source.listEndpoints()).toEqual([]);
    expect(source.apiUrl).toBe(emu.apiUrl);
    expect(source.emulator).toBe(true);
    expect(source.resend).toBeTypeOf('function');
    expect(source.deliveryDetail).toBeTypeOf('function');
  });

  it("tells the health of the key's own org's endpoints from the emulator, and none where no emulator runs", async () => {
    const env = {SVC_CONFIG_DIR: join(root, 'config-health'), SVC_EMULATOR_DATA_DIR: join(root, 'emulator')};
    const elsewhere = await tuiSource(env);
    expect(elsewhere.endpointHealth).toBeUndefined();

    const other = await emu.control.createOrg({name: 'Another org'});
    await emu.control.createWebhook({
      url: 'https://theirs.example.com/',
      events: ['sandbox.ready'],
      org_id: other.id,
    });
    const ours = await emu.control.createWebhook({
      url: 'https://ours.example.com/',
      events: ['sandbox.ready'],
    });
    const key = await emu.control.createKey({name: 'health'});
    const source = await tuiSource({...env, SVC_API_URL: emu.apiUrl, SVC_API_KEY: key.secret});
    expect(await source.endpointHealth?.()).toEqual([
      {endpoint_id: ours.id, recent: 0, failed: 0, pending: 0, last: null},
    ]);
  });
});

describe('describeTrouble', () => {
  // Real failures from a real client: the screen is chosen from the one mapper's code, the words are its message.
  it('picks the screen by the mapper’s code and shows the mapper’s message, for every kind of failure', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as {port: number}).port;
    await new Promise<void>((r) => closed.close(() => r()));

    const key = await emu.control.createKey({name: 'trouble'});
    const caught = async (run: () => Promise<unknown>) =>
      run().then(
        () => undefined,
        (e: unknown) => e,
      );
    const wrong = `svc_${'x'.repeat(40)}`;
    const cases: [unknown, string][] = [
      [await caught(() => createClient({apiUrl: emu.apiUrl, apiKey: wrong}).getOrg()), 'unauthorized'],
      [
        await caught(() => createClient({apiUrl: `http://127.0.0.1:${port}`, apiKey: key.secret}).getOrg()),
        'network',
      ],
      [
        await caught(() =>
          createClient({apiUrl: emu.apiUrl, apiKey: key.secret}).listDeliveries(`we_${'0'.repeat(24)}`),
        ),
        'not_found',
      ],
      [await caught(() => emu.control.delivery(`dlv_${'0'.repeat(24)}`)), 'not_found'],
      [new RangeError('index 7 out of range'), 'other'],
    ];
    for (const [err, kind] of cases) {
      expect(err).toBeDefined();
      expect(describeTrouble(err)).toEqual({kind, message: toUserError(err).message});
    }
  });
});
