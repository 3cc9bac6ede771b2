// `svc emulator …` as a user runs it: real processes, real signals, the data dir on disk.
import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process';
import {mkdtemp, rm, stat, writeFile} from 'node:fs/promises';
import {existsSync} from 'node:fs';
import {createServer} from 'node:http';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {spawnCli, stopProcess} from '../emulator/delivery/processes.js';
import {BIN, runCommand} from '../helpers/run-cli.js';

let root: string;
const children = new Set<ChildProcessWithoutNullStreams>();
// The file's running emulator, in this process, for the commands that only need one; the starts under test
// (`svc emulator start` itself: its ready line, signals, refusals, addresses) are processes of their own.
let shared: RunningEmulator;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-e2e-emulator-'));
  shared = await startEmulator({port: 0, inMemory: true, dataDir: join(root, 'shared')});
});
afterEach(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  children.clear();
});
afterAll(async () => {
  await shared?.stop();
  await rm(root, {recursive: true, force: true});
});

const baseEnv = (dataDir: string) => ({
  SVC_EMULATOR_DATA_DIR: dataDir,
  SVC_CONFIG_DIR: join(root, 'config'),
  SVC_CACHE_DIR: join(root, 'cache'),
});

interface Started {
  child: ChildProcessWithoutNullStreams;
  ready: {api_url: string; account_url: string; data_dir: string};
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Spawns `svc emulator start --json …` (a start under test, until a signal) and resolves with its ready line. */
function startEmulatorProcess(args: string[], env: Record<string, string>): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'emulator', 'start', '--json', '--port', '0', ...args], {
      env: {PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env},
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.stdout.on('data', (d) => {
      stdout += d;
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line) {
        try {
          resolve({child, ready: JSON.parse(line), stderr: () => stderr, exited});
        } catch (err) {
          reject(err);
        }
      }
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) =>
      reject(new Error(`emulator exited with ${code} before ready: ${stderr}${stdout}`)),
    );
  });
}

const orgWith = (apiUrl: string, secret: string) =>
  fetch(`${apiUrl}/v1/org`, {headers: {authorization: `Bearer ${secret}`}});

