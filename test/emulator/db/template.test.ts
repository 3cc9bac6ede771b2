// The database template as a package delivers it: the packer drops empty folders and the template's files
// come without their trailing zeros, yet every copy opens as a complete PostgreSQL data dir; a template that
// is missing a file or holds one of the wrong length is never used, and is made again where templates are kept.
import {spawnSync} from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmdirSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import {mkdtemp, readFile, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {wrapPGlite} from '../../../src/emulator/db/database.js';
import {openPGlite} from '../../../src/emulator/db/pglite.js';
import {openPGliteThreadInMemory} from '../../../src/emulator/db/pglite-thread.js';
import {
  copyTemplate,
  ensureTemplate,
  removeAbandonedBuilds,
  templateKey,
  templateProblem,
} from '../../../src/emulator/db/template.js';
import {PGDATA} from '../../../src/emulator-layout/runtime.js';
import type {TemplateManifest} from '../../../src/emulator-layout/template-manifest.js';

let scratch: string;
let built: string;
let manifest: TemplateManifest;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-template-test-'));
  built = await ensureTemplate(join(scratch, 'cache'));
  manifest = JSON.parse(await readFile(join(built, 'template.json'), 'utf8')).manifest;
});
afterAll(() => rm(scratch, {recursive: true, force: true}));

/** A copy of the template as npm packs it: every empty folder gone (deepest first, until none is left). */
function packedCopy(name: string): string {
  const dir = join(scratch, name);
  cpSync(built, dir, {recursive: true});
  for (;;) {
    const empty = emptyFolders(join(dir, PGDATA));
    if (empty.length === 0) return dir;
    for (const folder of empty) rmdirSync(folder);
  }
}

function emptyFolders(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    if (readdirSync(path).length === 0) found.push(path);
    else found.push(...emptyFolders(path));
  }
  return found;
}

async function tablesIn(pgdata: string): Promise<string[]> {
  const db = wrapPGlite(await openPGlite(pgdata));
  try {
    const r = await db.query<{name: string}>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
    );
    return r.rows.map((row) => row.name);
  } finally {
    await db.close();
  }
}

