// Orgs: read one, make one (control surface), and find the org a control call acts on.
import {isId, MAX_NAME_LENGTH} from '../../definitions.js';
import type {Org} from '../../schemas/index.js';
import type {EmulatorContext} from '../context.js';
import {deleteDeliveriesOf} from '../db/deliveries.js';
import {conflict, notFound} from '../operation-error.js';
import {Problems, text} from './validate.js';

export async function getOrg(ctx: EmulatorContext, orgId: string): Promise<Org> {
  const org = isId('org', orgId) ? await ctx.repos.orgs.get(orgId) : undefined;
  if (!org) throw notFound('no org with this id');
  return org;
}

/** The org a control call names, or the emulator's default org when it names none. */
export async function orgFor(ctx: EmulatorContext, orgId: string | undefined): Promise<string> {
  if (orgId === undefined) return ctx.current.orgId;
  return (await getOrg(ctx, orgId)).id;
}

export async function createOrg(ctx: EmulatorContext, input: {name: unknown}): Promise<Org> {
  const problems = new Problems();
  const name = text(problems, 'name', input.name, {max: MAX_NAME_LENGTH});
  problems.throwIfAny();
  return ctx.repos.orgs.create(name as string, ctx.clock.now());
}

/**
 * Empties one org: its keys, endpoints, sandboxes and their links, events and deliveries go, and its clock follows
 * the emulator's again. The org, its name and its people stay. Other orgs never notice.
 */
export async function resetOrg(ctx: EmulatorContext, orgId: string): Promise<{reset: true; org_id: string}> {
  const org = await getOrg(ctx, orgId);
  await afterEmptied(ctx, org.id, await emptyOrg(ctx, org.id, false));
  return {reset: true, org_id: org.id};
}

/** Deletes one org and everything of it. The default org is only ever reset. */
export async function deleteOrg(
  ctx: EmulatorContext,
  orgId: string,
): Promise<{deleted: true; org_id: string}> {
  const org = await getOrg(ctx, orgId);
  if (org.id === ctx.current.orgId) {
    throw conflict("the emulator's default org cannot be deleted; reset it instead");
  }
  const emptied = await emptyOrg(ctx, org.id, true);
  // Browser sessions looking at it end with it (their rows went with the org): none is served from memory.
  ctx.current.forget();
  await afterEmptied(ctx, org.id, emptied);
  return {deleted: true, org_id: org.id};
}

interface Emptied {
  /** The endpoints deleted. */
  endpointIds: string[];
  /** The owners of the leases their deliveries had (deleteDeliveriesOf). */
  holders: string[];
}

/** In one transaction. */
async function emptyOrg(ctx: EmulatorContext, orgId: string, andOrg: boolean): Promise<Emptied> {
  const realNow = new Date(ctx.engine.timers.now());
  return ctx.db.transaction(async (tx) => {
    // Its endpoints locked first: an event recorded meanwhile adds no delivery the deletion would not see.
    await tx.query('SELECT id FROM webhook_endpoints WHERE org_id = $1 FOR UPDATE', [orgId]);
    // Deliveries keep no foreign key to their org (their inserts stay cheap), so they go by name.
    const holders = await deleteDeliveriesOf(tx, {orgId}, realNow);
    await tx.query('DELETE FROM events WHERE org_id = $1', [orgId]);
    await tx.query('DELETE FROM sandbox_links WHERE org_id = $1', [orgId]);
    await tx.query('DELETE FROM sandboxes WHERE org_id = $1', [orgId]);
    const {rows} = await tx.query<{id: string}>(
      'DELETE FROM webhook_endpoints WHERE org_id = $1 RETURNING id',
      [orgId],
    );
    await tx.query('DELETE FROM api_keys WHERE org_id = $1', [orgId]);
    if (andOrg) await tx.query('DELETE FROM orgs WHERE id = $1', [orgId]);
    return {endpointIds: rows.map((r) => r.id), holders};
  });
}

/**
 * What follows an emptied org before the answer: its keys are refused, and its endpoints' claimed and queued
 * attempts cancelled, so no signed request for them starts afterwards in any process sharing the database (one in
 * flight may finish).
 */
async function afterEmptied(ctx: EmulatorContext, orgId: string, emptied: Emptied): Promise<void> {
  ctx.auth.forgetAll();
  const cancelled = ctx.engine.deleted(emptied.endpointIds, emptied.holders);
  for (const id of emptied.endpointIds) for (const told of ctx.endpointDeletions) told(id);
  await cancelled;
  // Every process sharing the database hears that the org follows the emulator's clock again.
  await ctx.orgClocks.forget(orgId);
}
