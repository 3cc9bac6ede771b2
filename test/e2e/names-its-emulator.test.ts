// Commands that act on an emulator say which one, on stderr, so stdout stays what scripts read: `orgs create`
// (stdout is the id alone), `export` (to a file or to stdout, from a running emulator or a stopped one's data dir)
// and `logs`, whose --follow says at once what it follows instead of staying silent until a request comes.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {followLogs} from '../../src/services/emulator/logs.js';
import {runCommand} from '../helpers/run-cli.js';

let root: string;
let emu: RunningEmulator;
const env = () => ({SVC_EMULATOR_DATA_DIR: emu.dataDir, SVC_CONFIG_DIR: join(root, 'config')});
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-e2e-names-'));
  emu = await startEmulator({port: 0, dataDir: join(root, 'emulator')});
});
afterAll(async () => {
  await emu?.stop();
  await rm(root, {recursive: true, force: true});
});

describe('commands name the emulator they acted on', () => {
  it('orgs create: the id alone on stdout, the emulator on stderr', async () => {
    const r = await runCommand(['emulator', 'orgs', 'create', '--name', 'named'], {env: env()});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^org_\w+\n$/);
    expect(r.stderr).toBe(`Created named on the emulator at ${emu.apiUrl}.\n`);
    const json = await runCommand(['emulator', 'orgs', 'create', '--name', 'quiet', '--json'], {env: env()});
    expect(json.stderr).toBe('');
  });

  it('export: a file or stdout, each saying which emulator the state came from', async () => {
    const out = join(root, 'state.json');
    const toFile = await runCommand(['emulator', 'export', '--out', out], {env: env()});
    expect(toFile.code, toFile.stderr).toBe(0);
    expect(toFile.stdout).toContain(`Wrote ${out} from the emulator at ${emu.apiUrl} (owner-only`);
    const toStdout = await runCommand(['emulator', 'export'], {env: env()});
    expect(toStdout.code, toStdout.stderr).toBe(0);
    expect(JSON.parse(toStdout.stdout)).toHaveProperty('orgs');
    expect(toStdout.stderr).toContain(`Exported the state of the emulator at ${emu.apiUrl}.`);
  });

  it('export of a stopped emulator names its data dir', async () => {
    const stopped = join(root, 'stopped');
    const other = await startEmulator({port: 0, dataDir: stopped});
    await other.stop();
    const r = await runCommand(['emulator', 'export', '--data-dir', stopped], {
      env: {SVC_CONFIG_DIR: env().SVC_CONFIG_DIR},
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Exported the state of the stopped emulator in ${stopped}.`);
  });

  it('logs: the emulator whose log it is, or that its log is empty', async () => {
    await fetch(`${emu.apiUrl}/v1/org`);
    const r = await runCommand(['emulator', 'logs'], {env: env()});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`The request log of the emulator at ${emu.apiUrl}:\n`);
    expect(r.stdout).toContain('/v1/org');
    const none = await runCommand(['emulator', 'logs', '--since', '2000-01-01T00:00:00Z', '--json'], {
      env: env(),
    });
    expect(none.stderr).toBe('');
  });

  it('logs --follow says what it follows before the first request comes', async () => {
    const stop = new AbortController();
    const said: string[] = [];
    await followLogs({
      env: env(),
      signal: stop.signal,
      onFollowing: (apiUrl) => {
        said.push(`following ${apiUrl}`);
        // Nothing has been requested since: the follow would wait; it is told to stop instead.
        stop.abort();
      },
      onLines: (lines) => said.push(`${lines.length} lines`),
      onGone: () => said.push('gone'),
    });
    expect(said).toEqual([`following ${emu.apiUrl}`]);
  });
});
