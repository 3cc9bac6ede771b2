// One `svc listen` per relay across the emulator processes sharing a PostgreSQL: real CLI emulators on one schema
// (each with a data dir of its own, as the README's team setup has them), real `svc listen` runs pointed at one
// process or the other, and a receiver on loopback that tells the runs apart by path. Processes are the point here
// (holders named by pid, exit codes, a kill -9), so the emulators and the runs are spawned; the two emulators are
// started once for the file, each test's runs are stopped after it (a clean stop frees the relay), and only the last
// test starts one again, after killing it. Triggers run the built CLI in-process.
import {randomBytes} from 'node:crypto';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, afterEach, beforeAll, expect, it} from 'vitest';
import {describeNeeding, POSTGRES} from '../../helpers/requirements.js';
import {runCommand} from '../../helpers/run-cli.js';
import {type Receiver, startReceiver, waitFor} from '../delivery/helpers.js';
import {
  type EmulatorProcess,
  type Spawned,
  spawnCli,
  startEmulatorProcess,
  stopProcess,
} from '../delivery/processes.js';
import {freshSchema, type Schema} from './cluster.js';

type Emulator = EmulatorProcess & {dataDir: string};

describeNeeding([POSTGRES], 'one svc listen per relay across processes on one PostgreSQL', () => {
  const vaultKey = randomBytes(32).toString('base64');
  let schema: Schema;
  const dirs: string[] = [];
  const emulators: Emulator[] = [];
  let one: Emulator;
  let two: Emulator;
  let runs: Spawned[] = [];
  let receiver: Receiver | undefined;

  beforeAll(async () => {
    schema = await freshSchema();
    [one, two] = await Promise.all([emulator(), emulator()]);
  });

  afterEach(async () => {
    for (const p of runs.reverse()) await stopProcess(p);
    runs = [];
    await receiver?.close();
    receiver = undefined;
    await schema.admin.query('DELETE FROM relay_holders').catch(() => undefined);
  });

  afterAll(async () => {
    for (const e of emulators) await stopProcess(e);
    for (const dir of dirs) await rm(dir, {recursive: true, force: true});
    await schema?.drop();
  });

  async function emulator(dataDir?: string): Promise<Emulator> {
    const dir = dataDir ?? (await mkdtemp(join(tmpdir(), 'svc-relay-mp-')));
    if (!dataDir) dirs.push(dir);
    const e = await startEmulatorProcess(dir, ['--database-url', schema.url], {
      SVC_EMULATOR_VAULT_KEY: vaultKey,
    });
    emulators.push({...e, dataDir: dir});
    return {...e, dataDir: dir};
  }

  function listen(dataDir: string, path: string, extra: string[] = []): Spawned {
    const p = spawnCli([
      'listen',
      '--data-dir',
      dataDir,
      '--forward-to',
      `${receiver?.url}${path}`,
      ...extra,
    ]);
    runs.push(p);
    return p;
  }

  async function trigger(dataDir: string): Promise<string> {
    const r = await runCommand(['trigger', 'sandbox.ready', '--data-dir', dataDir, '--json']);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as {event: {id: string}}).event.id;
  }

  /** Where the delivery of one event arrived (the path of the run that forwarded it). */
  async function arrivedAt(eventId: string): Promise<string[]> {
    await (receiver as Receiver).receivedEvent(eventId);
    return (receiver?.requests ?? []).filter((q) => q.headers['svc-event-id'] === eventId).map((q) => q.url);
  }

  const ready = (p: Spawned) => p.stderrUntil('Ready!');

  /** A receiver, and a run holding the relay through the first emulator process. */
  async function aHolder() {
    receiver = await startReceiver();
    const first = listen(one.dataDir, '/first');
    await ready(first);
    return {first};
  }

  it('refuses a second run through another process, and every process sends the relay to the holder', {
    timeout: 120_000,
  }, async () => {
    const {first} = await aHolder();

    const second = listen(two.dataDir, '/second');
    expect(await second.exited).toBe(2);
    expect(second.stderr()).toContain(
      `already forwarded by another svc listen (process ${first.child.pid} on `,
    );
    expect(second.stderr()).toContain('--take-over');

    // Events recorded through either process reach the one run holding the relay, once each.
    for (const dir of [two.dataDir, one.dataDir, two.dataDir]) {
      expect(await arrivedAt(await trigger(dir))).toEqual(['/first']);
    }
    expect(first.stderr()).not.toMatch(/Lost the emulator/);
  });

  it('--take-over through another process: both runs say so, the old one stops, and the relay follows the new one', {
    timeout: 120_000,
  }, async () => {
    const {first} = await aHolder();
    expect(await arrivedAt(await trigger(one.dataDir))).toEqual(['/first']);

    const second = listen(two.dataDir, '/second', ['--take-over']);
    await ready(second);
    expect(second.stderr()).toContain(`Took the relay over from svc listen process ${first.child.pid} on `);
    expect(await first.exited).toBe(1);
    expect(first.stderr()).toContain(`svc listen process ${second.child.pid} on `);
    expect(first.stderr()).toContain('took this relay over');
    expect(first.stderr()).not.toMatch(/reconnecting/);

    for (const dir of [one.dataDir, two.dataDir]) {
      expect(await arrivedAt(await trigger(dir))).toEqual(['/second']);
    }
    // A later run through the first process is refused, naming the new holder.
    const third = listen(one.dataDir, '/third');
    expect(await third.exited).toBe(2);
    expect(third.stderr()).toContain(`(process ${second.child.pid} on `);
  });

  it('a holder whose emulator is killed lets the relay go when its lease runs out, and never takes it back', {
    timeout: 120_000,
  }, async () => {
    receiver = await startReceiver();
    const first = listen(two.dataDir, '/first');
    await ready(first);
    const killedDir = two.dataDir;
    await stopProcess(two, 'SIGKILL');
    await first.stderrUntil('Lost the emulator');

    // Refused while the killed process's lease lasts; a run through the other process gets the relay after it.
    let second: Spawned | undefined;
    for (let tries = 0; !second; tries++) {
      expect(tries, 'a run through the live process never got the relay').toBeLessThan(3);
      const attempt = listen(one.dataDir, '/second');
      const outcome = await Promise.race([
        attempt.exited,
        ready(attempt).then(
          () => 'ready' as const,
          () => 'never ready' as const,
        ),
      ]);
      if (outcome === 'ready') {
        second = attempt;
        break;
      }
      expect(outcome).toBe(2);
      expect(attempt.stderr()).toContain(`(process ${first.child.pid} on `);
      // Polled: the lease runs out on the database's clock, and nothing announces it.
      await waitFor(async () => {
        const r = await schema.admin.query<{out: boolean}>(
          'SELECT bool_and(expires_at <= clock_timestamp()) AS out FROM relay_holders',
        );
        return r.rows[0]?.out !== false;
      }, 30_000);
    }
    const holder = second as Spawned;
    expect(await arrivedAt(await trigger(one.dataDir))).toEqual(['/second']);

    // The killed process comes back (a start under test: the same data dir, after a kill -9): the old run
    // reconnects, is refused and stops instead of taking the relay.
    two = await emulator(killedDir);
    expect(await first.exited).toBe(2);
    expect(first.stderr()).toContain(
      `already forwarded by another svc listen (process ${holder.child.pid} on `,
    );
    expect(await arrivedAt(await trigger(two.dataDir))).toEqual(['/second']);

    // A clean stop frees the relay at once: the row goes, rather than running out.
    await stopProcess(holder, 'SIGINT');
    // Polled: the row is deleted by the emulator process, which tells no one outside the database.
    await waitFor(async () => {
      const r = await schema.admin.query<{n: number}>('SELECT count(*)::int AS n FROM relay_holders');
      return r.rows[0]?.n === 0;
    });
  });
});
