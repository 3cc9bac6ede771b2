// Deliveries as people and API keys read them: the most recent to one endpoint, newest first; and how each
// endpoint's recent deliveries are going, for every endpoint of an org at once.
import {DELIVERY_STATUSES, type DeliveryStatus, isId} from '../../definitions.js';
import type {EndpointHealth} from '../../schemas/emulator.js';
import type {Delivery} from '../../schemas/index.js';
import {type EmulatorContext, orgNow} from '../context.js';
import {notFound, vaultUnavailable} from '../operation-error.js';
import {oneOf, Problems} from './validate.js';

export interface ListDeliveriesInput {
  orgId: string;
  endpointId: string;
  /** Only deliveries in this state. */
  status?: unknown;
}

/**
 * The 100 most recent deliveries to an endpoint of the org, within retention. An endpoint of another org is
 * answered like an unknown one; a deployment without a vault key answers 503, as the service does.
 */
export async function listDeliveries(ctx: EmulatorContext, input: ListDeliveriesInput): Promise<Delivery[]> {
  if (!ctx.vault.available) {
    throw vaultUnavailable('deliveries cannot be listed: this deployment has no vault key');
  }
  let status: DeliveryStatus | undefined;
  if (input.status !== undefined) {
    const problems = new Problems();
    status = oneOf(problems, 'status', input.status, DELIVERY_STATUSES);
    problems.throwIfAny();
  }
  // The org's endpoint list is usually in the read cache (kept current by every write, in every process).
  const endpoint = isId('webhookEndpoint', input.endpointId)
    ? (await ctx.repos.endpoints.list(input.orgId)).find((e) => e.id === input.endpointId)
    : undefined;
  if (!endpoint) throw notFound('no webhook endpoint with this id');
  return ctx.repos.deliveries.listForEndpoint(endpoint.id, orgNow(ctx, input.orgId), status);
}

/** How the recent deliveries of each endpoint of the org are going, in the order the org's endpoints are listed. */
export async function endpointHealth(
  ctx: EmulatorContext,
  input: {orgId: string},
): Promise<EndpointHealth[]> {
  const endpoints = await ctx.repos.endpoints.list(input.orgId);
  return ctx.repos.deliveries.healthOfEndpoints(
    endpoints.map((e) => e.id),
    orgNow(ctx, input.orgId),
  );
}
