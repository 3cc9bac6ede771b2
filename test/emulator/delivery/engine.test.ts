// The delivery engine's parts, each on its own: the word to other processes (one notification in flight at a
// time), the retention chore's pace, the time signatures carry; and the engine built from its narrow
// dependencies alone, before any context exists.
import {describe, expect, it} from 'vitest';
import {RETENTION_MS} from '../../../src/definitions.js';
import {manualClock, type Timers} from '../../../src/emulator/clock.js';
import type {Database} from '../../../src/emulator/db/database.js';
import {
  coalesced,
  createDeliveryEngine,
  PURGE_EVERY_MS,
  RetentionChore,
  signatureNow,
} from '../../../src/emulator/delivery/engine.js';
import {createVault} from '../../../src/emulator/vault.js';

const START = new Date('2031-01-01T00:00:00.000Z');

describe('coalesced', () => {
  it('keeps one call in flight, and makes the calls that came meanwhile one more once it is out', async () => {
    const releases: (() => void)[] = [];
    let sent = 0;
    const run = coalesced(
      () =>
        new Promise<void>((resolve) => {
          sent += 1;
          releases.push(resolve);
        }),
      () => undefined,
    );
    run();
    run();
    run();
    expect(sent).toBe(1);
    releases.shift()?.();
    await new Promise((r) => setImmediate(r));
    expect(sent).toBe(2);
    releases.shift()?.();
    await new Promise((r) => setImmediate(r));
    expect(sent).toBe(2);
  });

  it('reports a failed call and goes on', async () => {
    const failures: string[] = [];
    const run = coalesced(
      () => Promise.reject(new Error('down')),
      (err) => failures.push(err.message),
    );
    run();
    await new Promise((r) => setImmediate(r));
    run();
    await new Promise((r) => setImmediate(r));
    expect(failures).toEqual(['down', 'down']);
  });
});

describe('RetentionChore', () => {
  function chore() {
    const purged: Date[] = [];
    const other: Date[] = [];
    const retention = new RetentionChore(
      async (before) => {
        purged.push(before);
      },
      async (now) => {
        other.push(now);
        return new Date(now.getTime() + 5_000);
      },
    );
    return {retention, purged, other};
  }

  it('purges what is past retention at most once per interval of clock time, after the other chores', async () => {
    const {retention, purged, other} = chore();
    expect(await retention.run(START)).toEqual(new Date(START.getTime() + 5_000));
    expect(purged).toEqual([new Date(START.getTime() - RETENTION_MS)]);
    await retention.run(new Date(START.getTime() + PURGE_EVERY_MS - 1));
    expect(purged).toHaveLength(1);
    await retention.run(new Date(START.getTime() + PURGE_EVERY_MS));
    expect(purged).toHaveLength(2);
    expect(other).toHaveLength(3);
  });

  it('purges again at once when a clock moved backwards, or an org clock moved', async () => {
    const {retention, purged} = chore();
    await retention.run(START);
    await retention.run(new Date(START.getTime() - 1_000));
    expect(purged).toHaveLength(2);
    retention.clockMoved();
    await retention.run(new Date(START.getTime() - 1_000));
    expect(purged).toHaveLength(3);
  });
});

describe('signatureNow', () => {
  const timers: Timers = {now: () => 42_000, setTimeout: () => () => undefined};

  it("signs at the emulator's clock plus the org's offset when told to", () => {
    const clock = manualClock(START);
    expect(signatureNow('emulator', clock, timers)(3_000)).toBe(START.getTime() + 3_000);
  });

  it('signs at the real time otherwise, whatever the clocks say', () => {
    const clock = manualClock(START);
    expect(signatureNow(undefined, clock, timers)(3_000)).toBe(42_000);
    expect(signatureNow('real', clock, timers)(0)).toBe(42_000);
  });
});

describe('the delivery engine', () => {
  it('is built from its dependencies alone, and lets go of what it listens to when it stops', async () => {
    const queries: string[] = [];
    const db = {
      kind: 'pglite',
      query: async (sql: string) => {
        queries.push(sql);
        return {rows: [], rowCount: 0};
      },
    } as unknown as Database;
    const orgClockListeners = new Set<() => void>();
    const endpointDeletions = new Set<(endpointId: string) => void>();
    const engine = createDeliveryEngine({
      db,
      clock: manualClock(START),
      onOrgClockChange: (listener) => {
        orgClockListeners.add(listener);
        return () => orgClockListeners.delete(listener);
      },
      vault: createVault(null),
      allowLocalEndpoints: false,
      resolver: async () => [],
      signals: undefined,
      endpointDeletions,
      log: () => undefined,
    });
    expect(orgClockListeners.size).toBe(1);
    expect(endpointDeletions.size).toBe(1);
    expect(queries).toEqual([]);
    const seen = engine.changes.version;
    engine.announce();
    expect(engine.changes.version).toBe(seen + 1);
    await engine.stop();
    expect(orgClockListeners.size).toBe(0);
    expect(endpointDeletions.size).toBe(0);
  });
});
