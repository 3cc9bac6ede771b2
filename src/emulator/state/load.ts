// Loads a seed or a snapshot into a running emulator's state: in addition to what is there (merge), or in
// place of all of it (replace). The file's kind is told by its format key. Everything is checked before
// anything is written, and written in one transaction.
import {SEED_FORMAT_KEY} from '../../schemas/seed.js';
import {SNAPSHOT_FORMAT_KEY, SNAPSHOT_TABLES, type SnapshotTable} from '../../schemas/snapshot.js';
import type {ManualClock} from '../clock.js';
import type {EmulatorContext} from '../context.js';
import type {Queryable} from '../db/database.js';
import type {Problem} from '../operation-error.js';
import {newId} from '../../ids.js';
import {checkStateDocument, listed} from './document.js';
import {existingRecords, mergeConflict} from './merge-conflicts.js';
import {type SeedResult, planSeed, writeSeed} from './seed.js';
import {checkSnapshot, writeSnapshot} from './snapshot.js';
import {StateFileError} from './state-file-error.js';
import {wipeState} from './wipe.js';

export type LoadMode = 'merge' | 'replace';

export interface LoadInput {
  document: unknown;
  /** The file's name, for every message about it. */
  source: string;
  mode: LoadMode;
  /** Merge only: the file's first org becomes the default org (a seed given at start). */
  makeDefault?: boolean;
}

export type SeedLoadResult = {kind: 'seed'; default_org_id: string} & SeedResult;
export interface SnapshotLoadResult {
  kind: 'snapshot';
  default_org_id: string;
  /** Rows loaded, per table. */
  rows: Record<SnapshotTable, number>;
  /** set: a manual clock now shows the snapshot's time; kept: this emulator's clock is real, or this was a merge. */
  clock: 'set' | 'kept';
}
export type LoadResult = SeedLoadResult | SnapshotLoadResult;

export async function loadState(ctx: EmulatorContext, input: LoadInput): Promise<LoadResult> {
  const doc = input.document;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new StateFileError(input.source, [{field: '', message: 'must hold a JSON object'}]);
  }
  // A body posted to the control route is checked as a file read by the CLI is.
  const nul = checkStateDocument(doc, input.source);
  if (SNAPSHOT_FORMAT_KEY in doc) return loadSnapshot(ctx, input, nul);
  if (!(SEED_FORMAT_KEY in doc)) {
    throw new StateFileError(input.source, [
      {
        field: '',
        message: `is neither a seed file ("${SEED_FORMAT_KEY}") nor a snapshot ("${SNAPSHOT_FORMAT_KEY}")`,
      },
    ]);
  }
  // Replacing checks the seed against an empty state: what is there now is going.
  const plan = await planSeed(ctx, doc, input.source, {againstEmpty: input.mode === 'replace'}).catch(
    (err: unknown) => {
      if (nul.length > 0) throw withProblems(err, input.source, nul);
      throw err;
    },
  );
  if (nul.length > 0) throw new StateFileError(input.source, nul);
  const result = await ctx.db.transaction(async (tx) => {
    if (input.mode === 'replace') await wipeState(tx);
    const written = await writeSeed(ctx, tx, plan);
    // A replaced state's default org is the seed's first (or a new, empty one); a merge keeps the default,
    // unless the seed is the one the emulator starts from.
    let defaultOrg = ctx.current.orgId;
    if (input.mode === 'replace' || (input.makeDefault && written.orgs[0])) {
      defaultOrg = written.orgs[0]?.id ?? (await createEmptyOrg(ctx, tx));
      await setDefaultOrg(tx, defaultOrg);
    }
    return {...written, defaultOrg};
  });
  ctx.current.loaded(result.defaultOrg);
  ctx.auth.forgetAll();
  await ctx.orgClocks.reload();
  return {kind: 'seed', default_org_id: result.defaultOrg, orgs: result.orgs, warnings: plan.warnings};
}

/** The seed's own problems and the strings holding NUL, as one refusal. */
function withProblems(err: unknown, source: string, nul: Problem[]): unknown {
  if (!(err instanceof StateFileError)) return err;
  const own = err.problems.map((p) => ({
    field: p.field,
    message: p.message.replace(`${source}: ${p.field ? `${p.field}: ` : ''}`, ''),
  }));
  // A field the seed's rules refuse already (a name's control characters) is named once.
  const named = new Set(own.map((p) => p.field));
  return new StateFileError(source, listed([...nul.filter((p) => !named.has(p.field)), ...own]));
}

async function loadSnapshot(
  ctx: EmulatorContext,
  input: LoadInput,
  nul: Problem[],
): Promise<SnapshotLoadResult> {
  const snap = await checkSnapshot(
    input.document,
    input.source,
    {allowLocalEndpoints: ctx.allowLocalEndpoints, lookup: ctx.lookup},
    nul,
  );
  const replace = input.mode === 'replace';
  const manual = ctx.clock.mode === 'manual' ? (ctx.clock as ManualClock) : undefined;
  // The emulator's time once loaded: the snapshot's when it replaces the state of a manual clock. Each org with a
  // clock of its own then shows the time it had in the snapshot (org clocks exist only on a manual clock).
  if (manual && !replace) await manual.refresh();
  const emulatorNowMs = manual && replace ? Date.parse(snap.clock.now) : ctx.clock.nowMs();
  const orgClocks = await ctx.db.transaction(async (tx) => {
    if (replace) await wipeState(tx);
    else {
      const clashes = await existingRecords(tx, snap);
      if (clashes.length > 0) throw mergeConflict(input.source, clashes);
    }
    await writeSnapshot(ctx, tx, snap, input.source);
    const written = await ctx.orgClocks.load(tx, snap.org_clocks ?? [], emulatorNowMs);
    if (replace) await setDefaultOrg(tx, snap.default_org_id);
    return written;
  });
  ctx.current.loaded(replace ? snap.default_org_id : ctx.current.orgId);
  ctx.auth.forgetAll();
  await ctx.orgClocks.reload();
  await ctx.orgClocks.loaded(orgClocks);
  let clock: 'set' | 'kept' = 'kept';
  if (replace && manual) {
    await ctx.orgClocks.exclusive(async () => {
      manual.set(new Date(snap.clock.now));
      await manual.synced();
    });
    clock = 'set';
  }
  const rows = Object.fromEntries(SNAPSHOT_TABLES.map((t) => [t, snap[t].length])) as Record<
    SnapshotTable,
    number
  >;
  return {kind: 'snapshot', default_org_id: ctx.current.orgId, rows, clock};
}

async function setDefaultOrg(tx: Queryable, orgId: string): Promise<void> {
  await tx.query(
    `INSERT INTO emulator_meta (key, value) VALUES ('default_org_id', $1)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
    [orgId],
  );
}

async function createEmptyOrg(ctx: EmulatorContext, tx: Queryable): Promise<string> {
  const id = newId('org');
  await tx.query('INSERT INTO orgs (id, name, created_at) VALUES ($1, $2, $3)', [
    id,
    'Emulator org',
    ctx.clock.now(),
  ]);
  return id;
}
