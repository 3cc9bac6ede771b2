// How svc fails, as a user sees it: the message and next step on stderr, the exit code, the JSON error on
// stdout with --json, and the stack only when asked for (--debug or SVC_DEBUG). The built CLI, in-process unless a
// test says why not.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {newApiKeySecret} from '../../src/emulator/ids.js';
import {type CliResult, runCli, runCommand} from '../helpers/run-cli.js';

let configDir: string;
beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'svc-cli-errors-'));
});
afterEach(() => {
  rmSync(configDir, {recursive: true, force: true});
});

/** An address nobody is logged in to: the not-logged-in path, reached without sending anything. */
const HOSTED = 'https://api.svc.invalid';

function svc(args: string[], env: NodeJS.ProcessEnv = {}, input?: string, spawn = false): Promise<CliResult> {
  return (spawn ? runCli : runCommand)(args, {
    env: {SVC_CONFIG_DIR: configDir, SVC_API_URL: HOSTED, ...env},
    input,
  });
}

/** oclif wraps errors to the terminal width behind " ›   ": join them back into one line. */
const flat = (text: string) => text.replace(/\n\s*›\s*/g, ' ').replace(/[ \t]+/g, ' ');
/** A line of a JavaScript stack trace. */
const STACK_LINE = /^\s+at .+/m;

describe('svc errors', {timeout: 60_000}, () => {
  it('says what happened and what to do, with the exit code, and no stack', async () => {
    const r = await svc(['org']);
    expect(r.code).toBe(4);
    expect(flat(r.stderr)).toContain(
      'not logged in to https://api.svc.invalid; run `npx svc login --api-url https://api.svc.invalid` or set SVC_API_KEY',
    );
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.stdout).toBe('');
  });

  it('sends nothing without an address (this build has no default) and names the three ways to give one', async () => {
    const r = await svc(['org'], {SVC_API_URL: ''});
    expect(r.code).toBe(2);
    const err = flat(r.stderr);
    expect(err).toContain('no API address to talk to');
    for (const way of ['`npx svc login --api-url URL`', 'SVC_API_URL=URL', '--api-url URL'])
      expect(err).toContain(way);
    expect(r.stdout).toBe('');
  });

  it('with SVC_API_KEY and no address: names the one way that works (a login would change nothing)', async () => {
    const r = await svc(['org'], {SVC_API_URL: '', SVC_API_KEY: newApiKeySecret()});
    expect(r.code).toBe(2);
    const err = flat(r.stderr);
    expect(err).toContain('SVC_API_KEY is set, but no address to send it to');
    expect(err).toContain('Set SVC_API_URL to the address the key belongs to');
    expect(err).not.toContain('svc login');
    expect(r.stdout).toBe('');
  });

  it('prints the stack on stderr with --debug, and the same exit code', async () => {
    const r = await svc(['org', '--debug']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('not logged in');
    expect(r.stderr).toMatch(/NotLoggedInError: not logged in/);
    expect(r.stderr).toMatch(STACK_LINE);
  });

  it('prints the stack with SVC_DEBUG=1 too', async () => {
    const r = await svc(['keys', 'list'], {SVC_DEBUG: '1'});
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(STACK_LINE);
  });

  it('keeps stdout a JSON document with --json --debug: the stack goes to stderr', async () => {
    const r = await svc(['webhooks', 'list', '--json', '--debug']);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toEqual({
      error: {code: 'not_logged_in', message: expect.stringContaining('not logged in')},
    });
    expect(r.stderr).toMatch(STACK_LINE);
  });

  it('answers a refused API address as a usage error (exit 2) with the way to pass one', async () => {
    const r = await svc(['org', '--api-url', 'http://api.svc.invalid', '--json']);
    expect(r.code).toBe(2);
    const body = JSON.parse(r.stdout);
    expect(body.error.code).toBe('invalid_api_url');
    expect(body.error.message).toMatch(/plain http:\/\/ is refused/);
    const human = await svc(['org', '--api-url', 'http://api.svc.invalid']);
    expect(human.code).toBe(2);
    expect(human.stderr).toMatch(/--api-url or SVC_API_URL/);
  });

  it('answers an unknown flag as a usage error, in JSON too', async () => {
    const r = await svc(['keys', 'list', '--nope', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error.code).toBe('usage');
  });

  it('names a missing required flag in svc words, as it is typed, with the way to see the flags', async () => {
    const r = await svc(['emulator', 'webhooks', 'create', '--url', 'http://127.0.0.1:9/hook']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing required flag --events');
    expect(r.stderr).toContain('--help');
    expect(r.stderr).not.toMatch(/The following error occurred|See more help with/);
    const json = await svc(['emulator', 'webhooks', 'create', '--url', 'http://127.0.0.1:9/hook', '--json']);
    expect(JSON.parse(json.stdout).error).toMatchObject({
      code: 'usage',
      message: 'missing required flag --events',
    });
  });

  it('explains a credentials file it cannot reach, with the path, instead of an internal error', async () => {
    // The config dir is a file: reading credentials.json under it fails (ENOTDIR), even for root.
    const notADir = join(configDir, 'not-a-dir');
    writeFileSync(notADir, '');
    const r = await svc(['org', '--json'], {SVC_CONFIG_DIR: notADir});
    expect(r.code).toBe(1);
    const body = JSON.parse(r.stdout);
    expect(body.error.code).toBe('credentials_damaged');
    expect(body.error.message).toBe(
      `the config dir ${notADir} is not a folder, so svc cannot keep credentials in it`,
    );
    const human = await svc(['org'], {SVC_CONFIG_DIR: notADir});
    expect(flat(human.stderr)).toContain('point SVC_CONFIG_DIR at a folder of your own');
    expect(human.stderr).not.toContain('internal error');
  });

  it('shows a bug as an internal error with the way to see where; --debug shows where', async () => {
    // A fault injected into the real process: reading the credentials file's owner throws, as a bug would.
    const fault = join(configDir, 'fault.mjs');
    writeFileSync(fault, "process.getuid = () => { throw new TypeError('injected fault'); };\n");
    writeFileSync(join(configDir, 'credentials.json'), '{"version":1,"credentials":{}}', {mode: 0o600});
    const env = {NODE_OPTIONS: `--import=${fault}`};
    // Spawned (both runs): the fault comes in through NODE_OPTIONS, which Node reads only when a process starts.
    const r = await svc(['org'], env, undefined, true);
    expect(r.code).toBe(1);
    expect(flat(r.stderr)).toContain('internal error: injected fault');
    expect(flat(r.stderr)).toContain('Run the command again with --debug');
    expect(r.stderr).not.toMatch(STACK_LINE);
    const debug = await svc(['org', '--json', '--debug'], env, undefined, true);
    expect(debug.code).toBe(1);
    expect(JSON.parse(debug.stdout)).toEqual({
      error: {code: 'internal', message: 'internal error: injected fault'},
    });
    expect(debug.stderr).toMatch(/TypeError: injected fault/);
    expect(debug.stderr).toMatch(STACK_LINE);
  });

  it('lets `svc login` take --debug (and still never a key as an argument)', async () => {
    const key = newApiKeySecret();
    const r = await svc(['login', '--debug', '--api-url', 'http://127.0.0.1:9'], {}, `${key}\n`);
    expect(r.stderr).not.toContain('takes no key as an argument');
    expect(r.stderr).not.toContain(key);
    expect(r.code).toBe(1);
  });
});
