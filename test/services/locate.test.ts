// Which emulator a command means, answered once (src/services/emulator/locate.ts) for every command: a named data
// dir wins (--data-dir, SVC_EMULATOR_DATA_DIR), else the address in use is matched against the noted emulators and
// the default data dir, else the default data dir. Runtime files are believed only when they are the user's own.
// One real in-memory emulator for the file; the rest are real runtime files in temporary dirs.
import {spawnSync} from 'node:child_process';
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest';
import {type RuntimeInfo, readRuntimeFile, writeRuntimeFile} from '../../src/emulator-layout/runtime.js';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {UserError} from '../../src/lib/errors.js';
import {checkRuntimeFile} from '../../src/services/doctor/emulator.js';
import {findRunning} from '../../src/services/emulator/connect.js';
import {emulatorControlFor} from '../../src/services/emulator/for-api-url.js';
import {
  controlOf,
  locateEmulator,
  notFoundError,
  sameApiAddress,
} from '../../src/services/emulator/locate.js';
import {registerEmulator} from '../../src/services/emulator/registry.js';
import {emulatorStatus} from '../../src/services/emulator/status.js';
import {withStateTarget} from '../../src/services/emulator/state/connect.js';
import {openableAccountUrl, openAccountPage} from '../../src/services/open.js';
import {runCommand} from '../helpers/run-cli.js';

const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;

let emu: RunningEmulator;
/** The emulator's own runtime file (its admin token), to copy into other data dirs. */
let info: RuntimeInfo;
let root: string;
/** A fresh home for each test: its own config, svc data dir (registry) and default emulator data dir. */
let env: NodeJS.ProcessEnv;
let defaultDir: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-locate-'));
  emu = await startEmulator({inMemory: true, port: 0});
  info = (await readRuntimeFile(emu.dataDir)) as RuntimeInfo;
  expect(info.api_url).toBe(emu.apiUrl);
});

afterAll(async () => {
  await emu?.stop();
  if (root) await rm(root, {recursive: true, force: true});
});

let n = 0;
beforeEach(async () => {
  const home = join(root, `home-${++n}`);
  env = {SVC_CONFIG_DIR: join(home, 'config'), SVC_DATA_DIR: join(home, 'data')};
  defaultDir = join(home, 'data', 'emulator');
  await mkdir(defaultDir, {recursive: true, mode: 0o700});
});

/** A data dir with a runtime file of its own (the running emulator's, unless told otherwise). */
async function dataDirWith(patch: Partial<RuntimeInfo> = {}, dir?: string): Promise<string> {
  const dataDir = dir ?? (await mkdtemp(join(root, 'dd-')));
  await writeRuntimeFile(dataDir, {...info, data_dir: dataDir, ...patch});
  return dataDir;
}

const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid as number;

