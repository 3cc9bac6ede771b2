// The in-process runner answers what the spawned CLI answers: the same exit code and the same bytes on stdout
// and stderr, for a sample of commands across reads, JSON, usage errors, stdin, hints and control commands.
// The tests that only check output rely on it (test/helpers/run-cli.ts: runCommand).
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {type CliResult, runCli, runCommand} from '../helpers/run-cli.js';

let emu: RunningEmulator;
let env: NodeJS.ProcessEnv;
let hookId: string;
let deliveryId: string;
let secret: string;

beforeAll(async () => {
  // A manual clock far from this machine's, on a whole second: the CLI then reads every relative time from the
  // emulator's Date header (it would take its own clock for one within 2 s of its own), so both runs agree.
  emu = await startEmulator({
    port: 0,
    inMemory: true,
    clock: 'manual',
    clockStart: new Date('2031-05-01T12:00:00.000Z'),
    allowLocalEndpoints: true,
  });
  secret = (await emu.control.createKey({name: 'laptop', created_by: 'ada@example.com'})).secret;
  hookId = (await emu.control.createWebhook({url: 'http://127.0.0.1:9/hook', events: ['sandbox.ready']})).id;
  const triggered = await emu.control.trigger({type: 'sandbox.ready'});
  // Its first attempt recorded (to a closed port): nothing changes between the two runs of a command.
  deliveryId = (await emu.control.waitForDelivery({event_id: triggered.event?.id ?? '', attempts: 1}))
    .delivery.id;
  const home = mkdtempSync(join(tmpdir(), 'svc-in-process-'));
  env = {
    HOME: home,
    SVC_CONFIG_DIR: join(home, 'config'),
    SVC_DATA_DIR: join(home, 'data'),
    SVC_EMULATOR_DATA_DIR: emu.dataDir,
    SVC_API_KEY: secret,
    SVC_API_URL: emu.apiUrl,
  };
});
afterAll(() => emu?.stop());

const SAMPLE: {name: string; argv: () => string[]; env?: () => NodeJS.ProcessEnv; input?: string}[] = [
  {name: 'the root help', argv: () => ['--help']},
  {name: "a topic's help", argv: () => ['webhooks', '--help']},
  {name: 'a table for people', argv: () => ['keys', 'list']},
  {name: 'JSON for scripts', argv: () => ['webhooks', 'list', '--json']},
  {name: 'the org', argv: () => ['org']},
  {name: "an endpoint's deliveries", argv: () => ['webhooks', 'deliveries', hookId]},
  {name: 'a delivery in detail', argv: () => ['webhooks', 'deliveries', 'show', deliveryId]},
  {name: 'an unknown command (exit 2, a hint naming svc)', argv: () => ['kyes', 'list']},
  {name: 'a misspelt flag', argv: () => ['keys', 'list', '--jsn']},
  {name: 'an error as JSON', argv: () => ['webhooks', 'deliveries', 'whep_nothere', '--json']},
  {
    name: 'a rejected key (exit 4)',
    argv: () => ['keys', 'list'],
    env: () => ({...env, SVC_API_KEY: 'svc_nope'}),
  },
  {name: 'the emulator status (exit 3 when none runs)', argv: () => ['emulator', 'status', '--json']},
  {
    name: 'no emulator for the data dir',
    argv: () => ['emulator', 'status'],
    env: () => ({...env, SVC_EMULATOR_DATA_DIR: join(env.HOME as string, 'none')}),
  },
  {name: "an event type's schema", argv: () => ['events', 'schema', 'sandbox.ready']},
  {name: 'a key on stdin', argv: () => ['login', '--api-url', emu.apiUrl], input: 'svc_short\n'},
  {
    name: 'colour when forced',
    argv: () => ['keys', 'list'],
    env: () => ({...env, NO_COLOR: '', FORCE_COLOR: '1'}),
  },
];

describe('runCommand answers as the spawned CLI does', {timeout: 60_000}, () => {
  it.each(SAMPLE)('$name', async (c) => {
    const options = {env: c.env?.() ?? env, input: c.input};
    const spawned = await runCli(c.argv(), options);
    const inProcess = await runCommand(c.argv(), options);
    const same = (r: CliResult) => ({code: r.code, stdout: r.stdout, stderr: r.stderr});
    expect(same(inProcess)).toEqual(same(spawned));
  });

  it('gives the test process back as it was: environment, exit code, streams and stdin', async () => {
    const before = {
      env: process.env,
      exitCode: process.exitCode,
      write: process.stdout.write,
      stdin: process.stdin,
    };
    const r = await runCommand(['keys', 'list', '--jsn'], {env});
    expect(r.code).toBe(2);
    expect({
      env: process.env,
      exitCode: process.exitCode,
      write: process.stdout.write,
      stdin: process.stdin,
    }).toEqual(before);
    expect(process.env).toBe(before.env);
  });

  it('runs commands one at a time when called together, each with its own environment', async () => {
    const runs = await Promise.all([
      runCommand(['keys', 'list', '--json'], {env}),
      runCommand(['keys', 'list', '--json'], {env: {...env, SVC_API_KEY: 'svc_nope'}}),
      runCommand(['keys', 'list', '--json'], {env}),
    ]);
    expect(runs.map((r) => r.code)).toEqual([0, 4, 0]);
    expect(JSON.parse(runs[0]?.stdout ?? '')).toEqual(JSON.parse(runs[2]?.stdout ?? ''));
  });
});
