// svc login / logout / auth status as a user runs them (the built CLI, in-process unless a test says why not): a real
// loopback API, a private config dir.
import {spawn} from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import {createServer} from 'node:http';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest';
import {newApiKeySecret} from '../../src/emulator/ids.js';
import {MockApi} from '../helpers/msw-handlers.js';
import {type LoopbackServer, serveHandlers} from '../helpers/msw-server.js';
import {BIN, type CliResult, runCli, runCommand} from '../helpers/run-cli.js';

let mock: MockApi;
let api: LoopbackServer;
let configDir: string;
let secret: string;
const outputs: CliResult[] = [];

beforeAll(async () => {
  mock = new MockApi();
  api = await serveHandlers(mock.handlers(), {host: '::'});
});
afterAll(() => api.close());
beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'svc-cli-auth-'));
  secret = mock.mintKey({name: 'e2e', expires: '30'}).secret;
});
afterEach(() => {
  // Whatever a test did, the key must not have been printed anywhere.
  for (const r of outputs.splice(0)) {
    expect(r.stdout).not.toContain(secret);
    expect(r.stderr).not.toContain(secret);
  }
  rmSync(configDir, {recursive: true, force: true});
});

async function svc(
  args: string[],
  options: {env?: NodeJS.ProcessEnv; input?: string; spawn?: boolean} = {},
): Promise<CliResult> {
  const run = options.spawn ? runCli : runCommand;
  const r = await run(args, {env: {SVC_CONFIG_DIR: configDir, ...options.env}, input: options.input});
  outputs.push(r);
  return r;
}
/** oclif wraps errors to the terminal width behind " ›   ": join them back into one line. */
const flat = (text: string) => text.replace(/\n\s*›\s*/g, ' ').replace(/[ \t]+/g, ' ');
const credentialsPath = () => join(configDir, 'credentials.json');