describe('which emulator', {timeout: 60_000}, () => {
  it('a named data dir (--data-dir) wins, and its control client reaches the emulator', async () => {
    const found = await locateEmulator({
      env: {...env, SVC_API_URL: 'http://127.0.0.1:9'},
      dataDir: emu.dataDir,
    });
    expect(found).toMatchObject({
      found: true,
      how: 'data-dir',
      dataDir: emu.dataDir,
      info: {api_url: emu.apiUrl},
    });
    if (!found.found) throw new Error('not found');
    expect((await controlOf(found).health()).org_id).toBe(emu.orgId);
  });

  it('SVC_EMULATOR_DATA_DIR names the data dir as --data-dir does', async () => {
    const found = await locateEmulator({env: {...env, SVC_EMULATOR_DATA_DIR: emu.dataDir}});
    expect(found).toMatchObject({found: true, how: 'data-dir', dataDir: emu.dataDir});
  });

  it('finds an in-memory emulator with a data dir of its own by the address in use, through its registry note', async () => {
    const inUse = {...env, SVC_API_URL: emu.apiUrl.replace('127.0.0.1', 'localhost')};
    expect(await locateEmulator({env: inUse})).toEqual({
      found: false,
      lookedFor: {data_dir: defaultDir, api_url: emu.apiUrl.replace('127.0.0.1', 'localhost')},
      reasons: [],
    });
    const unregister = await registerEmulator(inUse, emu.dataDir);
    try {
      expect(await locateEmulator({env: inUse})).toMatchObject({
        found: true,
        how: 'address',
        dataDir: emu.dataDir,
      });
      // --api-url is an address in use too, and wins over SVC_API_URL.
      expect(
        await locateEmulator({env: {...inUse, SVC_API_URL: 'http://127.0.0.1:9'}, apiUrl: emu.apiUrl}),
      ).toMatchObject({found: true, how: 'address'});
      expect((await findRunning({env: inUse})).dataDir).toBe(emu.dataDir);
      expect(await emulatorStatus({env: inUse})).toMatchObject({running: true, data_dir: emu.dataDir});
      expect(await emulatorControlFor(emu.apiUrl, {env})).toBeDefined();
    } finally {
      await unregister();
    }
  });

  it('falls back to the default data dir, which also serves an address in use', async () => {
    await dataDirWith({}, defaultDir);
    expect(await locateEmulator({env})).toMatchObject({found: true, how: 'default', dataDir: defaultDir});
    expect(await locateEmulator({env: {...env, SVC_API_URL: emu.apiUrl}})).toMatchObject({
      found: true,
      how: 'address',
      dataDir: defaultDir,
    });
    const elsewhere = await locateEmulator({env: {...env, SVC_API_URL: 'http://127.0.0.1:9'}});
    expect(elsewhere).toMatchObject({found: false, lookedFor: {api_url: 'http://127.0.0.1:9'}});
  });

  it('says where it looked when nothing runs, as an answer (status) and as an error (the control commands)', async () => {
    const none = await locateEmulator({env});
    expect(none).toEqual({found: false, lookedFor: {data_dir: defaultDir}, reasons: []});
    expect(await emulatorStatus({env})).toEqual({running: false, data_dir: defaultDir});
    const err = await findRunning({env}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err).toMatchObject({
      code: 'emulator_not_running',
      message: `no emulator is running for the data dir ${defaultDir}`,
    });
  });

  it('an --api-url the named data dir does not serve finds nothing, and says whose address it is', async () => {
    const located = await locateEmulator({env, dataDir: emu.dataDir, apiUrl: 'http://127.0.0.1:9'});
    expect(located).toEqual({
      found: false,
      lookedFor: {data_dir: emu.dataDir, api_url: 'http://127.0.0.1:9'},
      reasons: [`the emulator of ${emu.dataDir} serves ${emu.apiUrl}`],
    });
    expect(await emulatorControlFor('http://127.0.0.1:9', {env, dataDir: emu.dataDir})).toBeUndefined();
    expect(await emulatorControlFor(emu.apiUrl, {env, dataDir: emu.dataDir})).toBeDefined();
  });

  it('a runtime file whose process is gone counts as nothing running, and its registry note is forgotten', async () => {
    const stale = await dataDirWith({pid: deadPid()});
    expect(await locateEmulator({env, dataDir: stale})).toEqual({
      found: false,
      lookedFor: {data_dir: stale},
      reasons: [],
    });
    const inUse = {...env, SVC_API_URL: emu.apiUrl};
    await registerEmulator(inUse, emu.dataDir, deadPid());
    expect(await locateEmulator({env: inUse})).toMatchObject({found: false});
    expect(await readdir(join(env.SVC_DATA_DIR as string, 'emulators'))).toEqual([]);
  });

  it('counts every loopback name as one host, and nothing else', () => {
    expect(sameApiAddress('http://127.0.0.1:4010', 'http://localhost:4010')).toBe(true);
    expect(sameApiAddress('http://[::1]:4010', 'http://LOCALHOST:4010/')).toBe(true);
    expect(sameApiAddress('http://127.0.0.1:4010', 'http://127.0.0.1:4011')).toBe(false);
    expect(sameApiAddress('http://127.0.0.1:4010', 'https://127.0.0.1:4010')).toBe(false);
    expect(sameApiAddress('http://127.0.0.1:4010', 'http://example.com:4010')).toBe(false);
  });
});