describe('the database template', () => {
  it('lists the folders PostgreSQL needs, empty ones included, and stores the WAL without its zeros', () => {
    for (const needed of ['pg_notify', 'pg_tblspc', 'pg_twophase', 'pg_wal/archive_status', 'pg_stat_tmp']) {
      expect(manifest.dirs).toContain(needed);
    }
    const wal = Object.entries(manifest.files).filter(([path]) => /^pg_wal\/[0-9A-F]{24}$/.test(path));
    expect(wal).toHaveLength(1);
    const [[, [size, stored]]] = wal as [[string, [number, number]]];
    expect(size).toBe(16 * 1024 * 1024);
    expect(stored).toBeLessThan(64 * 1024);
  });

  it('has the triggers that tell other PostgreSQL processes of a write defined but disabled (PGlite is one process)', async () => {
    // ensureTemplate made this one in the cache, as it would for a package without a built template.
    const db = await openPGliteThreadInMemory(async () => built);
    try {
      const r = await db.query<{name: string; enabled: string}>(
        "SELECT tgname AS name, tgenabled AS enabled FROM pg_trigger WHERE tgfoid = 'svc_notify_change'::regproc ORDER BY 1",
      );
      expect(r.rows.map((t) => t.name)).toEqual([
        'api_keys_notify_change',
        'orgs_notify_change',
        'sandbox_links_notify_change',
        'sandboxes_notify_change',
        'webhook_endpoints_notify_change',
      ]);
      expect(r.rows.every((t) => t.enabled === 'D')).toBe(true);
    } finally {
      await db.discard();
    }
  });

  it('copied from a packed template (no empty folders) opens as a migrated database', async () => {
    const packed = packedCopy('packed');
    expect(existsSync(join(packed, PGDATA, 'pg_notify'))).toBe(false);
    expect(await templateProblem(packed, await templateKey())).toBeUndefined();

    const pgdata = join(scratch, 'from-packed', PGDATA);
    await copyTemplate(packed, pgdata);
    for (const dir of manifest.dirs) expect(statSync(join(pgdata, dir)).isDirectory()).toBe(true);
    for (const [path, [size]] of Object.entries(manifest.files))
      expect(statSync(join(pgdata, path)).size).toBe(size);
    expect(await tablesIn(pgdata)).toEqual(expect.arrayContaining(['api_keys', 'orgs', 'webhook_endpoints']));
  });

  it('is refused when a file is missing or has another length, naming the file', async () => {
    const key = await templateKey();
    const missing = packedCopy('missing');
    unlinkSync(join(missing, PGDATA, 'PG_VERSION'));
    expect(await templateProblem(missing, key)).toBe('PG_VERSION is missing');

    const cut = packedCopy('cut');
    const [victim, [, stored]] = Object.entries(manifest.files).find(([, [, s]]) => s > 8192) as [
      string,
      [number, number],
    ];
    truncateSync(join(cut, PGDATA, victim), stored - 8192);
    expect(await templateProblem(cut, key)).toBe(`${victim} holds ${stored - 8192} bytes, not ${stored}`);
    expect(await templateProblem(packedCopy('stale'), 'another-key')).toMatch(/other migrations/);
  });

  // Runs initdb and every migration: seconds on a quiet machine, far more on a busy one.
  it('is made again in the cache when the packaged one and the cached one are both incomplete', async () => {
    const key = await templateKey();
    const damaged = packedCopy('damaged-package');
    unlinkSync(join(damaged, PGDATA, 'global', 'pg_control'));
    const cache = packedCopy('damaged-cache');
    unlinkSync(join(cache, PGDATA, 'PG_VERSION'));

    const chosen = await ensureTemplate(cache, damaged);
    expect(chosen).toBe(cache);
    expect(await templateProblem(cache, key)).toBeUndefined();
    expect(await templateProblem(damaged, key)).toBe('global/pg_control is missing');
    const pgdata = join(scratch, 'from-rebuilt', PGDATA);
    await copyTemplate(chosen, pgdata);
    expect(await tablesIn(pgdata)).toContain('orgs');
  }, 180_000);

  it('removes the build folder a killed or interrupted build left beside the cache, never one still building', async () => {
    const cache = packedCopy('swept-cache');
    // A process that has exited: its pid names no running process any more. (`node --version` answers before
    // Node starts its runtime: the cheapest process to hand.)
    const gone = spawnSync(process.execPath, ['--version']).pid as number;
    const abandoned = `${cache}.tmp-${gone}-0badc0de`;
    const building = `${cache}.tmp-${process.pid}-5eedc0de`;
    const unrelated = `${cache}-notes.tmp-${gone}-0badc0de`;
    for (const dir of [abandoned, building, unrelated]) {
      mkdirSync(join(dir, PGDATA), {recursive: true});
      writeFileSync(join(dir, PGDATA, 'PG_VERSION'), '17\n');
    }

    expect(await ensureTemplate(cache, join(scratch, 'no-package'))).toBe(cache);
    expect(existsSync(abandoned)).toBe(false);
    expect(existsSync(building)).toBe(true);
    expect(existsSync(unrelated)).toBe(true);
    expect(removeAbandonedBuilds(cache)).toEqual([]);
    expect(removeAbandonedBuilds(join(scratch, 'no-such-folder', 'cache'))).toEqual([]);
  });

  it('is made by one PGlite release that every install gets: the package pins it exactly, no range', async () => {
    // The template's key names the PGlite version. A range such as ^0.5.16 lets an install resolve a newer
    // release than the build used, and then the shipped template is refused and every start runs initdb.
    const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const wanted = pkg.dependencies['@electric-sql/pglite'];
    expect(wanted).toMatch(/^\d+\.\d+\.\d+$/);
    const installed = JSON.parse(
      await readFile(
        new URL('../../../node_modules/@electric-sql/pglite/package.json', import.meta.url),
        'utf8',
      ),
    ) as {version: string};
    expect(installed.version).toBe(wanted);
  });
});
