// Webhook endpoints: added and deleted only by a person (account page) or the control surface.
import {
  isId,
  MAX_ENDPOINT_DESCRIPTION_LENGTH,
  MAX_ENDPOINTS_PER_ORG,
  type LocalUrlKind,
  type ProblemCode,
} from '../../definitions.js';
import type {WebhookEndpoint} from '../../schemas/index.js';
import {type EmulatorContext, orgNow} from '../context.js';
import {LimitError, OrgGoneError} from '../db/repository-support.js';
import {endpointRecord} from '../db/webhook-endpoints.js';
import {newSigningSecret} from '../ids.js';
import {checkEndpointHost, checkEndpointUrl, type UrlRefusal} from '../net/address-policy.js';
import {
  conflict,
  invalidInput,
  notFound,
  OperationError,
  type Problem,
  vaultUnavailable,
} from '../operation-error.js';
import {eventTypes, Problems, text} from './validate.js';

/** How to receive webhooks on this machine when the emulator refuses a local URL. */
export const LOCAL_RECEIVER_WAY_OUT =
  'to receive webhooks on this machine, run `svc listen --forward-to <your local URL>`, or start the ' +
  'emulator with --allow-local-endpoints';

export interface CreateEndpointInput {
  orgId: string;
  url: unknown;
  events: unknown;
  description?: unknown;
}

export interface CreatedEndpoint {
  endpoint: WebhookEndpoint;
  /** The signing secret, in this answer only. */
  secret: string;
  /** Accepted, but worth saying (a host that could not be resolved now). */
  warnings: string[];
}

/**
 * Adds an endpoint. Every input problem is reported at once, before any DNS lookup; the host must then be
 * public (a name DNS cannot answer for is accepted with a warning: each delivery checks its address again).
 */
export async function createEndpoint(
  ctx: EmulatorContext,
  input: CreateEndpointInput,
): Promise<CreatedEndpoint> {
  const problems = new Problems();
  const allowLocal = ctx.allowLocalEndpoints;
  let url: {normalized: string; hostname: string} | undefined;
  if (typeof input.url !== 'string') problems.add('url', 'is required');
  else {
    const check = checkEndpointUrl(input.url, {allowLocal});
    if (check.ok) url = {normalized: check.normalized, hostname: check.url.hostname};
    else problems.add('url', ...urlProblem({...check, reason: check.reason.replace(/^url /, '')}));
  }
  const events = eventTypes(problems, 'events', input.events);
  const description = text(problems, 'description', input.description, {
    max: MAX_ENDPOINT_DESCRIPTION_LENGTH,
    optional: true,
  });
  if (problems.list.length > 0) throw refusal(problems.list);

  // Encrypting first means a deployment without a vault key refuses here, before anything is stored.
  if (!ctx.vault.available) {
    throw vaultUnavailable('webhook endpoints need a vault key to store their signing secret');
  }
  const warnings: string[] = [];
  if (!allowLocal) {
    const host = await checkEndpointHost((url as {hostname: string}).hostname, ctx.lookup);
    if (!host.ok) {
      const [message, code, kind] = urlProblem(host);
      throw refusal([{field: 'url', message, ...(code ? {code} : {}), ...(kind ? {kind} : {})}]);
    }
    if (host.warning) warnings.push(host.warning);
  }
  const secret = newSigningSecret();
  try {
    const stored = await ctx.repos.endpoints.create({
      orgId: input.orgId,
      url: (url as {normalized: string}).normalized,
      events: events as string[],
      description: description ?? null,
      secretCiphertext: ctx.vault.encrypt(secret),
      now: orgNow(ctx, input.orgId),
    });
    return {endpoint: endpointRecord(stored), secret, warnings};
  } catch (err) {
    if (err instanceof OrgGoneError) throw notFound('no org with this id');
    if (err instanceof LimitError) {
      throw conflict(
        `the org already has ${MAX_ENDPOINTS_PER_ORG} webhook endpoints, the most it may have (relay ` +
          'endpoints of `svc listen` not counted); delete one it no longer needs, then add the new one',
      );
    }
    throw err;
  }
}

/** A refusal of a local or non-public URL says so by its code, and where the URL points by its kind. */
function urlProblem(
  refusal: UrlRefusal,
): [message: string, code: ProblemCode | undefined, kind: LocalUrlKind | undefined] {
  return refusal.local
    ? [refusal.reason, 'local_url', refusal.local]
    : [refusal.reason, undefined, undefined];
}

/**
 * The 400 of a refused endpoint: each problem next to its field, and, when the URL was refused as local, the
 * two ways to receive webhooks locally after them (the problem keeps its reason alone, for pages and the CLI).
 */
function refusal(problems: readonly Problem[]): OperationError {
  const err = invalidInput(problems);
  if (!problems.some((p) => p.code === 'local_url')) return err;
  return new OperationError('invalid_request', `${err.message}; ${LOCAL_RECEIVER_WAY_OUT}`, problems);
}

/**
 * Deletes an endpoint and, with it, its deliveries. With an org, another org's endpoint is answered as unknown.
 * Deleted means gone: its claimed and queued attempts are cancelled, and once this resolves no signed request for
 * it starts, in this process or any other sharing the database (one already in flight may finish).
 */
export async function deleteEndpoint(
  ctx: EmulatorContext,
  input: {orgId?: string; endpointId: string},
): Promise<void> {
  const deleted = isId('webhookEndpoint', input.endpointId)
    ? await ctx.repos.endpoints.delete(input.endpointId, input.orgId, new Date(ctx.engine.timers.now()))
    : undefined;
  if (!deleted) throw notFound('no webhook endpoint with this id');
  const cancelled = ctx.engine.deleted([input.endpointId], deleted.holders);
  for (const listener of ctx.endpointDeletions) listener(input.endpointId);
  await cancelled;
}

/** The org's endpoints, newest first, never with a signing secret. */
export async function listEndpoints(ctx: EmulatorContext, orgId: string): Promise<WebhookEndpoint[]> {
  return (await ctx.repos.endpoints.list(orgId)).map(endpointRecord);
}

/** One endpoint of the org. */
export async function getEndpoint(
  ctx: EmulatorContext,
  input: {orgId: string; endpointId: string},
): Promise<WebhookEndpoint> {
  const endpoint = isId('webhookEndpoint', input.endpointId)
    ? await ctx.repos.endpoints.get(input.orgId, input.endpointId)
    : undefined;
  if (!endpoint) throw notFound('no webhook endpoint with this id');
  return endpointRecord(endpoint);
}
