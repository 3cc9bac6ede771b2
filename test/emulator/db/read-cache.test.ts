// The write tracker under the read cache sees writes made through scripts (the delivery engine's prepared
// statements) as well as through queries, inside a transaction and outside one.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {Database} from '../../../src/emulator/db/database.js';
import {ApiKeyRepository} from '../../../src/emulator/db/api-keys.js';
import {OrgRepository} from '../../../src/emulator/db/orgs.js';
import {trackWrites} from '../../../src/emulator/db/read-cache.js';
import {openTestDb} from '../delivery/helpers.js';

let db: Database;
beforeAll(async () => {
  db = await openTestDb();
});
afterAll(async () => {
  await db.close();
});

describe('tracking writes made through scripts', () => {
  it('keeps scripts, and counts a script that writes a watched table but not one that reads it', async () => {
    const tracked = trackWrites(db, ['orgs']);
    const script = tracked.script;
    expect(script).toBeDefined();
    if (!script) return;
    const before = tracked.generation;
    const read = await script.call(tracked, "SELECT count(*)::int AS n FROM orgs WHERE name = 'x'");
    expect(read.rows).toEqual([{n: 0}]);
    expect(tracked.generation).toBe(before);
    await script.call(tracked, "INSERT INTO orgs (id, name, created_at) VALUES ('org_script', 'x', now())");
    expect(tracked.generation).toBeGreaterThan(before);
  });

  it('does not count a statement that only reads a watched table while it writes another', async () => {
    const tracked = trackWrites(db, ['orgs']);
    const before = tracked.generation;
    await tracked.query(
      `WITH known AS (SELECT id FROM orgs WHERE id = 'org_script')
       UPDATE deliveries SET attempts = attempts WHERE org_id IN (SELECT id FROM known)`,
    );
    expect(tracked.generation).toBe(before);
    await tracked.query(
      `WITH gone AS (UPDATE orgs SET name = name WHERE id = 'org_script' RETURNING id) SELECT 1`,
    );
    expect(tracked.generation).toBeGreaterThan(before);
  });

  it('counts a watched write a transaction made through a script, and again once it commits', async () => {
    const tracked = trackWrites(db, ['orgs']);
    const before = tracked.generation;
    let during = -1;
    await tracked.transaction(async (tx) => {
      expect(tx.script).toBeDefined();
      await tx.script?.("UPDATE orgs SET name = 'y' WHERE id = 'org_script'");
      during = tracked.generation;
    });
    expect(during).toBeGreaterThan(before);
    expect(tracked.generation).toBeGreaterThan(during);
  });

  it('tells of a noticed table written once the write is committed, leaving the cache alone', async () => {
    const tracked = trackWrites(db, ['orgs'], {noticedTables: ['sandboxes']});
    const told: string[] = [];
    const stop = tracked.onCommit((table) => told.push(table));
    const before = tracked.generation;
    await tracked.transaction(async (tx) => {
      await tx.query("UPDATE sandboxes SET name = name WHERE id = 'sbx_none'");
      await tx.query("SELECT count(*) FROM orgs WHERE id = 'org_script'");
      expect(told).toEqual([]);
    });
    expect(told).toEqual(['sandboxes']);
    expect(tracked.generation).toBe(before);
    await tracked.query("UPDATE orgs SET name = name WHERE id = 'org_script'");
    expect(told).toEqual(['sandboxes', 'orgs']);
    stop();
    await tracked.query("UPDATE sandboxes SET name = name WHERE id = 'sbx_none'");
    expect(told).toEqual(['sandboxes', 'orgs']);
  });

  it('leaves the cache alone for the stamp of a key’s use, and counts every other write of the keys', async () => {
    const tracked = trackWrites(db, ['orgs', 'api_keys']);
    const now = new Date('2030-01-01T00:00:00Z');
    const org = await new OrgRepository(tracked).create('stamps', now);
    const keys = new ApiKeyRepository(tracked);
    const {key} = await keys.create({orgId: org.id, name: 'k', createdBy: null, expires: 'never', now});
    const before = tracked.generation;
    const used = new Date(now.getTime() + 1_000);
    await keys.touch(key.id, used);
    expect(tracked.generation).toBe(before);
    // Stored all the same.
    expect((await keys.get(org.id, key.id))?.lastUsedAt).toEqual(used);
    await keys.revoke(key.id, used, org.id);
    expect(tracked.generation).toBeGreaterThan(before);
  });
});
