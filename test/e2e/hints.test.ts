// Every command the tool prints runs as printed: the emulator is started each way a person can start it, and
// each printed line is run in a fresh shell (another terminal) that knows only what a new terminal would.
// Everything here spawns: the way into svc a line names (node and a path, svc on the PATH, npx svc in the project)
// is under test, and only a shell of its own runs a line as typed. PostgreSQL is one of the start modes on purpose:
// the backend decides what the ready message prints (--database-url instead of a data dir).
// Backends: starting on PostgreSQL is one of the start modes whose printed lines are under test.
import {type ChildProcess, spawn} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  watch,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import pg from 'pg';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {MAX_ACTIVE_KEYS_PER_ORG, MAX_ENDPOINTS_PER_ORG} from '../../src/definitions.js';
import {startEmulator} from '../../src/emulator/index.js';
import {BIN, runProcess} from '../helpers/run-cli.js';
import {describeEachBackend, POSTGRES, postgresUrl, type Requirement} from '../helpers/requirements.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let base: string;
let shimDir: string;
let project: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'svc-hints-'));
  // `svc` on PATH, as after `npm link` or a global install.
  shimDir = join(base, 'bin');
  mkdirSync(shimDir);
  writeFileSync(join(shimDir, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(shimDir, 'svc'), 0o755);
  project = installedProject(join(base, 'app'));
});

/**
 * A project that depends on svc, laid out as `npm install --save-dev @svc/cli` leaves it: the package's files in
 * node_modules/@svc/cli, its bin linked from node_modules/.bin (where `npx svc` finds it without loading npm's
 * dependency tree), and its dependencies beside it (linked from this repository's node_modules).
 */
function installedProject(dir: string): string {
  const modules = join(dir, 'node_modules');
  const pkg = join(modules, '@svc', 'cli');
  mkdirSync(join(modules, '.bin'), {recursive: true});
  mkdirSync(pkg, {recursive: true});
  writeFileSync(join(dir, 'package.json'), JSON.stringify({name: 'app', private: true}));
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name === '.bin' || name === '@svc' || name.startsWith('.')) continue;
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  }
  for (const name of readdirSync(join(ROOT, 'node_modules', '@svc'))) {
    symlinkSync(join(ROOT, 'node_modules', '@svc', name), join(modules, '@svc', name));
  }
  for (const entry of ['bin', 'dist', 'fixtures', 'oclif.manifest.json', 'package.json']) {
    cpSync(join(ROOT, entry), join(pkg, entry), {
      recursive: true,
      // What the package leaves out (package.json's files): maps, the build's own caches, the executable.
      filter: (from) => !/\.map$|\.v8cache$|\.tsbuildinfo$|[\\/]dist[\\/]binary$/.test(from),
    });
  }
  symlinkSync('../@svc/cli/bin/run.js', join(modules, '.bin', 'svc'));
  return dir;
}
afterAll(() => rmSync(base, {recursive: true, force: true}));

const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';
const TIMER_TRACE = fileURLToPath(new URL('../helpers/timer-trace.cjs', import.meta.url));

/** One person's machine: their own config and data folders, the way into svc they have, the folder they are in. */
interface Machine {
  env: NodeJS.ProcessEnv;
  cwd: string;
}

function machine(name: string, options: {svcOnPath: boolean; cwd?: string}): Machine {
  const home = join(base, name);
  mkdirSync(home, {recursive: true});
  const nodeDir = join(process.execPath, '..');
  const path = [options.svcOnPath ? shimDir : undefined, nodeDir, SYSTEM_PATH].filter(Boolean).join(':');
  return {
    env: {
      PATH: path,
      // npx keeps its cache under HOME; everything svc keeps goes to the XDG folders below.
      HOME: process.env.HOME,
      XDG_CONFIG_HOME: join(home, 'config'),
      XDG_DATA_HOME: join(home, 'data'),
      XDG_CACHE_HOME: join(home, 'cache'),
      NO_COLOR: '1',
    },
    cwd: options.cwd ?? home,
  };
}

/** The script a start runs: the project's own copy when the person is in the project, else this repository's. */
const binFor = (mode: {inProject?: boolean}) =>
  mode.inProject ? join(project, 'node_modules', '@svc', 'cli', 'bin', 'run.js') : BIN;

