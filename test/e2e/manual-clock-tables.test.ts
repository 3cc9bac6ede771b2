// Tables count "in 30 days" and "just now" from the emulator's clock when it is moved by hand, as the
// emulator dates every answer with its own clock.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {OrgControl} from '../../src/testing/index.js';
import {runCommand} from '../helpers/run-cli.js';

let emu: RunningEmulator;
let env: NodeJS.ProcessEnv;
let keyId: string;

beforeAll(async () => {
  // Years away from the machine's clock, so a table counting from the machine's time cannot pass.
  emu = await startEmulator({
    port: 0,
    inMemory: true,
    clock: 'manual',
    clockStart: new Date('2031-03-01T00:00:00Z'),
    allowLocalEndpoints: true,
  });
  const key = await emu.control.createKey({name: 'in-the-future', expires: '30'});
  keyId = key.id;
  env = {SVC_API_KEY: key.secret, SVC_API_URL: emu.apiUrl};
});
afterAll(() => emu?.stop());

const rowOf = (stdout: string) => stdout.split('\n').find((line) => line.includes(keyId)) ?? '';

describe('svc keys list against a manual-clock emulator', {timeout: 60_000}, () => {
  it('dates its answers with the emulator clock', async () => {
    const res = await fetch(`${emu.apiUrl}/v1/org`, {headers: {authorization: `Bearer ${env.SVC_API_KEY}`}});
    expect(res.headers.get('date')).toBe('Sat, 01 Mar 2031 00:00:00 GMT');
  });

  it('shows creation and expiry relative to the emulator clock', async () => {
    const r = await runCommand(['keys', 'list'], {env});
    expect(r.code, r.stderr).toBe(0);
    expect(rowOf(r.stdout)).toMatch(/ just now .* in 30 days /);
  });

  it('follows the clock when it moves', async () => {
    await emu.control.advanceClock('29d23h30m');
    const r = await runCommand(['keys', 'list'], {env});
    expect(r.code, r.stderr).toBe(0);
    expect(rowOf(r.stdout)).toMatch(/ 29 days ago .* in 30 minutes /);
  });
});

describe('a manual clock set mid-second, shared by the whole emulator', {timeout: 60_000}, () => {
  it('reads what was made at that instant as just now, never "in 1 second"', async () => {
    // The Date header the CLI counts from has whole seconds: .900 of the same second is not in the future.
    // The file's emulator, its clock set (forward, past the moves above) to .900 of a second; an org of this
    // test's own, which follows the emulator's clock.
    await emu.control.setClock('2031-06-01T00:00:00.900Z');
    const org = new OrgControl(emu.control, (await emu.control.createOrg({name: 'mid-second'})).id);
    const key = await org.createKey({name: 'mid-second', expires: '30'});
    await org.createWebhook({url: 'http://127.0.0.1:9/hook', events: ['sandbox.ready']});
    const at = {SVC_API_KEY: key.secret, SVC_API_URL: emu.apiUrl};
    const keys = await runCommand(['keys', 'list'], {env: at});
    expect(keys.code, keys.stderr).toBe(0);
    expect(keys.stdout.split('\n').find((l) => l.includes(key.id))).toMatch(/ just now .* in 30 days /);
    const hooks = await runCommand(['webhooks', 'list'], {env: at});
    expect(hooks.code, hooks.stderr).toBe(0);
    expect(hooks.stdout).toMatch(/ just now\n/);
    expect(keys.stdout + hooks.stdout).not.toMatch(/in 1 second/);
  });
});
