// Control tokens narrower than the admin token (auth/control-token.ts): the token of one org, a new org with its
// token, or a token that only makes orgs (what a test run hands its files, so none holds the admin token). Who may
// ask for which is the control surface's rule (control/token-scope.ts); this issues what is asked.
import {MAX_NAME_LENGTH} from '../../definitions.js';
import type {ControlToken} from '../../schemas/emulator.js';
import {issueControlToken} from '../auth/control-token.js';
import type {EmulatorContext} from '../context.js';
import {type OwnedRecord, orgOwning} from '../db/record-owners.js';
import {getOrg} from './orgs.js';
import {Problems, text} from './validate.js';

export interface ControlTokenInput {
  org_id?: unknown;
  new_org?: unknown;
  scope?: unknown;
}

const ONE_OF = 'name exactly one of org_id (an org there is), new_org (the name of an org to make) or scope';

/** The token asked for, and whether an org was made for it. */
export async function issueToken(
  ctx: EmulatorContext,
  input: ControlTokenInput,
): Promise<{token: ControlToken; created: boolean}> {
  const problems = new Problems();
  const given = (['org_id', 'new_org', 'scope'] as const).filter((field) => input[field] !== undefined);
  if (given.length !== 1) {
    problems.add('', ONE_OF);
    problems.throwIfAny();
  }
  if (input.scope !== undefined) {
    if (input.scope !== 'new_orgs')
      problems.add('scope', 'must be "new_orgs" (an org\'s token: org_id or new_org)');
    problems.throwIfAny();
    return {
      token: {token: issueControlToken(ctx.adminToken, {kind: 'new_orgs'}), scope: 'new_orgs', org: null},
      created: false,
    };
  }
  if (input.org_id !== undefined) {
    if (typeof input.org_id !== 'string') problems.add('org_id', 'must be an org id (org_…)');
    problems.throwIfAny();
    const org = await getOrg(ctx, input.org_id as string);
    return {token: orgToken(ctx, org), created: false};
  }
  const name = text(problems, 'new_org', input.new_org, {max: MAX_NAME_LENGTH});
  problems.throwIfAny();
  const org = await ctx.repos.orgs.create(name as string, ctx.clock.now());
  return {token: orgToken(ctx, org), created: true};
}

function orgToken(ctx: EmulatorContext, org: NonNullable<ControlToken['org']>): ControlToken {
  return {token: issueControlToken(ctx.adminToken, {kind: 'org', orgId: org.id}), scope: 'org', org};
}

/** The org a key, endpoint, sandbox, event or delivery belongs to; undefined when there is no such record. */
export function orgOfRecord(
  ctx: EmulatorContext,
  kind: OwnedRecord,
  id: string,
): Promise<string | undefined> {
  return orgOwning(ctx.db, kind, id);
}