interface Shell {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one printed line in a new shell, as typed into another terminal. */
// Spawned: the line is run as typed, its way into svc (PATH, npx, node and a path) included.
function sh(m: Machine, line: string, input = ''): Promise<Shell> {
  return runProcess('/bin/sh', ['-c', line], {env: m.env, cwd: m.cwd, input, timeoutMs: 60_000});
}

/** Starts a long-running printed command and waits until its output shows `until`. */
async function background(
  m: Machine,
  line: string,
  until: RegExp,
): Promise<{out: string; stop(): Promise<void>}> {
  // Spawned: these run until a signal (the emulator, svc listen), and the line is run as typed. Each of its Node
  // processes tells where its pending timers were set on SIGUSR2, asked for only when it outlives SIGTERM (stopGroup).
  const reports = mkdtempSync(join(base, 'report-'));
  const env = {...m.env, NODE_OPTIONS: `--require ${TIMER_TRACE}`, SVC_TIMER_TRACE_DIR: reports};
  const child = spawn('/bin/sh', ['-c', `exec ${line}`], {env, cwd: m.cwd, detached: true});
  let out = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const onData = (d: Buffer) => {
        out += d;
        if (until.test(out)) resolve();
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('exit', (code) => reject(new Error(`${line} exited with ${code}:\n${out}`)));
      // A bound, so a line that never prints what is awaited fails naming it rather than at the test's timeout.
      setTimeout(() => reject(new Error(`${line} printed no ${until} within 90 s:\n${out}`)), 90_000).unref();
    });
  } catch (err) {
    await stopGroup(child, line, () => out, reports).catch(() => undefined);
    throw err;
  }
  return {out, stop: () => stopGroup(child, line, () => out, reports)};
}

/**
 * SIGTERM to the group; a process still there 15 s later is killed, and the test fails saying so, with what kept
 * it alive: where its pending timers were set, and its active handles (aliveReport).
 */
async function stopGroup(
  child: ChildProcess,
  line: string,
  out: () => string,
  reports: string,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const closed = new Promise((resolve) => child.once('close', resolve));
  process.kill(-child.pid, 'SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), 15_000);
  });
  const how = await Promise.race([closed, late]);
  clearTimeout(timer);
  if (how !== 'late') return;
  const alive = await aliveReport(child.pid, reports);
  process.kill(-child.pid, 'SIGKILL');
  await closed;
  throw new Error(`${line} did not stop within 15 s of SIGTERM:\n${out()}\n${alive}`);
}

/** What keeps a process group alive: where each of its Node processes set the timers still pending, and its handles. */
async function aliveReport(pid: number, reports: string): Promise<string> {
  // The group leader's trace, with those of the other processes of the group written by then.
  const read = (): string | undefined => {
    if (!existsSync(join(reports, `${pid}.json`))) return undefined;
    try {
      const files = readdirSync(reports).filter((f) => f.endsWith('.json'));
      return files
        .map((f) => `${f}: ${JSON.stringify(JSON.parse(readFileSync(join(reports, f), 'utf8')))}`)
        .join('\n');
    } catch {
      return undefined; // still being written: the next change to the folder says when to look again
    }
  };
  const watcher = watch(reports);
  try {
    process.kill(-pid, 'SIGUSR2');
    return await new Promise<string>((resolve) => {
      const bound = setTimeout(() => resolve(read() ?? 'the process wrote no timer trace on SIGUSR2'), 5_000);
      const look = () => {
        const found = read();
        if (found === undefined) return;
        clearTimeout(bound);
        resolve(found);
      };
      watcher.on('change', look);
      look();
    });
  } finally {
    watcher.close();
  }
}

/** The indented lines of the block under `title` in the ready message, comments removed. */
function block(message: string, title: string): string[] {
  const lines = message.split('\n');
  const start = lines.findIndex((l) => l.startsWith(title));
  expect(start, `"${title}" in:\n${message}`).toBeGreaterThanOrEqual(0);
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('  ')) break;
    out.push(line.replace(/\s+# .*$/, '').trim());
  }
  return out;
}

/** oclif wraps errors and suggestions over lines that start with ›; this puts them back on one line. */
const flat = (text: string) => text.replace(/\n\s*›\s*/g, ' ').replace(/[ \t]+/g, ' ');

