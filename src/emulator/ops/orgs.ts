// Orgs: read one, make one (control surface), and find the org a control call acts on.
import {isId, MAX_NAME_LENGTH} from '../../definitions.js';
import type {Org} from '../../schemas/index.js';
import type {EmulatorContext} from '../context.js';
import {notFound} from '../operation-error.js';
import {Problems, text} from './validate.js';

export async function getOrg(ctx: EmulatorContext, orgId: string): Promise<Org> {
  const org = isId('org', orgId) ? await ctx.repos.orgs.get(orgId) : undefined;
  if (!org) throw notFound('no org with this id');
  return org;
}

/** The org a control call names, or the emulator's default org when it names none. */
export async function orgFor(ctx: EmulatorContext, orgId: string | undefined): Promise<string> {
  if (orgId === undefined) return ctx.orgId;
  return (await getOrg(ctx, orgId)).id;
}

export async function createOrg(ctx: EmulatorContext, input: {name: unknown}): Promise<Org> {
  const problems = new Problems();
  const name = text(problems, 'name', input.name, {max: MAX_NAME_LENGTH});
  problems.throwIfAny();
  return ctx.repos.orgs.create(name as string, ctx.clock.now());
}
