// The conventions people bring from gh and the Stripe CLI, through the built CLI: suggestions for mistyped
// commands (spelled with spaces), `svc version`, filters that say why a list is empty, logout's way out.
import {spawn} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {OrgControl} from '../../src/testing/index.js';
import {BIN, runCli, runCommand} from '../helpers/run-cli.js';

const flat = (text: string) => text.replace(/\n\s*›\s*/g, ' ').replace(/[ \t]+/g, ' ');

// One emulator for the file, as on a machine offline: DNS answers nothing, so a new endpoint's host cannot be
// resolved now (the endpoint warnings below), and local endpoints are refused (the ways out below). Each describe
// keeps to its own org: a fresh one for the reads, the emulator's default one for `svc emulator webhooks create`.
let emu: RunningEmulator;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-conventions-emu-'));
  const offline = async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND'), {code: 'ENOTFOUND'});
  };
  emu = await startEmulator({port: 0, inMemory: true, dataDir, clock: 'manual', lookup: offline});
});
afterAll(async () => {
  await emu?.stop();
  rmSync(dataDir, {recursive: true, force: true});
});

describe('mistyped commands', {timeout: 60_000}, () => {
  it.each([
    ['orgs', 'svc org'],
    ['webhook list', 'svc webhooks list'],
    ['webhook', 'svc webhooks'],
    ['emulator kyes create', 'svc emulator keys create'],
  ])('`svc %s` suggests `%s`, with spaces, never the internal colon', async (typed, suggestion) => {
    const r = await runCommand(typed.split(' '));
    expect(r.code).toBe(2);
    expect(flat(r.stderr)).toContain(`command ${typed} not found`);
    // Spelled the way svc runs from here (`npx svc` in the project folder).
    expect(r.stderr).toMatch(new RegExp(`Did you mean \`(npx )?${suggestion}\`\\?`));
    expect(r.stderr).not.toContain('›');
    expect(r.stderr).not.toMatch(/[a-z]:[a-z]/);
  });

  it('suggests nothing for a word that is no command at all', async () => {
    const r = await runCommand(['zzzzzzzz']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('command zzzzzzzz not found');
    expect(r.stderr).toMatch(/Run `(npx )?svc help` for the list of commands/);
    expect(r.stderr).not.toContain('Did you mean');
  });

  it('asks at a terminal, through the not-found plugin', async () => {
    // Spawned: the question needs a terminal, which only a process of its own can have; `script` gives the CLI a
    // pseudo-terminal, as a person's shell would.
    const child = spawn('script', ['-qec', `"${process.execPath}" "${BIN}" orgs`, '/dev/null'], {
      env: {PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', TERM: 'dumb'},
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    const asked = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        if (/Did you mean .*org/.test(out.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ''))) resolve();
      });
      child.on('close', () => reject(new Error(`no question asked:\n${out}`)));
    });
    try {
      await asked;
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('svc version', () => {
  it('prints the same line as --version, and a JSON document with --json', async () => {
    const [line, dashed, json] = await Promise.all([
      runCommand(['version']),
      // Spawned: bin/run.js answers a lone --version itself, before the CLI that runCommand runs is loaded.
      runCli(['--version']),
      runCommand(['version', '--json']),
    ]);
    expect(line.code).toBe(0);
    expect(line.stdout).toBe(dashed.stdout);
    expect(line.stdout).toMatch(/^svc\/\d+\.\d+\.\d+ \S+-\S+ node-v\d+/);
    expect(JSON.parse(json.stdout)).toEqual({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      platform: process.platform,
      arch: process.arch,
      node: process.versions.node,
    });
  });
});

describe('against an emulator', {timeout: 60_000}, () => {
  let env: NodeJS.ProcessEnv;
  let hookId: string;
  let config: string;
  beforeAll(async () => {
    const org = new OrgControl(emu.control, (await emu.control.createOrg({name: 'conventions'})).id);
    const key = await org.createKey({name: 'e2e'});
    // A host that cannot be resolved offline: its one delivery never succeeds.
    hookId = (await org.createWebhook({url: 'https://hooks.example.com/hook', events: ['sandbox.ready']})).id;
    await org.trigger({type: 'sandbox.ready'});
    config = mkdtempSync(join(tmpdir(), 'svc-conventions-'));
    env = {SVC_API_URL: emu.apiUrl, SVC_API_KEY: key.secret, SVC_CONFIG_DIR: config};
  });
  afterAll(() => rmSync(config, {recursive: true, force: true}));

  it('`webhooks deliveries --status` with no match says no delivery matches, and how many there are', async () => {
    const r = await runCommand(['webhooks', 'deliveries', hookId, '--status', 'succeeded'], {env});
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('No delivery matches --status succeeded (1 delivery in all)');
    expect(r.stdout).not.toContain('No deliveries yet');
  });

  it('`logout` against the emulator says where its account page is', async () => {
    const login = await runCommand(['login', '--api-url', emu.apiUrl], {
      env: {SVC_CONFIG_DIR: config},
      input: `${env.SVC_API_KEY}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    const r = await runCommand(['logout', '--api-url', emu.apiUrl], {env: {SVC_CONFIG_DIR: config}});
    expect(r.code).toBe(0);
    expect(flat(r.stderr)).toContain(`keys are revoked on the account page, ${emu.accountUrl}`);
  });
});

describe('svc emulator webhooks create', {timeout: 60_000}, () => {
  it("prints the emulator's warnings on stderr, with --json too, and keeps stdout for the result", async () => {
    // Accepted with a warning, as on a machine offline.
    const url = 'https://hooks.offline-receiver.dev/svc';
    const args = [
      'emulator',
      'webhooks',
      'create',
      '--url',
      url,
      '--events',
      'sandbox.ready',
      '--data-dir',
      dataDir,
    ];
    const plain = await runCommand(args);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout.trim()).toMatch(/^whsec_\S+$/);
    expect(flat(plain.stderr)).toMatch(/Warning: .*hooks\.offline-receiver\.dev/);
    expect(plain.stderr).toMatch(/Then see its deliveries: .* webhooks deliveries we_\w{24}/);

    const json = await runCommand([...args, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).warnings).toEqual([expect.stringContaining('hooks.offline-receiver.dev')]);
    expect(flat(json.stderr)).toMatch(/Warning: .*hooks\.offline-receiver\.dev/);
  });

  it('names both ways out when a local URL is refused', async () => {
    const r = await runCommand([
      'emulator',
      'webhooks',
      'create',
      '--url',
      'http://localhost:3000/hook',
      '--events',
      'sandbox.ready',
      '--data-dir',
      dataDir,
    ]);
    expect(r.code).not.toBe(0);
    const text = flat(r.stderr);
    expect(text).toContain(`listen --forward-to http://localhost:3000/hook --data-dir ${dataDir}`);
    // The restart keeps the port the emulator listens on.
    expect(text).toMatch(/emulator start --allow-local-endpoints --port \d+ --data-dir /);
    expect(text).toContain(`--data-dir ${dataDir}`);
    // The reason once, then the two steps, each whole on its own line.
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe('Error: url must use https://');
    expect(lines.slice(1).map((l) => l.replace(/:.*/, ''))).toEqual(['Try this', 'Try this']);
  });

  const create = (url: string) =>
    runCommand([
      'emulator',
      'webhooks',
      'create',
      '--url',
      url,
      '--events',
      'sandbox.ready',
      '--data-dir',
      dataDir,
    ]);

  it('tells http:// to a remote host to use https://, without the local relay', async () => {
    const r = await create('http://hooks.example.com/svc');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'Error: url must use https://\nTry this: Use https:// (as the service does): --url https://hooks.example.com/svc\n',
    );
  });

  it('tells a private address to let the emulator post to private addresses, without the local relay', async () => {
    const r = await create('https://10.1.2.3/svc');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'Error: url must point at a public address, not a private, loopback or reserved one\n',
    );
    expect(r.stderr).toContain('Try this: Let the emulator post to private addresses: stop it');
    expect(r.stderr).not.toContain('listen');
  });

  it('refuses an empty host and a special-use domain with the reason', async () => {
    const empty = await create('https:///x');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/^Error: url has no host/);
    const special = await create('https://hooks.test/x');
    expect(special.stderr).toMatch(/^Error: url host hooks\.test is in \.test, a special-use domain/);
  });
});