interface Mode {
  name: string;
  needs?: Requirement[];
  flags: (m: Machine) => string[] | Promise<string[]>;
  svcOnPath: boolean;
  /** Where the person is: their home, or a project that installed svc (where `npx svc` works). */
  inProject?: boolean;
  /** The way into svc the hints must use. */
  expect: RegExp;
}

const schemas: string[] = [];
afterAll(async () => {
  if (schemas.length === 0) return;
  const admin = new pg.Client({connectionString: postgresUrl()});
  await admin.connect();
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

const modes: Mode[] = [
  {
    name: '--in-memory, svc not on PATH, outside the project',
    flags: () => ['--in-memory'],
    svcOnPath: false,
    expect: /^node /,
  },
  {
    name: '--data-dir, svc on PATH',
    flags: (m) => ['--data-dir', join(m.cwd, 'my emulator')],
    svcOnPath: true,
    expect: /^svc /,
  },
  {
    name: 'the default data dir, from a project that depends on svc',
    flags: () => [],
    svcOnPath: false,
    inProject: true,
    expect: /^npx svc /,
  },
  {
    name: '--database-url (PostgreSQL), svc on PATH',
    svcOnPath: true,
    needs: [POSTGRES],
    expect: /^svc /,
    async flags() {
      const schema = `svc_hints_${randomBytes(5).toString('hex')}`;
      const admin = new pg.Client({connectionString: postgresUrl()});
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.end();
      schemas.push(schema);
      const url = new URL(postgresUrl());
      url.searchParams.set('options', `-c search_path=${schema}`);
      return ['--database-url', url.toString()];
    },
  },
];

describeEachBackend(modes, 'svc emulator start --demo, $name', (mode) => {
  // One emulator start per mode: the start and the commands its ready message prints are under test.
  it('prints only commands that run as printed', {timeout: 240_000}, async () => {
    const m = machine(mode.name.replace(/\W+/g, '-'), {
      svcOnPath: mode.svcOnPath,
      cwd: mode.inProject ? project : undefined,
    });
    const flags = await mode.flags(m);
    const start = `"${process.execPath}" "${binFor(mode)}" emulator start --demo --port 0 ${flags.map((f) => `'${f}'`).join(' ')}`;
    const emulator = await background(m, start, /Press Ctrl\+C to stop\./);
    const running: Array<{stop(): Promise<void>}> = [emulator];
    let firstListen: {stop(): Promise<void>} | undefined;
    try {
      const key = /^ {2}(svc_\w+)$/m.exec(emulator.out)?.[1];
      expect(key).toBeTruthy();
      const tryNext = block(emulator.out, 'Try next');
      for (const line of tryNext) expect(line).toMatch(mode.expect);

      for (const line of tryNext) {
        if (line.includes(' listen ')) {
          const listen = await background(m, line, /Send one from another terminal: .+\n/);
          running.push(listen);
          firstListen = listen;
          // The command listen suggests runs too, and its event reaches the relay.
          const suggested = /Send one from another terminal: (.+)\n/.exec(listen.out)![1]!;
          const sent = await sh(m, suggested);
          expect(sent.code, `${suggested}\n${sent.stderr}`).toBe(0);
          continue;
        }
        const r = await sh(m, line, line.includes(' login ') ? `${key}\n` : '');
        expect(r.code, `${line}\n${r.stdout}\n${r.stderr}`).toBe(0);
        if (line.endsWith(' webhooks list')) {
          // Its hint names a real endpoint id, so it runs as printed too.
          const hint = /Deliveries of an endpoint: (.+)/.exec(r.stderr)?.[1];
          expect(hint, r.stderr).toBeTruthy();
          const deliveries = await sh(m, hint!);
          expect(deliveries.code, `${hint}\n${deliveries.stderr}`).toBe(0);
          expect(deliveries.stdout).toMatch(/sandbox\.ready/);
        }
      }

      // The script form, all lines in one shell.
      const script = block(emulator.out, 'Or, in scripts');
      const r = await sh(m, script.join('\n'));
      expect(r.code, `${script.join('\n')}\n${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(/demo/);

      // A key minted later says how to use it, and its one-step form runs as printed.
      const svc = tryNext[0]!.replace(/ login .*$/, '');
      const dataDir = flags[0] === '--data-dir' ? ` --data-dir '${flags[1]}'` : '';
      const inMemoryDir = /--data-dir (\S+)/.exec(tryNext.join('\n'))?.[1];
      const dirFlag = dataDir || (inMemoryDir ? ` --data-dir ${inMemoryDir}` : '');
      const created = await sh(m, `${svc} emulator keys create --name laptop${dirFlag}`);
      expect(created.code, created.stderr).toBe(0);
      // "Log in with it: … (paste the key when asked)": the pasted key arrives on standard input.
      const logIn = /Log in with it: (.+?)\s+\(paste the key when asked\)/.exec(created.stderr)?.[1];
      expect(logIn, created.stderr).toBeTruthy();
      const pasted = await sh(m, logIn!, created.stdout);
      expect(pasted.code, `${logIn}\n${pasted.stderr}`).toBe(0);
      const oneStep = /Or create and log in in one step: (.+)/.exec(created.stderr)?.[1];
      expect(oneStep, created.stderr).toBeTruthy();
      expect(oneStep).not.toContain(created.stdout.trim());
      const loggedIn = await sh(m, oneStep!);
      expect(loggedIn.code, `${oneStep}\n${loggedIn.stderr}`).toBe(0);
      expect(loggedIn.stderr).toMatch(/Logged in to Demo org/);

      // A local URL is refused with the ways out, and the relay it names runs.
      const refused = await sh(
        m,
        `${svc} emulator webhooks create --url http://localhost:3000/hook --events sandbox.ready${dirFlag}`,
      );
      expect(refused.code).not.toBe(0);
      const text = flat(refused.stderr);
      expect(text).toContain('--allow-local-endpoints');
      // Each next step is a line of its own, never wrapped, so it can be pasted whole.
      const relay = /relay them: (.+)\n/.exec(refused.stderr)?.[1];
      expect(refused.stderr).toMatch(/\nTry this: Or let the emulator post to local URLs: /);
      expect(refused.stderr).not.toContain('›');
      expect(relay, text).toContain(' listen --forward-to http://localhost:3000/hook');
      // One svc listen per relay at a time: the one started above goes first.
      await firstListen?.stop();
      running.push(await background(m, relay!, /Ready!/));
    } finally {
      for (const p of running.reverse()) await p.stop();
    }
  });
});

describe('svc emulator start without --demo', () => {
  it('prints a next step that mints a key and logs in with it, as printed', {timeout: 120_000}, async () => {
    const m = machine('no-demo', {svcOnPath: true});
    // The start is under test: its ready message prints the next step.
    const emulator = await background(
      m,
      `"${process.execPath}" "${BIN}" emulator start --in-memory --port 0`,
      /Press Ctrl\+C to stop\./,
    );
    try {
      const next = block(emulator.out, 'Next');
      expect(next.length).toBeGreaterThan(0);
      for (const line of next) {
        const r = await sh(m, line);
        expect(r.code, `${line}\n${r.stdout}\n${r.stderr}`).toBe(0);
      }
      // The key went from one command to the other through the pipe, never through argv or the screen.
      expect(next.join('\n')).not.toMatch(/svc_\w{40}/);
    } finally {
      await emulator.stop();
    }
  });
});

describe('svc login without --api-url', () => {
  it('names the running emulator when no address is given (this build has none by default)', {
    timeout: 120_000,
  }, async () => {
    const m = machine('login-default', {svcOnPath: true});
    // The start is under test: an emulator started in the default data dir is what svc login finds there.
    const emulator = await background(
      m,
      `"${process.execPath}" "${BIN}" emulator start --demo --port 0`,
      /Press Ctrl\+C to stop\./,
    );
    try {
      const key = /^ {2}(svc_\w+)$/m.exec(emulator.out)![1]!;
      const apiUrl = /API: +(\S+)/.exec(emulator.out)![1]!;
      // A proxy nobody listens on: were anything sent off this machine, it could not get through.
      const offline = {...m, env: {...m.env, HTTPS_PROXY: 'http://127.0.0.1:9'}};
      const r = await sh(offline, 'svc login', `${key}\n`);
      expect(r.code).toBe(2);
      const hint = /log in to it with: (svc login --api-url \S+)/.exec(flat(r.stderr))?.[1];
      expect(hint, r.stderr).toBe(`svc login --api-url ${apiUrl}`);
      const again = await sh(offline, hint!, `${key}\n`);
      expect(again.code, again.stderr).toBe(0);
    } finally {
      await emulator.stop();
    }
  });
});

describe('the ways out printed at the limits', () => {
  it(`at ${MAX_ACTIVE_KEYS_PER_ORG} keys and ${MAX_ENDPOINTS_PER_ORG} endpoints, the printed list and revoke/delete run as printed and make room`, {
    timeout: 180_000,
  }, async () => {
    const m = machine('at-the-limits', {svcOnPath: true});
    const dataDir = join(m.cwd, 'limits emulator');
    const dirFlag = ` --data-dir '${dataDir}'`;
    // What `svc emulator start --demo --data-dir …` runs (its start is not under test here), in this process: the
    // printed commands find it through the runtime file in its data dir.
    const emulator = await startEmulator({port: 0, dataDir, inMemory: true, demo: true});
    try {
      const key = emulator.demoKey!.secret;
      const login = await sh(m, `svc login --api-url ${emulator.apiUrl}`, `${key}\n`);
      expect(login.code, login.stderr).toBe(0);
      // Filled through the control surface (quicker than a process per key); the refusal comes from the CLI.
      const control = emulator.control;
      for (let i = 1; i < MAX_ACTIVE_KEYS_PER_ORG; i++) await control.createKey({name: `filler ${i}`});
      for (let i = 0; i < MAX_ENDPOINTS_PER_ORG; i++)
        await control.createWebhook({url: `https://hooks.example.com/${i}`, events: ['sandbox.ready']});

      const createKey = `svc emulator keys create --name one-more${dirFlag}`;
      const refusedKey = await sh(m, createKey);
      expect(refusedKey.code, refusedKey.stderr).toBe(1);
      const keyHint =
        /`([^`]+ keys list)` shows their ids, `([^`]+ emulator keys revoke)` followed by one revokes it(?: \(with (.+?)\))?/.exec(
          flat(refusedKey.stderr),
        );
      expect(keyHint, refusedKey.stderr).toBeTruthy();
      const [, listKeys, revoke, keyDir] = keyHint!;
      const keys = await sh(m, listKeys!);
      expect(keys.code, keys.stderr).toBe(0);
      const filler = keys.stdout.split('\n').find((l) => l.includes('filler 1 '));
      const keyId = /\bkey_\w+/.exec(filler ?? '')?.[0];
      expect(keyId, keys.stdout).toBeTruthy();
      const revoked = await sh(m, `${revoke} ${keyId}${keyDir ? ` ${keyDir}` : ''}`);
      expect(revoked.code, revoked.stderr).toBe(0);
      const created = await sh(m, createKey);
      expect(created.code, created.stderr).toBe(0);
      expect(created.stdout).toMatch(/^svc_\w+$/m);

      const createHook = `svc emulator webhooks create --url https://hooks.example.com/more --events sandbox.ready${dirFlag}`;
      const refusedHook = await sh(m, createHook);
      expect(refusedHook.code, refusedHook.stderr).toBe(1);
      const hookHint =
        /`([^`]+ webhooks list)` shows their ids, `([^`]+ emulator webhooks delete)` followed by one deletes it(?: \(with (.+?)\))?/.exec(
          flat(refusedHook.stderr),
        );
      expect(hookHint, refusedHook.stderr).toBeTruthy();
      const [, listHooks, remove, hookDir] = hookHint!;
      const hooks = await sh(m, listHooks!);
      expect(hooks.code, hooks.stderr).toBe(0);
      const hookId = /\bwe_\w+/.exec(hooks.stdout.split('\n').find((l) => l.includes('/3 ')) ?? '')?.[0];
      expect(hookId, hooks.stdout).toBeTruthy();
      const deleted = await sh(m, `${remove} ${hookId}${hookDir ? ` ${hookDir}` : ''}`);
      expect(deleted.code, deleted.stderr).toBe(0);
      const added = await sh(m, createHook);
      expect(added.code, added.stderr).toBe(0);
      const after = await sh(m, `${listHooks} --json`);
      const urls = (JSON.parse(after.stdout) as {data: {url: string}[]}).data.map((h) => h.url);
      expect(urls).toContain('https://hooks.example.com/more');
      expect(urls).not.toContain('https://hooks.example.com/3');
    } finally {
      await emulator.stop();
    }
  });
});