describe('svc emulator start', () => {
  it('prints one JSON ready line, keeps acknowledged writes through kill -9, and stops cleanly on SIGTERM', async () => {
    const dataDir = join(root, 'durable');
    const env = baseEnv(dataDir);
    // The three starts are under test (the ready line, kill -9, SIGTERM, SIGINT): processes of their own.
    const first = await startEmulatorProcess([], env);
    expect(Object.keys(first.ready).sort()).toEqual(['account_url', 'api_url', 'data_dir']);
    expect(first.ready.data_dir).toBe(dataDir);
    expect((await stat(join(dataDir, 'emulator.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dataDir, 'vault.key'))).mode & 0o777).toBe(0o600);

    const created = await runCommand(['emulator', 'keys', 'create', '--name', 'durable', '--json'], {env});
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout) as {
      id: string;
      name: string;
      secret: string;
      expires_at: string | null;
    };
    expect(Object.keys(key).sort()).toEqual(['expires_at', 'id', 'name', 'secret']);
    expect(created.stderr).not.toContain(key.secret);
    expect((await orgWith(first.ready.api_url, key.secret)).status).toBe(200);
    const org = await (await orgWith(first.ready.api_url, key.secret)).json();

    first.child.kill('SIGKILL');
    await first.exited;

    // Restart after kill -9, under test.
    const second = await startEmulatorProcess([], env);
    const again = await orgWith(second.ready.api_url, key.secret);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(org);

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(existsSync(join(dataDir, 'emulator.json'))).toBe(false);
    expect(second.stderr()).not.toContain(key.secret);

    // And once more after the clean stop: state survives restarts.
    // Restart after a clean stop, under test.
    const third = await startEmulatorProcess([], env);
    expect((await orgWith(third.ready.api_url, key.secret)).status).toBe(200);
    third.child.kill('SIGINT');
    expect(await third.exited).toBe(0);
  }, 120_000);

  it('refuses a second emulator on the same data dir, and status and stop find the running one', async () => {
    const dataDir = join(root, 'single');
    const env = baseEnv(dataDir);
    // The start is under test (a second one refused; `svc emulator stop` signals its process): a process of its own.
    const running = await startEmulatorProcess(['--clock', 'manual'], env);

    const status = await runCommand(['emulator', 'status', '--json'], {env});
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      running: true,
      api_url: running.ready.api_url,
      clock: {mode: 'manual'},
    });

    const clock = await runCommand(['emulator', 'clock', 'advance', '1h', '--json'], {env});
    expect(clock.code).toBe(0);
    expect(JSON.parse(clock.stdout).mode).toBe('manual');

    const twice = await runCommand(['emulator', 'start', '--port', '0', '--json'], {env});
    expect(twice.code).toBe(1);
    expect(JSON.parse(twice.stdout).error.code).toBe('already_running');

    const stopped = await runCommand(['emulator', 'stop', '--json'], {env});
    expect(stopped.code).toBe(0);
    expect(await running.exited).toBe(0);

    // Nothing running is an answer (printed in full) with an exit code of its own, 3, for scripts to branch on;
    // stopping what is not running has nothing to do.
    const after = await runCommand(['emulator', 'status', '--json'], {env});
    expect(after.code).toBe(3);
    expect(JSON.parse(after.stdout)).toEqual({running: false, data_dir: dataDir});
    const said = await runCommand(['emulator', 'status'], {env});
    expect(said.code).toBe(3);
    expect(said.stdout).toBe(`No emulator is running for the data dir ${dataDir}.\n`);
    expect(said.stderr).toMatch(/^Start one: `(npx )?svc emulator start`\n$/);
    const again = await runCommand(['emulator', 'stop'], {env});
    expect(again.code).toBe(0);
    expect(again.stderr).toBe(`Nothing to stop: no emulator is running for the data dir ${dataDir}.\n`);
    expect(JSON.parse((await runCommand(['emulator', 'stop', '--json'], {env})).stdout)).toEqual({
      stopped: false,
      data_dir: dataDir,
    });
  }, 120_000);

  it('on a port another program holds: exit 1, the port named, and the way out (another --port) works', async () => {
    const holder = createServer((_q, res) => res.end('someone else'));
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const {port} = holder.address() as AddressInfo;
    try {
      const env = baseEnv(join(root, 'port-in-use'));
      const taken = await runCommand(['emulator', 'start', '--in-memory', '--port', String(port)], {env});
      expect(taken.code, taken.stderr).toBe(1);
      expect(taken.stderr).toContain(`port ${port} on 127.0.0.1 is already in use; pick another with --port`);
      expect(taken.stderr).not.toMatch(/EADDRINUSE|\n\s+at /);
      const json = await runCommand(['emulator', 'start', '--in-memory', '--port', String(port), '--json'], {
        env,
      });
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toMatchObject({error: {code: 'port_in_use'}});
      // The other program is untouched, and another port starts.
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('someone else');
      // The way out is a start under test: a process of its own.
      const started = await startEmulatorProcess(['--in-memory'], env);
      expect(started.ready.api_url).not.toContain(`:${port}`);
      started.child.kill('SIGTERM');
      expect(await started.exited).toBe(0);
    } finally {
      holder.closeAllConnections();
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('on a data dir that is a file: exit 1, and the flag to pick another named', async () => {
    const file = join(root, 'data-is-a-file');
    await writeFile(file, 'not a folder');
    const failed = await runCommand(['emulator', 'start', '--port', '0', '--data-dir', file], {
      env: baseEnv(file),
    });
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stderr).toContain(`the data dir ${file} is not a folder; pick another with --data-dir`);
    expect(failed.stderr).not.toContain('`dataDir`');
  });

  it('never echoes a database URL password', async () => {
    const env = {
      ...baseEnv(join(root, 'pg-refused')),
      SVC_EMULATOR_DATABASE_URL: 'postgres://svc:hunter2-secret@127.0.0.1:1/nothing',
    };
    const r = await runCommand(['emulator', 'start', '--port', '0'], {env});
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toContain('hunter2-secret');
    expect(r.stderr).toMatch(/could not start/);
  });
});

describe('svc emulator exec', () => {
  it('runs the command against a throwaway emulator and exits with its code', async () => {
    const script = [
      "const r = await fetch(process.env.SVC_API_URL + '/v1/org', {headers: {authorization: 'Bearer ' + process.env.SVC_API_KEY}});",
      'if (r.status !== 200 || !process.env.SVC_EMULATOR_DATA_DIR) process.exit(1);',
      'process.exit(7);',
    ].join('\n');
    const env = baseEnv(join(root, 'unused'));
    const r = await runCommand(
      ['emulator', 'exec', '--', process.execPath, '--input-type=module', '-e', script],
      {env},
    );
    expect(r.code).toBe(7);
    expect(existsSync(join(root, 'unused'))).toBe(false);
  }, 60_000);

  it('fails clearly when the command does not exist', async () => {
    const r = await runCommand(['emulator', 'exec', '--json', '--', 'svc-no-such-command-xyz'], {
      env: baseEnv(join(root, 'x')),
    });
    expect(r.code).toBe(127);
    expect(JSON.parse(r.stdout).error.code).toBe('command_not_found');
  });
});

describe('nothing to do', () => {
  it('revoking a key twice says the second time that it was already revoked', async () => {
    const env = baseEnv(shared.dataDir);
    const api_url = shared.apiUrl;
    const key = JSON.parse(
      (await runCommand(['emulator', 'keys', 'create', '--name', 'twice', '--json'], {env})).stdout,
    );
    const first = await runCommand(['emulator', 'keys', 'revoke', key.id], {env});
    expect(first.stdout).toBe(`Revoked twice (${key.id}) on the emulator at ${api_url}.\n`);
    const second = await runCommand(['emulator', 'keys', 'revoke', key.id], {env});
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('');
    expect(second.stderr).toBe(
      `Nothing to do: twice (${key.id}) was already revoked on the emulator at ${api_url}.\n`,
    );
  }, 60_000);

  it('logout with nothing stored says there was nothing to do, and nothing about revoking', async () => {
    const r = await runCommand(['logout'], {env: baseEnv(join(root, 'nothing-stored'))});
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('Nothing to do: no key is stored.\n');
  });
});

describe('control commands', () => {
  it('tell the user how to start an emulator when none runs', async () => {
    const r = await runCommand(['emulator', 'keys', 'create', '--name', 'x', '--json'], {
      env: baseEnv(join(root, 'none')),
    });
    // Exit 3, as `svc emulator status` exits when none runs (the exit-code table's "no emulator").
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toEqual({
      error: {code: 'emulator_not_running', message: expect.stringContaining('no emulator')},
    });
  });
});

describe('svc emulator start --host beyond loopback', () => {
  it('warns what it exposes and hands out an address the CLI accepts', {timeout: 60_000}, async () => {
    const dataDir = join(root, 'exposed');
    const env = baseEnv(dataDir);
    // Spawned: the start is under test (its warning), and it runs until a signal.
    const p = spawnCli(['emulator', 'start', '--host', '0.0.0.0', '--port', '0', '--data-dir', dataDir], env);
    try {
      await p.line((l) => l.includes('Press Ctrl+C'));
      const stdout = p.stdoutLines.join('\n');
      expect(p.stderr()).toMatch(/WARNING: listening on every interface \(0\.0\.0\.0\)/);
      expect(p.stderr()).toContain('/account/mailbox');
      expect(p.stderr()).toContain('/_emulator');
      expect(stdout).not.toContain('0.0.0.0');
      const apiUrl = /API: +(\S+)/.exec(stdout)?.[1] as string;
      expect(apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(stdout).toContain(`login --api-url ${apiUrl}`);
      // The hint works as printed: the CLI takes the address.
      const key = await runCommand(
        ['emulator', 'keys', 'create', '--name', 'exposed', '--json', '--data-dir', dataDir],
        {env},
      );
      const secret = JSON.parse(key.stdout).secret as string;
      const org = await runCommand(['org', '--json'], {
        env: {...env, SVC_API_URL: apiUrl, SVC_API_KEY: secret},
      });
      expect(org.code, org.stderr).toBe(0);
    } finally {
      await stopProcess(p);
    }
  });

  it('stays quiet about exposure on the default loopback address', {timeout: 60_000}, async () => {
    const dataDir = join(root, 'quiet');
    // Spawned: the start is under test (no warning), and it runs until a signal.
    const p = spawnCli(['emulator', 'start', '--port', '0', '--data-dir', dataDir], baseEnv(dataDir));
    try {
      await p.line((l) => l.includes('Press Ctrl+C'));
      expect(p.stderr()).not.toContain('WARNING');
      // Said before the database opens, so the seconds of a first start are not silent.
      expect(p.stderr()).toMatch(/^Starting the emulator…\n/);
    } finally {
      await stopProcess(p);
    }
  });

  it('refuses an --allowed-host that is not a host name, with a usage error', async () => {
    const dataDir = join(root, 'bad-allowed-host');
    const r = await runCommand(
      ['emulator', 'start', '--port', '0', '--allowed-host', 'http://box/', '--data-dir', dataDir],
      {
        env: baseEnv(dataDir),
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--allowed-host "http://box/" is not a host name');
  });
});