describe('runtime files are believed only when they are the user’s own', {timeout: 60_000}, () => {
  it('ignores an emulator.json others can change (mode 0666), and says why', async () => {
    const dir = await dataDirWith();
    await chmod(join(dir, 'emulator.json'), 0o666);
    const located = await locateEmulator({env, dataDir: dir});
    const why = `the emulator.json in ${dir} can be changed by other users (mode 666): ignored`;
    expect(located).toEqual({found: false, lookedFor: {data_dir: dir}, reasons: [why]});
    const err = notFoundError(located as Extract<typeof located, {found: false}>);
    expect(err.message).toBe(`no emulator is running for the data dir ${dir}; ${why}`);
    expect(err.suggestions.join('\n')).toMatch(/Remove a runtime file that is not yours/);
    expect(await emulatorStatus({env, dataDir: dir})).toEqual({
      running: false,
      data_dir: dir,
      reasons: [why],
    });
    // Nor does a state command open the data dir beside whatever may run there.
    await expect(withStateTarget({env, dataDir: dir, log: () => undefined}, async () => 1)).rejects.toThrow(
      why,
    );
    // svc doctor says the same.
    expect((await checkRuntimeFile({dataDir: dir, apiUrl: emu.apiUrl})).check).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining(why),
    });
    await chmod(join(dir, 'emulator.json'), 0o600);
    expect(await locateEmulator({env, dataDir: dir})).toMatchObject({found: true});
  });

  it.skipIf(!asRoot)('ignores an emulator.json that belongs to another user', async () => {
    const dir = await dataDirWith();
    await chown(join(dir, 'emulator.json'), NOBODY, NOBODY);
    const located = await locateEmulator({env, dataDir: dir});
    expect(located).toEqual({
      found: false,
      lookedFor: {data_dir: dir},
      reasons: [`the emulator.json in ${dir} belongs to another user (uid ${NOBODY}): ignored`],
    });
    await expect(findRunning({env, dataDir: dir})).rejects.toThrow(
      /belongs to another user \(uid 65534\): ignored/,
    );
    expect(await emulatorControlFor(emu.apiUrl, {env, dataDir: dir})).toBeUndefined();
  });

  it.skipIf(!asRoot)('ignores a registry note that belongs to another user', async () => {
    const inUse = {...env, SVC_API_URL: emu.apiUrl};
    await registerEmulator(inUse, emu.dataDir);
    const note = join(env.SVC_DATA_DIR as string, 'emulators', `${process.pid}.json`);
    await chown(note, NOBODY, NOBODY);
    const located = await locateEmulator({env: inUse});
    expect(located).toMatchObject({
      found: false,
      lookedFor: {api_url: emu.apiUrl},
      reasons: [`the emulator note ${note} belongs to another user (uid ${NOBODY}): ignored`],
    });
    await expect(findRunning({env: inUse})).rejects.toThrow(
      new RegExp(`^no running emulator serves ${emu.apiUrl}; the emulator note`),
    );
  });

  it('ignores a registry note others can change, an emulator.json that is a link, and a pipe', async () => {
    const inUse = {...env, SVC_API_URL: emu.apiUrl};
    await registerEmulator(inUse, emu.dataDir);
    const note = join(env.SVC_DATA_DIR as string, 'emulators', `${process.pid}.json`);
    await chmod(note, 0o622);
    expect(await locateEmulator({env: inUse})).toMatchObject({
      found: false,
      reasons: [`the emulator note ${note} can be changed by other users (mode 622): ignored`],
    });

    const linked = await mkdtemp(join(root, 'dd-'));
    await symlink(join(emu.dataDir, 'emulator.json'), join(linked, 'emulator.json'));
    expect(await locateEmulator({env, dataDir: linked})).toMatchObject({
      found: false,
      reasons: [`the emulator.json in ${linked} is a symbolic link: ignored`],
    });

    const piped = await mkdtemp(join(root, 'dd-'));
    expect(spawnSync('mkfifo', [join(piped, 'emulator.json')]).status).toBe(0);
    expect(await locateEmulator({env, dataDir: piped})).toMatchObject({
      found: false,
      reasons: [`the emulator.json in ${piped} is not a regular file: ignored`],
    });
  });
});