describe('svc login', {timeout: 90_000}, () => {
  it('reads the key from a pipe, checks it, and stores it owner-only for that URL', async () => {
    const r = await svc(['login', '--api-url', `${api.url}/`], {input: `${secret}\n`});
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(flat(r.stderr)).toContain(
      `Logged in to Mock Org (${mock.orgId}) at ${api.url}; key stored in file ${credentialsPath()}`,
    );
    const stored = JSON.parse(readFileSync(credentialsPath(), 'utf8'));
    expect(stored.credentials[api.url]).toMatchObject({store: 'file', api_key: secret, org_id: mock.orgId});
    if (process.platform !== 'win32') {
      expect(statSync(credentialsPath()).mode & 0o777).toBe(0o600);
      expect(statSync(configDir).mode & 0o777).toBe(0o700);
    }
  });

  it('prints a JSON result with --json, and only the key prefix', async () => {
    const r = await svc(['login', '--json', '--api-url', api.url], {input: secret});
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      api_url: api.url,
      org: {id: mock.orgId, name: 'Mock Org'},
      store: 'file',
      key_prefix: secret.slice(0, 8),
    });
  });

  it('at a prompt, given nothing, says nothing was pasted and what to paste: no instructions for pipes', async () => {
    // `script` gives the CLI a pseudo-terminal, as a person's shell would.
    // Spawned: the prompt is under test, and only a process of its own has a terminal.
    const child = spawn(
      'script',
      ['-qec', `"${process.execPath}" "${BIN}" login --api-url ${api.url}`, '/dev/null'],
      {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          NO_COLOR: '1',
          TERM: 'dumb',
          SVC_CONFIG_DIR: configDir,
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let answered = false;
    child.stdout.on('data', (d) => {
      out += d;
      if (!answered && out.includes('Paste the API key')) {
        answered = true;
        child.stdin.write('\r');
      }
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    const said = out.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
    expect(code).toBe(2);
    expect(said).toContain('Error: no key was pasted, so nothing is stored');
    expect(said).toContain('Try this: Run it again and paste the key (svc_ and 40 letters and digits)');
    expect(said).not.toMatch(/standard input|SVC_KEY/);
    expect(existsSync(credentialsPath())).toBe(false);
  });

  it.each([
    [['login', 'SECRET']],
    [['login', '--key', 'SECRET']],
    [['login', '--token=SECRET']],
    [['login', '--api-url', 'http://127.0.0.1:4010', '--api-key', 'SECRET']],
  ])('refuses the key on the command line (%j) and says how to pipe it', async (args) => {
    const r = await svc(
      args.map((a) => a.replace('SECRET', secret)),
      {input: ''},
    );
    expect(r.code).toBe(2);
    // One line for the statement, one for nothing else: no variable the docs never name.
    expect(r.stderr).toBe(
      'Error: svc login takes no key as an argument; pass the key on standard input (`npx svc login < key.txt`), or run `npx svc login` at a terminal and paste it when asked\n',
    );
    expect(existsSync(credentialsPath())).toBe(false);
  });

  it('refuses while SVC_API_KEY is set, and says why', async () => {
    const r = await svc(['login', '--api-url', api.url], {input: secret, env: {SVC_API_KEY: secret}});
    expect(r.code).toBe(1);
    expect(flat(r.stderr)).toMatch(/SVC_API_KEY is set, and it wins over any stored key/);
    expect(existsSync(credentialsPath())).toBe(false);
  });

  it('stores nothing when the key has the wrong shape or the API rejects it', async () => {
    const wrongShape = await svc(['login', '--api-url', api.url], {input: 'sk_live_123'});
    expect(wrongShape.code).toBe(2);
    expect(flat(wrongShape.stderr)).toMatch(/does not look like an svc API key/);
    expect(wrongShape.stderr).not.toContain('sk_live_123');

    const unknown = newApiKeySecret();
    const rejected = await svc(['login', '--json', '--api-url', api.url], {input: unknown});
    expect(rejected.code).toBe(4);
    expect(JSON.parse(rejected.stdout).error.code).toBe('unauthorized');
    expect(rejected.stdout + rejected.stderr).not.toContain(unknown);
    expect(existsSync(credentialsPath())).toBe(false);
  });

  it('refuses plain http to anything but this machine', async () => {
    const r = await svc(['login', '--api-url', 'http://api.svc.example'], {input: secret});
    expect(r.code).toBe(2);
    expect(flat(r.stderr)).toMatch(/plain http:\/\/ is refused for api\.svc\.example/);
    expect(existsSync(credentialsPath())).toBe(false);
  });

  it('accepts plain http to localhost, 127.0.0.1 and [::1]', async () => {
    const port = new URL(api.url).port;
    for (const host of ['localhost', '127.0.0.1', '[::1]']) {
      const r = await svc(['login', '--api-url', `http://${host}:${port}`], {input: secret});
      expect(r.code, r.stderr).toBe(0);
    }
    const stored = JSON.parse(readFileSync(credentialsPath(), 'utf8'));
    expect(Object.keys(stored.credentials).sort()).toEqual(
      [`http://127.0.0.1:${port}`, `http://[::1]:${port}`, `http://localhost:${port}`].sort(),
    );
  });

  // The OS keychain on Linux is the Secret Service, reached over D-Bus: with the session bus pointed nowhere it
  // cannot answer, whatever the machine has. Elsewhere (macOS, Windows) the keychain needs no bus to refuse.
  it.runIf(process.platform === 'linux')(
    'with --keychain and no usable keychain: a clear error, and no key in any file',
    async () => {
      // Spawned: the keychain (native code) reads the process's own environment, not process.env as lent.
      const r = await svc(['login', '--keychain', '--api-url', api.url], {
        input: secret,
        env: {DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/svc-test-bus'},
        spawn: true,
      });
      expect(r.code, r.stderr).toBe(1);
      expect(flat(r.stderr)).toMatch(
        /the OS keychain is not available here \(.+\); use the file store \(default\) instead/s,
      );
      expect(existsSync(credentialsPath())).toBe(false);
    },
  );
});

describe('svc auth status and svc logout', {timeout: 90_000}, () => {
  it('shows the source, URL, org and only the key prefix', async () => {
    await svc(['login', '--api-url', api.url], {input: secret});
    const fromFile = await svc(['auth', 'status', '--json', '--api-url', api.url]);
    expect(fromFile.code).toBe(0);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({
      source: 'file',
      api_url: api.url,
      key_prefix: secret.slice(0, 8),
      org: {id: mock.orgId, name: 'Mock Org'},
    });
    const fromEnv = await svc(['auth', 'status'], {env: {SVC_API_KEY: secret, SVC_API_URL: api.url}});
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stdout).toMatch(/Logged in to Mock Org/);
    expect(fromEnv.stdout).toMatch(new RegExp(`Key: +${secret.slice(0, 8)}… from SVC_API_KEY`));
  });

  it('warns on one unwrapped line, without prefixes, when it tightens a credentials file others could read', async () => {
    await svc(['login', '--api-url', api.url], {input: secret});
    chmodSync(credentialsPath(), 0o644);
    const r = await svc(['auth', 'status', '--api-url', api.url]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `Warning: ${credentialsPath()} was readable by other users (mode 644); changed it to 600\n`,
    );
  });

  it('with a stored key that was revoked, says which key, from where, for which address, and how to replace it', async () => {
    const key = mock.mintKey({name: 'soon-revoked', expires: '30'});
    await svc(['login', '--api-url', api.url], {input: key.secret});
    mock.revokeKey(key.id);
    const r = await svc(['auth', 'status', '--api-url', api.url]);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(
      `Error: the key ${key.secret.slice(0, 8)}… from the credentials file is rejected by ${api.url} (401: revoked, expired or mistyped)\n` +
        `Try this: Log in with a key that works: \`npx svc login --api-url ${api.url}\`\n`,
    );
    const json = await svc(['auth', 'status', '--api-url', api.url, '--json']);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout).error).toMatchObject({code: 'unauthorized'});
    expect(JSON.parse(json.stdout).error.message).toContain(
      `${key.secret.slice(0, 8)}… from the credentials file`,
    );
    for (const out of [r, json]) expect(out.stdout + out.stderr).not.toContain(key.secret);
  });

  it('after `svc login --api-url URL`, commands given no address use URL, and only while logged in', async () => {
    await svc(['login', '--api-url', api.url], {input: secret});
    const org = await svc(['org', '--json']);
    expect(org.code).toBe(0);
    expect(JSON.parse(org.stdout)).toMatchObject({id: mock.orgId});
    const status = await svc(['auth', 'status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({api_url: api.url, source: 'file'});
    const out = await svc(['logout']);
    expect(flat(out.stderr)).toContain(`Forgot the key stored for ${api.url}.`);
    const after = await svc(['org', '--json']);
    // No login left and no default address in this build: nothing is sent, and the way to name one is usage.
    expect(after.code).toBe(2);
    expect(JSON.parse(after.stdout).error).toMatchObject({
      code: 'no_api_url',
      message: 'no API address to talk to: svc has no default address in this build, and none was given',
    });
  });

  it('a stored key that was revoked: exit 4 and the login command for that URL', async () => {
    await svc(['login', '--api-url', api.url], {input: secret});
    mock.revokeKey(mock.state.keys.find((k) => k.record.prefix === secret.slice(0, 8))!.record.id);
    const r = await svc(['keys', 'list', '--api-url', api.url]);
    expect(r.code).toBe(4);
    // The next step is said once, in the message, for that URL (after the line naming the API read).
    expect(r.stderr).toBe(
      `Reading ${api.url} (from --api-url).\nError: the API key was rejected (revoked or expired?). Run \`npx svc login --api-url ${api.url}\` with a new key\n`,
    );
  });

  it('logout forgets the key, says it is not revoked, and later commands are not logged in', async () => {
    await svc(['login', '--api-url', api.url], {input: secret});
    const out = await svc(['logout', '--api-url', api.url]);
    expect(out.code).toBe(0);
    expect(flat(out.stderr)).toContain(`Forgot the key stored for ${api.url}.`);
    expect(flat(out.stderr)).toMatch(/does not revoke the key: keys are revoked on the account page/);
    expect(readFileSync(credentialsPath(), 'utf8')).not.toContain(secret);
    const after = await svc(['org', '--json', '--api-url', api.url]);
    expect(after.code).toBe(4);
    expect(JSON.parse(after.stdout)).toEqual({
      error: {
        code: 'not_logged_in',
        message: `not logged in to ${api.url}; run \`npx svc login --api-url ${api.url}\` or set SVC_API_KEY`,
      },
    });
  });
});

describe('a damaged credentials path', {timeout: 90_000}, () => {
  it('is explained, not shown as EISDIR, and `svc logout` removes it so a login works again', async () => {
    mkdirSync(join(credentialsPath(), 'stray'), {recursive: true});
    const status = await svc(['org', '--api-url', api.url]);
    expect(status.code).toBe(1);
    expect(flat(status.stderr)).toContain(`the credentials path ${credentialsPath()} is a folder`);
    expect(flat(status.stderr)).toContain('Run `npx svc logout` to remove it, then `npx svc login` again');
    expect(status.stderr).not.toContain('EISDIR');
    const out = await svc(['logout']);
    expect(out.code).toBe(0);
    expect(flat(out.stderr)).toContain(
      `The credentials path ${credentialsPath()} held a folder that no key could be read from; removed it`,
    );
    expect(existsSync(credentialsPath())).toBe(false);
    expect((await svc(['login', '--api-url', api.url], {input: secret})).code).toBe(0);
  });

  it('`svc logout` removes a damaged file too, and says so in --json', async () => {
    writeFileSync(credentialsPath(), '{"version":1,"credentials":', {mode: 0o600});
    const out = await svc(['logout', '--json']);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      removed: true,
      repaired: {path: credentialsPath(), was: 'file'},
    });
    expect(existsSync(credentialsPath())).toBe(false);
  });
});

