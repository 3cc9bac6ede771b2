// Bulk recovery: every failed delivery of an org (of one endpoint, created within a time) resent in one call,
// each by the one resend operation, so a bulk resend counts and records attempts exactly as a single one does.
import {isId, RETENTION_MS} from '../../definitions.js';
import type {ResendFailedResult} from '../../schemas/emulator.js';
import {parseDuration} from '../clock.js';
import {type EmulatorContext, orgNow} from '../context.js';
import type {Attempter} from '../delivery/attempter.js';
import {notFound, vaultUnavailable} from '../operation-error.js';
import {resendDelivery} from './resend.js';
import {Problems} from './validate.js';

export interface ResendFailedInput {
  orgId: string;
  /** Only deliveries to this endpoint of the org. */
  endpointId?: unknown;
  /** Only deliveries created within this duration of the org clock's now (`90m`, `1d`). */
  since?: unknown;
  attempter: Attempter;
}

export async function resendFailedDeliveries(
  ctx: EmulatorContext,
  input: ResendFailedInput,
): Promise<ResendFailedResult> {
  const problems = new Problems();
  if (input.endpointId !== undefined && typeof input.endpointId !== 'string') {
    problems.add('webhook_id', 'must be a string');
  }
  let sinceMs: number | undefined;
  if (input.since !== undefined) {
    sinceMs = typeof input.since === 'string' ? parseDuration(input.since) : undefined;
    if (sinceMs === undefined) problems.add('since', 'must be a duration like 90s, 10m, 3h or 7d');
  }
  problems.throwIfAny();
  if (!isId('org', input.orgId)) throw notFound('no org with this id');
  if (!ctx.vault.available) {
    throw vaultUnavailable('resending needs the vault key to read the endpoint signing secrets');
  }
  const endpoints = await ctx.repos.endpoints.list(input.orgId);
  const endpointId = input.endpointId as string | undefined;
  if (endpointId !== undefined && !endpoints.some((e) => e.id === endpointId)) {
    throw notFound('no webhook endpoint with this id');
  }
  const now = orgNow(ctx, input.orgId).getTime();
  const since = new Date(now - Math.min(sinceMs ?? RETENTION_MS, RETENTION_MS));
  const ids = await ctx.repos.deliveries.failedSince(
    endpointId ? [endpointId] : endpoints.map((e) => e.id),
    since,
  );
  const resent: string[] = [];
  for (const deliveryId of ids) {
    try {
      await resendDelivery(ctx, {deliveryId, attempter: input.attempter});
      resent.push(deliveryId);
    } catch (err) {
      // Gone meanwhile (retention, the endpoint deleted): nothing left to recover.
      if ((err as {code?: string}).code !== 'not_found') throw err;
    }
  }
  return {resent: resent.length, deliveries: resent};
}
