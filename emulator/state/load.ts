// Loads a seed or a snapshot into a running emulator's state: in addition to what is there (merge), or in
// place of all of it (replace). The file's kind is told by its format key. Everything is checked before
// anything is written, and written in one transaction.
import {SEED_FORMAT_KEY} from '../../src/schemas/seed.js';
import type {EmulatorContext} from '../context.js';
import type {Queryable} from '../db/database.js';
import {newId} from '../ids.js';
import {type SeedResult, planSeed, writeSeed} from './seed.js';
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

export type LoadResult = {kind: 'seed'; default_org_id: string} & SeedResult;

export async function loadState(ctx: EmulatorContext, input: LoadInput): Promise<LoadResult> {
  const doc = input.document;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new StateFileError(input.source, [{field: '', message: 'must hold a JSON object'}]);
  }
  if (!(SEED_FORMAT_KEY in doc)) {
    throw new StateFileError(input.source, [
      {field: '', message: `is not a seed file: it has no "${SEED_FORMAT_KEY}" format key`},
    ]);
  }
  // Replacing checks the seed against an empty state: what is there now is going.
  const plan = await planSeed(ctx, doc, input.source, {againstEmpty: input.mode === 'replace'});
  const result = await ctx.db.transaction(async (tx) => {
    if (input.mode === 'replace') await wipeState(tx);
    const written = await writeSeed(ctx, tx, plan);
    // A replaced state's default org is the seed's first (or a new, empty one); a merge keeps the default,
    // unless the seed is the one the emulator starts from.
    let defaultOrg = ctx.orgId;
    if (input.mode === 'replace' || (input.makeDefault && written.orgs[0])) {
      defaultOrg = written.orgs[0]?.id ?? (await createEmptyOrg(ctx, tx));
      await tx.query(
        `INSERT INTO emulator_meta (key, value) VALUES ('default_org_id', $1)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
        [defaultOrg],
      );
    }
    return {...written, defaultOrg};
  });
  ctx.orgId = result.defaultOrg;
  ctx.auth.forgetAll();
  return {kind: 'seed', default_org_id: result.defaultOrg, orgs: result.orgs, warnings: plan.warnings};
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
