// The operations the account page calls. Interim home until emulator/ops lands: the same rules as the control
// routes, through the same repositories and checks, in the planned signatures.
import {
  EVENT_TYPES,
  type ErrorCode,
  KEY_EXPIRY_CHOICES,
  type KeyExpiryChoice,
  MAX_ENDPOINT_DESCRIPTION_LENGTH,
  MAX_NAME_LENGTH,
} from '../../src/definitions.js';
import {newSigningSecret} from '../../src/lib/ids.js';
import type {ApiKey, Delivery, WebhookEndpoint} from '../../src/schemas/index.js';
import type {EmulatorContext} from '../context.js';
import {endpointRecord, keyRecord, LimitError} from '../db/repositories.js';
import {checkEndpointUrl, resolveAndCheck} from '../net/endpoint-url.js';

export class OperationError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly problems: {field: string; message: string}[] = [],
  ) {
    super(message);
    this.name = 'OperationError';
  }
}

const CONTROL = /[\u0000-\u001f\u007f]/;

export async function listKeys(ctx: EmulatorContext, orgId: string): Promise<ApiKey[]> {
  const now = ctx.clock.now();
  return (await ctx.repos.keys.list(orgId)).map((k) => keyRecord(k, now));
}

export async function createKey(
  ctx: EmulatorContext,
  input: {orgId: string; name: string; expires: string; createdBy: string | null},
): Promise<{key: ApiKey; secret: string}> {
  const name = input.name.trim();
  const problems: {field: string; message: string}[] = [];
  if (name.length === 0) problems.push({field: 'name', message: 'name must not be empty'});
  else if (name.length > MAX_NAME_LENGTH)
    problems.push({field: 'name', message: `name must be at most ${MAX_NAME_LENGTH} characters`});
  else if (CONTROL.test(name))
    problems.push({field: 'name', message: 'name must not contain control characters'});
  if (!(KEY_EXPIRY_CHOICES as readonly string[]).includes(input.expires))
    problems.push({field: 'expires', message: `expires must be one of ${KEY_EXPIRY_CHOICES.join(', ')}`});
  if (problems.length > 0) throw new OperationError('invalid_request', problems[0]?.message ?? '', problems);
  try {
    const now = ctx.clock.now();
    const {key, secret} = await ctx.repos.keys.create({
      orgId: input.orgId,
      name,
      createdBy: input.createdBy,
      expires: input.expires as KeyExpiryChoice,
      now,
    });
    return {key: keyRecord(key, now), secret};
  } catch (err) {
    if (err instanceof LimitError) throw new OperationError('conflict', err.message);
    throw err;
  }
}

export async function revokeKey(
  ctx: EmulatorContext,
  input: {orgId: string; keyId: string},
): Promise<ApiKey> {
  const key = await ctx.repos.keys.revoke(input.keyId, ctx.clock.now(), input.orgId);
  if (!key) throw new OperationError('not_found', 'no API key with this id');
  ctx.auth.forget(key.id);
  return keyRecord(key, ctx.clock.now());
}

export async function listEndpoints(ctx: EmulatorContext, orgId: string): Promise<WebhookEndpoint[]> {
  return (await ctx.repos.endpoints.list(orgId)).map(endpointRecord);
}

export async function createEndpoint(
  ctx: EmulatorContext,
  input: {orgId: string; url: string; events: string[]; description: string | null},
): Promise<{endpoint: WebhookEndpoint; secret: string; warnings: string[]}> {
  const problems: {field: string; message: string}[] = [];
  const check = checkEndpointUrl(input.url, {allowLocal: ctx.allowLocalEndpoints});
  if (!check.ok) problems.push({field: 'url', message: check.reason});
  else if (!ctx.allowLocalEndpoints) {
    const resolved = await resolveAndCheck(check.url.hostname, ctx.lookup);
    if (!resolved.ok) problems.push({field: 'url', message: resolved.reason});
  }
  const known = new Set<string>(EVENT_TYPES);
  if (input.events.length === 0)
    problems.push({field: 'events', message: 'events must name at least one event type'});
  else if (input.events.some((e) => !known.has(e)))
    problems.push({field: 'events', message: `events must be among ${EVENT_TYPES.join(', ')}`});
  else if (new Set(input.events).size !== input.events.length)
    problems.push({field: 'events', message: 'an event type is listed twice'});
  const description = input.description;
  if (description !== null && description.length > MAX_ENDPOINT_DESCRIPTION_LENGTH)
    problems.push({
      field: 'description',
      message: `description must be at most ${MAX_ENDPOINT_DESCRIPTION_LENGTH} characters`,
    });
  else if (description !== null && CONTROL.test(description))
    problems.push({field: 'description', message: 'description must not contain control characters'});
  if (problems.length > 0) throw new OperationError('invalid_request', problems[0]?.message ?? '', problems);
  if (!ctx.vault.available)
    throw new OperationError(
      'vault_unavailable',
      'webhook endpoints need a vault key to store their signing secret',
    );
  const secret = newSigningSecret();
  try {
    const stored = await ctx.repos.endpoints.create({
      orgId: input.orgId,
      url: input.url,
      events: input.events,
      description,
      secretCiphertext: ctx.vault.encrypt(secret),
      now: ctx.clock.now(),
    });
    return {endpoint: endpointRecord(stored), secret, warnings: []};
  } catch (err) {
    if (err instanceof LimitError) throw new OperationError('conflict', err.message);
    throw err;
  }
}

export async function deleteEndpoint(
  ctx: EmulatorContext,
  input: {orgId: string; endpointId: string},
): Promise<void> {
  if (!(await ctx.repos.endpoints.delete(input.endpointId, input.orgId)))
    throw new OperationError('not_found', 'no webhook endpoint with this id');
}

export async function listDeliveries(
  ctx: EmulatorContext,
  input: {orgId: string; endpointId: string},
): Promise<Delivery[]> {
  const endpoint = await ctx.repos.endpoints.get(input.orgId, input.endpointId);
  if (!endpoint) throw new OperationError('not_found', 'no webhook endpoint with this id');
  return ctx.repos.deliveries.listForEndpoint(endpoint.id, ctx.clock.now());
}