describe('runtime files and registry notes are written as svc writes every file', () => {
  it('never through a link planted at the note’s name or at the runtime file’s former temporary name', async () => {
    const victim = join(root, `victim-${++n}`);
    await writeFile(victim, 'keep me\n', {mode: 0o644});
    const notes = join(env.SVC_DATA_DIR as string, 'emulators');
    await mkdir(notes, {recursive: true, mode: 0o700});
    const note = join(notes, `${process.pid}.json`);
    await symlink(victim, note);
    await registerEmulator(env, emu.dataDir);
    expect(await readFile(victim, 'utf8')).toBe('keep me\n');
    expect((await lstat(note)).isSymbolicLink()).toBe(true);

    await rm(note);
    const unregister = await registerEmulator(env, emu.dataDir);
    expect((await lstat(note)).mode & 0o777).toBe(0o600);
    await unregister();

    const dir = await mkdtemp(join(root, 'dd-'));
    await symlink(victim, join(dir, `emulator.json.${process.pid}.tmp`));
    await writeRuntimeFile(dir, {...info, data_dir: dir});
    expect(await readFile(victim, 'utf8')).toBe('keep me\n');
    expect((await lstat(join(dir, 'emulator.json'))).mode & 0o777).toBe(0o600);
    expect(await readRuntimeFile(dir)).toEqual({...info, data_dir: dir});
  });
});

describe('svc open', {timeout: 60_000}, () => {
  const print = (options: {env: NodeJS.ProcessEnv; dataDir?: string; apiUrl?: string}) =>
    openAccountPage({...options, print: true, interactive: false});

  it('finds an in-memory emulator by the address in use, and one given by its data dir', async () => {
    const inUse = {...env, SVC_API_URL: emu.apiUrl};
    const unregister = await registerEmulator(inUse, emu.dataDir);
    try {
      expect(await print({env: inUse})).toEqual({url: emu.accountUrl, api_url: emu.apiUrl, opened: false});
    } finally {
      await unregister();
    }
    await expect(print({env: inUse})).rejects.toThrow(`no running emulator serves ${emu.apiUrl}`);
    expect(await print({env, dataDir: emu.dataDir})).toEqual({
      url: emu.accountUrl,
      api_url: emu.apiUrl,
      opened: false,
    });
    expect(await print({env: {...env, SVC_EMULATOR_DATA_DIR: emu.dataDir}})).toMatchObject({
      url: emu.accountUrl,
    });
    expect(emu.accountUrl).toMatch(/^http:\/\/svc-\d+\.localhost:\d+\/account$/);
  });

  it('as the CLI runs it, finds the emulator svc emulator status and svc trigger find, and no other', async () => {
    const inUse = {...env, SVC_API_URL: emu.apiUrl};
    const unregister = await registerEmulator(inUse, emu.dataDir);
    try {
      for (const extra of [[], ['--data-dir', emu.dataDir]]) {
        const opened = await runCommand(['open', '--print', ...extra], {env: inUse});
        expect({code: opened.code, stdout: opened.stdout}).toEqual({code: 0, stdout: `${emu.accountUrl}\n`});
        const status = await runCommand(['emulator', 'status', '--json', ...extra], {env: inUse});
        expect(JSON.parse(status.stdout)).toMatchObject({running: true, api_url: emu.apiUrl});
      }
      const triggered = await runCommand(['trigger', 'sandbox.ready', '--json'], {env: inUse});
      expect(triggered.code, triggered.stderr).toBe(0);
    } finally {
      await unregister();
    }
    const none = await runCommand(['open', '--print'], {env: inUse});
    const trigger = await runCommand(['trigger', 'sandbox.ready'], {env: inUse});
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain(`no running emulator serves ${emu.apiUrl}`);
    expect(trigger.stderr).toContain(`no running emulator serves ${emu.apiUrl}`);
  });

  it('refuses a planted account page that is not an http(s) address of the emulator', async () => {
    for (const account_url of [
      'file:///etc/shadow',
      'javascript:alert(1)',
      'http://evil.example/account',
      'http://user:pw@127.0.0.1/account',
      `http://svc-1.localhost:1/account`,
      'not a url',
    ]) {
      const dir = await dataDirWith({account_url});
      const err = await print({env, dataDir: dir}).catch((e: unknown) => e);
      expect(err, account_url).toBeInstanceOf(UserError);
      expect(err).toMatchObject({
        code: 'unsafe_account_url',
        message: expect.stringContaining('so svc open does not open it'),
      });
    }
    const ok = (account_url: string, api_url = 'http://127.0.0.1:4010') =>
      openableAccountUrl({account_url, api_url});
    expect(ok('http://svc-4010.localhost:4010/account')).toBe('http://svc-4010.localhost:4010/account');
    expect(ok('http://127.0.0.1:4010/account')).toBe('http://127.0.0.1:4010/account');
    expect(ok('http://192.168.1.5:4010/account', 'http://192.168.1.5:4010')).toBe(
      'http://192.168.1.5:4010/account',
    );
  });
});
