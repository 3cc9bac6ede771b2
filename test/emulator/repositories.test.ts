// Backends: the repositories are the SQL layer itself.
import {afterAll, beforeAll, expect, it} from 'vitest';
import type {Database} from '../../src/emulator/db/database.js';
import {openStorage, type OpenedStorage} from '../../src/emulator/db/open.js';
import {keyRecord} from '../../src/emulator/db/api-keys.js';
import {createRepositories, type Repositories} from '../../src/emulator/db/repositories.js';
import {LimitError} from '../../src/emulator/db/repository-support.js';
import {MAX_ACTIVE_KEYS_PER_ORG} from '../../src/definitions.js';
import {hashSecret} from '../../src/emulator/hash.js';
import {scratchSchema} from '../helpers/pg-schema.js';
import {describeEachBackend, POSTGRES, postgresUrl, type Requirement} from '../helpers/requirements.js';

interface Backend {
  name: string;
  needs?: Requirement[];
  open(): Promise<{storage: OpenedStorage; dispose(): Promise<void>}>;
}

const backends: Backend[] = [
  {
    name: 'PGlite',
    async open() {
      const storage = await openStorage({dataDir: '', inMemory: true});
      return {
        storage,
        dispose: async () => {
          await storage.db.close();
          await storage.cleanup();
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    needs: [POSTGRES],
    async open() {
      const schema = await scratchSchema(postgresUrl());
      const storage = await openStorage({dataDir: '', databaseUrl: schema.url});
      return {
        storage,
        dispose: async () => {
          await storage.db.close();
          await schema.drop();
        },
      };
    },
  },
];

describeEachBackend(backends, 'repositories on $name', (backend) => {
  let db: Database;
  let repos: Repositories;
  let dispose: () => Promise<void>;
  const t0 = new Date('2030-01-01T00:00:00Z');

  beforeAll(async () => {
    const opened = await backend.open();
    db = opened.storage.db;
    dispose = opened.dispose;
    repos = createRepositories(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  it('stores only the SHA-256 of a key secret and finds the key by it', async () => {
    const org = await repos.orgs.create('acme', t0);
    const {key, secret} = await repos.keys.create({
      orgId: org.id,
      name: 'ci',
      createdBy: 'a@b.c',
      expires: '90',
      now: t0,
    });
    const {rows} = await db.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE id = $1', [key.id]);
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(rows[0]?.secret_hash).toBe(hashSecret(secret));
    const found = await repos.keys.findByHash(hashSecret(secret));
    expect(found?.id).toBe(key.id);
    expect(found?.expiresAt?.toISOString()).toBe('2030-04-01T00:00:00.000Z');
    expect(found?.createdBy).toBe('a@b.c');
  });

  it('derives active, expired and revoked from the stored times and the given clock time', async () => {
    const org = await repos.orgs.create('states', t0);
    const {key} = await repos.keys.create({
      orgId: org.id,
      name: 'k',
      createdBy: null,
      expires: '30',
      now: t0,
    });
    expect(keyRecord(key, t0).status).toBe('active');
    expect(keyRecord(key, new Date(t0.getTime() + 30 * 86_400_000)).status).toBe('expired');
    const revoked = await repos.keys.revoke(key.id, t0);
    expect(revoked && keyRecord(revoked, t0).status).toBe('revoked');
    // Revoking twice keeps the first time.
    const again = await repos.keys.revoke(key.id, new Date(t0.getTime() + 1000));
    expect(again?.revokedAt?.toISOString()).toBe(t0.toISOString());
  });

  it('holds the 25-key limit under concurrent creation, not counting revoked or expired keys', async () => {
    const org = await repos.orgs.create('limit', t0);
    const short = await repos.keys.create({
      orgId: org.id,
      name: 'short',
      createdBy: null,
      expires: '30',
      now: t0,
    });
    const later = new Date(t0.getTime() + 31 * 86_400_000);
    const results = await Promise.allSettled(
      Array.from({length: 30}, (_, i) =>
        repos.keys.create({orgId: org.id, name: `k${i}`, createdBy: null, expires: 'never', now: later}),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(MAX_ACTIVE_KEYS_PER_ORG);
    const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(refused).toHaveLength(5);
    for (const r of refused) expect(r.reason).toBeInstanceOf(LimitError);
    expect(short.key.expiresAt && short.key.expiresAt < later).toBe(true);
  });

  it('moves last_used_at only forward', async () => {
    const org = await repos.orgs.create('touch', t0);
    const {key} = await repos.keys.create({
      orgId: org.id,
      name: 'k',
      createdBy: null,
      expires: 'never',
      now: t0,
    });
    await repos.keys.touch(key.id, new Date(t0.getTime() + 5000));
    await repos.keys.touch(key.id, new Date(t0.getTime() + 1000));
    expect((await repos.keys.get(org.id, key.id))?.lastUsedAt?.toISOString()).toBe(
      '2030-01-01T00:00:05.000Z',
    );
  });

  it('keeps endpoints per org, newest first, at most 10, and deletes only within the org', async () => {
    const a = await repos.orgs.create('a', t0);
    const b = await repos.orgs.create('b', t0);
    for (let i = 0; i < 10; i++) {
      await repos.endpoints.create({
        orgId: a.id,
        url: `https://hooks.example.com/${i}`,
        events: ['sandbox.ready'],
        description: i === 0 ? 'first' : null,
        secretCiphertext: 'c',
        now: new Date(t0.getTime() + i * 1000),
      });
    }
    await expect(
      repos.endpoints.create({
        orgId: a.id,
        url: 'https://x.example.com',
        events: ['sandbox.ready'],
        description: null,
        secretCiphertext: 'c',
        now: t0,
      }),
    ).rejects.toBeInstanceOf(LimitError);
    const list = await repos.endpoints.list(a.id);
    expect(list.map((e) => e.url)[0]).toBe('https://hooks.example.com/9');
    expect(list.at(-1)?.description).toBe('first');
    expect(list[0]?.events).toEqual(['sandbox.ready']);
    const target = list[0]?.id as string;
    expect(await repos.endpoints.delete(target, b.id, t0)).toBeUndefined();
    expect(await repos.endpoints.get(b.id, target)).toBeUndefined();
    // Deleted with its deliveries, none of which any worker held.
    expect(await repos.endpoints.delete(target, a.id, t0)).toEqual({holders: []});
  });

  it('keeps the first default org when two starts race to set it', async () => {
    const first = await repos.meta.setIfAbsent('race', 'one');
    const second = await repos.meta.setIfAbsent('race', 'two');
    expect([first, second]).toEqual(['one', 'one']);
  });
});
