// Receivers see the same event id more than once; the deduplicator runs the handler once per id.
import {describe, expect, it, vi} from 'vitest';
import {
  type DeduplicationStore,
  EventDeduplicator,
  MemoryDeduplicationStore,
} from '../../src/webhooks/index.js';

describe('EventDeduplicator', () => {
  it('runs the handler for the first delivery of an id and reports later ones as duplicates', async () => {
    const dedup = new EventDeduplicator();
    const handled: string[] = [];
    const first = await dedup.once('evt_a', () => handled.push('evt_a'));
    const again = await dedup.once('evt_a', () => handled.push('evt_a again'));
    const other = await dedup.once('evt_b', () => handled.push('evt_b'));
    expect(first).toEqual({duplicate: false, value: 1});
    expect(again).toEqual({duplicate: true});
    expect(other.duplicate).toBe(false);
    expect(handled).toEqual(['evt_a', 'evt_b']);
    expect(await dedup.seen('evt_a')).toBe(true);
    expect(await dedup.seen('evt_c')).toBe(false);
  });

  it('lets only one of two concurrent deliveries of the same id run', async () => {
    const dedup = new EventDeduplicator();
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = dedup.once('evt_same', async () => {
      runs++;
      await gate;
    });
    const concurrent = await dedup.once('evt_same', () => {
      runs++;
    });
    release();
    await slow;
    expect(concurrent).toEqual({duplicate: true});
    expect(runs).toBe(1);
  });

  it('releases the id when the handler throws, so the next retry runs it', async () => {
    const dedup = new EventDeduplicator();
    await expect(
      dedup.once('evt_fail', () => {
        throw new Error('database down');
      }),
    ).rejects.toThrow('database down');
    expect(await dedup.seen('evt_fail')).toBe(false);
    expect(await dedup.once('evt_fail', () => 'ok')).toEqual({duplicate: false, value: 'ok'});
  });

  it('releases the id when an async handler rejects, and when a store fails the call rejects', async () => {
    const dedup = new EventDeduplicator();
    await expect(dedup.once('evt_async', async () => Promise.reject(new Error('timeout')))).rejects.toThrow(
      'timeout',
    );
    expect(await dedup.seen('evt_async')).toBe(false);
    expect(await dedup.once('evt_async', async () => 2)).toEqual({duplicate: false, value: 2});

    const broken = new EventDeduplicator({
      store: {
        add: () => {
          throw new Error('redis unreachable');
        },
        has: () => false,
        delete: () => undefined,
      },
    });
    const handler = vi.fn();
    await expect(broken.once('evt_y', handler)).rejects.toThrow('redis unreachable');
    expect(handler).not.toHaveBeenCalled();
  });

  it('supports seen/markProcessed/forget for receivers that manage their own flow', async () => {
    const dedup = new EventDeduplicator();
    expect(await dedup.markProcessed('evt_x')).toBe(true);
    expect(await dedup.markProcessed('evt_x')).toBe(false);
    expect(await dedup.seen('evt_x')).toBe(true);
    await dedup.forget('evt_x');
    expect(await dedup.seen('evt_x')).toBe(false);
  });

  it('works over any store with atomic insert-if-absent, sync or async', async () => {
    const rows = new Map<string, number>();
    const asyncStore: DeduplicationStore = {
      async add(id, ttlMs) {
        if (rows.has(id)) return false;
        rows.set(id, ttlMs);
        return true;
      },
      async has(id) {
        return rows.has(id);
      },
      async delete(id) {
        rows.delete(id);
      },
    };
    const dedup = new EventDeduplicator({store: asyncStore, ttlMs: 60_000});
    expect((await dedup.once('evt_1', () => 1)).duplicate).toBe(false);
    expect((await dedup.once('evt_1', () => 1)).duplicate).toBe(true);
    expect(rows.get('evt_1')).toBe(60_000);
  });
});

describe('MemoryDeduplicationStore', () => {
  it('forgets ids after their TTL on an injected clock', () => {
    let now = 1_000;
    const store = new MemoryDeduplicationStore({now: () => now});
    expect(store.add('evt_a', 500)).toBe(true);
    now += 499;
    expect(store.has('evt_a')).toBe(true);
    now += 1;
    expect(store.has('evt_a')).toBe(false);
    expect(store.add('evt_a', 500)).toBe(true);
  });

  it('stays bounded: beyond maxEntries the oldest ids go first', () => {
    const store = new MemoryDeduplicationStore({maxEntries: 3});
    for (const id of ['a', 'b', 'c', 'd', 'e']) store.add(id, 60_000);
    expect(store.size).toBe(3);
    expect(['a', 'b', 'c', 'd', 'e'].map((id) => store.has(id))).toEqual([false, false, true, true, true]);
  });

  it('drops expired entries while adding, so memory does not grow with old ids', () => {
    let now = 0;
    const store = new MemoryDeduplicationStore({now: () => now});
    for (let i = 0; i < 100; i++) store.add(`old_${i}`, 10);
    now = 11;
    store.add('new', 10);
    expect(store.size).toBe(1);
  });
});