describe('a stored key is sent only to the URL it was stored for', {timeout: 90_000}, () => {
  let recorder: {url: string; seen: string[]; close: () => Promise<void>};

  beforeAll(async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.writeHead(200, {'content-type': 'application/json'});
      res.end(
        JSON.stringify({id: 'org_x', name: 'Impostor', created_at: new Date().toISOString(), data: []}),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    recorder = {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      seen,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  });
  afterAll(() => recorder.close());

  it('never sends it to another address, whichever way that address is given', async () => {
    await svc(['login', '--api-url', api.url], {input: secret});
    const attempts = [
      await svc(['org', '--api-url', recorder.url]),
      await svc(['keys', 'list', '--json'], {env: {SVC_API_URL: recorder.url}}),
      await svc(['webhooks', 'list', '--api-url', `${recorder.url}/`]),
      await svc(['auth', 'status', '--json', '--api-url', recorder.url]),
      // Same port, other spelling of the host: still another address.
      await svc(['org', '--api-url', api.url.replace('127.0.0.1', 'localhost')]),
    ];
    for (const r of attempts) {
      expect(r.code).toBe(4);
      expect(flat(r.stdout + r.stderr)).toMatch(
        /not logged in to http:\/\/(127\.0\.0\.1|localhost):\d+; run `npx svc login --api-url/,
      );
    }
    expect(recorder.seen.filter((line) => line.includes(secret))).toEqual([]);
    expect(recorder.seen).toEqual([]);
  });

  it('does not follow a redirect to another address', async () => {
    const redirector = createServer((req, res) => {
      res.writeHead(307, {location: `${recorder.url}${req.url}`});
      res.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
    try {
      const r = await svc(['org', '--json'], {env: {SVC_API_KEY: secret, SVC_API_URL: url}});
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout).error.code).toBe('unexpected_redirect');
      expect(recorder.seen.filter((line) => line.includes(secret))).toEqual([]);
    } finally {
      await new Promise((resolve) => redirector.close(resolve));
    }
  });
});
