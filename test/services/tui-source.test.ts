// Where `svc tui` reads: a browser opened before any login follows the login made meanwhile in another terminal,
// header address, attempt detail and resend included.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {DEFAULT_API_URL} from '../../src/client/defaults.js';
import {openTuiSource, prefetchEndpoints} from '../../src/services/tui.js';
import {runCli} from '../helpers/run-cli.js';

let root: string;
let emu: RunningEmulator;

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
    const source = prefetchEndpoints(await openTuiSource({env}));
    expect(source.apiUrl).toBe(DEFAULT_API_URL);
    expect(source.emulator).toBe(false);
    await expect(source.listEndpoints()).rejects.toMatchObject({exitCode: 4});

    // Another terminal logs in to the emulator.
    const key = await emu.control.createKey({name: 'later'});
    const login = await runCli(['login', '--api-url', emu.apiUrl], {env, input: `${key.secret}\n`});
    expect(login.code, login.stderr).toBe(0);

    expect(await source.listEndpoints()).toEqual([]);
    expect(source.apiUrl).toBe(emu.apiUrl);
    expect(source.emulator).toBe(true);
    expect(source.resend).toBeTypeOf('function');
    expect(source.deliveryDetail).toBeTypeOf('function');
  });
});
