// API keys: made and revoked only by a person (account page) or the control surface, never with an API key.
import {
  isId,
  KEY_EXPIRY_CHOICES,
  type KeyExpiryChoice,
  MAX_ACTIVE_KEYS_PER_ORG,
  MAX_EMAIL_LENGTH,
  MAX_NAME_LENGTH,
} from '../../definitions.js';
import type {ApiKey} from '../../schemas/index.js';
import {type EmulatorContext, orgNow} from '../context.js';
import {keyRecord} from '../db/api-keys.js';
import {LimitError, OrgGoneError} from '../db/repository-support.js';
import {conflict, notFound} from '../operation-error.js';
import {Problems, oneOf, text} from './validate.js';

export interface CreateKeyInput {
  orgId: string;
  name: unknown;
  /** 30, 90, 365 (days) or never; absent means never. */
  expires?: unknown;
  /** Who made it (an email on the account page); shown in key lists. */
  createdBy?: unknown;
}

/** Mints a key. The secret is in this answer only: just its SHA-256 is stored. */
export async function createKey(
  ctx: EmulatorContext,
  input: CreateKeyInput,
): Promise<{key: ApiKey; secret: string}> {
  const problems = new Problems();
  const name = text(problems, 'name', input.name, {max: MAX_NAME_LENGTH});
  const expires =
    input.expires === undefined || input.expires === null
      ? 'never'
      : oneOf<KeyExpiryChoice>(problems, 'expires', String(input.expires), KEY_EXPIRY_CHOICES);
  const createdBy = text(problems, 'created_by', input.createdBy, {max: MAX_EMAIL_LENGTH, optional: true});
  problems.throwIfAny();
  const now = orgNow(ctx, input.orgId);
  try {
    const {key, secret} = await ctx.repos.keys.create({
      orgId: input.orgId,
      name: name as string,
      createdBy: createdBy ?? null,
      expires: expires as KeyExpiryChoice,
      now,
    });
    return {key: keyRecord(key, now), secret};
  } catch (err) {
    if (err instanceof OrgGoneError) throw notFound('no org with this id');
    if (err instanceof LimitError) {
      throw conflict(
        `the org already has ${MAX_ACTIVE_KEYS_PER_ORG} active API keys, the most it may have; ` +
          'revoke one it no longer needs, then create the new one',
      );
    }
    throw err;
  }
}

/**
 * Revokes a key; the next request with it answers 401. Revoking again keeps the first revocation. With an
 * org, a key of another org is answered as unknown.
 */
export async function revokeKey(
  ctx: EmulatorContext,
  input: {orgId?: string; keyId: string},
): Promise<ApiKey & {already_revoked: boolean}> {
  const before = isId('apiKey', input.keyId) ? await ctx.repos.keys.get(input.orgId, input.keyId) : undefined;
  const key = before
    ? await ctx.repos.keys.revoke(input.keyId, orgNow(ctx, before.orgId), input.orgId)
    : undefined;
  if (!key) throw notFound('no API key with this id');
  ctx.auth.forget(key.id);
  // Said apart, so that a second revoke is told nothing happened rather than that it revoked something.
  return {...keyRecord(key, orgNow(ctx, key.orgId)), already_revoked: before?.revokedAt != null};
}

/** The org's keys, newest first, never with a secret. */
export async function listKeys(ctx: EmulatorContext, orgId: string): Promise<ApiKey[]> {
  const now = orgNow(ctx, orgId);
  const keys = await ctx.repos.keys.list(orgId);
  return keys.map((k) => keyRecord({...k, lastUsedAt: ctx.auth.lastUsedAt(k)}, now));
}
