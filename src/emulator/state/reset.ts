// `svc emulator reset`: an empty state with one empty default org, as a fresh data dir starts. The clock stays.
import type {EmulatorContext} from '../context.js';
import {newId} from '../../ids.js';
import {wipeState} from './wipe.js';

export async function resetState(ctx: EmulatorContext): Promise<{reset: true; default_org_id: string}> {
  const orgId = newId('org');
  await ctx.db.transaction(async (tx) => {
    await wipeState(tx);
    await tx.query('INSERT INTO orgs (id, name, created_at) VALUES ($1, $2, $3)', [
      orgId,
      'Emulator org',
      ctx.clock.now(),
    ]);
    await tx.query(`INSERT INTO emulator_meta (key, value) VALUES ('default_org_id', $1)`, [orgId]);
  });
  ctx.current.loaded(orgId);
  await ctx.orgClocks.reload();
  ctx.auth.forgetAll();
  ctx.limiter.reset();
  ctx.controlLimiter.reset();
  return {reset: true, default_org_id: orgId};
}
