// `svc trigger` and `svc emulator sandboxes` as a user runs them (the built CLI, in-process) against a real emulator.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {runCommand} from '../helpers/run-cli.js';

let dataDir: string;
let emulator: RunningEmulator | undefined;
const cli = (args: string[]) => runCommand([...args, '--data-dir', dataDir]);

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-trigger-'));
  // What `svc emulator start --data-dir …` runs (its start is not under test here), in this process: the
  // commands find it through the runtime file in its data dir.
  emulator = await startEmulator({port: 0, dataDir, inMemory: true});
});
afterAll(async () => {
  await emulator?.stop();
  await rm(dataDir, {recursive: true, force: true});
});

describe('svc trigger', () => {
  it('emits an event for a new sandbox and says so on stdout', async () => {
    const r = await cli(['trigger', 'sandbox.ready']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^Triggered sandbox\.ready \[evt_[0-9A-Za-z]{24}\] for sandbox-\w+ \(sbx_[0-9A-Za-z]{24}, running\); 0 deliveries queued in the emulator at http:\/\/127\.0\.0\.1:\d+\n$/,
    );
  });

  it('moves a named sandbox and carries last_error in the event (--json)', async () => {
    const created = await cli(['emulator', 'sandboxes', 'create', '--name', 'ci-box', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout) as {sandbox: {id: string}}).sandbox.id;
    const r = await cli([
      'trigger',
      'sandbox.stopped',
      '--sandbox',
      id,
      '--last-error',
      'the VM ran out of memory',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const move = JSON.parse(r.stdout) as {
      event: {type: string; data: {sandbox: Record<string, unknown>}};
      sandbox: {status: string};
    };
    expect(move.event.type).toBe('sandbox.stopped');
    expect(move.event.data.sandbox).toEqual({
      id,
      name: 'ci-box',
      status: 'stopped',
      desired_state: 'running',
      last_error: 'the VM ran out of memory',
    });
    const listed = await cli(['emulator', 'sandboxes', 'list', '--json']);
    expect((JSON.parse(listed.stdout) as {data: {id: string; status: string}[]}).data).toContainEqual(
      expect.objectContaining({id, status: 'stopped'}),
    );
  });

  it('answers bad input with usage errors and a stopped sandbox action with a conflict', async () => {
    const type = await cli(['trigger', 'sandbox.exploded']);
    expect(type.code).toBe(2);
    const badId = await cli(['trigger', 'sandbox.ready', '--sandbox', 'nope', '--json']);
    expect(badId.code).toBe(2);
    expect(JSON.parse(badId.stdout)).toMatchObject({error: {code: 'usage'}});
    const unknown = await cli(['trigger', 'sandbox.ready', '--sandbox', `sbx_${'a'.repeat(24)}`, '--json']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout)).toMatchObject({error: {code: 'not_found'}});

    const created = await cli(['emulator', 'sandboxes', 'create', '--json']);
    const id = (JSON.parse(created.stdout) as {sandbox: {id: string}}).sandbox.id;
    const wake = await cli(['emulator', 'sandboxes', 'action', id, 'wake']);
    expect(wake.code).toBe(1);
    expect(wake.stderr).toMatch(/cannot wake a sandbox that is running/);
    const standby = await cli(['emulator', 'sandboxes', 'action', id, 'standby', '--json']);
    expect(JSON.parse(standby.stdout)).toMatchObject({event: null, sandbox: {status: 'standby'}});
  });

  it('tells how to start an emulator when none runs for the data dir', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'svc-none-'));
    try {
      const r = await runCommand(['trigger', 'sandbox.ready', '--data-dir', empty]);
      // Exit 3, as `svc emulator status` exits when none runs.
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/no emulator is running/);
      expect(r.stderr).toMatch(/svc emulator start/);
    } finally {
      await rm(empty, {recursive: true, force: true});
    }
  });
});
