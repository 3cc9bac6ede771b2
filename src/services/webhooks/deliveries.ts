// `svc webhooks deliveries`: recent deliveries to one endpoint, once or re-polled until stopped (the watch keeps
// what it saw last and reports only what moved).
import {idShapeText} from '../../definitions.js';
import {isWebhookId, type SvcClient, ApiError, NetworkError, RateLimitedError} from '@svc/client';
import {usageError} from '../../lib/errors.js';
import type {EventType} from '../../definitions.js';
import type {Delivery, DeliveryStatus} from '../../schemas/index.js';

export interface ListDeliveriesOptions {
  client: SvcClient;
  webhookId: string;
  /** The API has no filter (spec: query parameters not shown), so this one is applied here. */
  status?: DeliveryStatus;
  /** Likewise applied here, to the deliveries the API returns. */
  eventType?: EventType;
  signal?: AbortSignal;
}

export function checkWebhookId(webhookId: string): void {
  if (!isWebhookId(webhookId)) {
    throw usageError(`that is not a webhook endpoint id (they look like ${idShapeText('webhookEndpoint')})`, [
      'List the endpoints and their ids with `svc webhooks list`',
    ]);
  }
}

export interface DeliveryList {
  deliveries: Delivery[];
  /** How many the endpoint has before the filters: an empty filtered list then says why it is empty. */
  total: number;
}

export async function listDeliveries(options: ListDeliveriesOptions): Promise<DeliveryList> {
  checkWebhookId(options.webhookId);
  const all = await options.client.listDeliveries(options.webhookId, {signal: options.signal});
  const deliveries = all.filter(
    (d) =>
      (!options.status || d.status === options.status) &&
      (!options.eventType || d.event_type === options.eventType),
  );
  return {deliveries, total: all.length};
}

/** What a watch reports, poll by poll; the command shows each as it comes. */
export type WatchProgress =
  /** The first poll that answered: what is there, each delivery also as a `new` change (oldest first). */
  | ({kind: 'start'; changes: DeliveryChange[]} & DeliveryList)
  /** A later poll: the deliveries that are new or whose state moved since the last answer (maybe none). */
  | {kind: 'changes'; changes: DeliveryChange[]}
  /** A poll failed in a way worth retrying: said once per spell of trouble, the polls go on. */
  | {kind: 'trouble'; error: ApiError}
  /** The first answer after trouble. */
  | {kind: 'recovered'};

export interface WatchDeliveriesOptions extends ListDeliveriesOptions {
  intervalMs: number;
  signal: AbortSignal;
  onProgress: (progress: WatchProgress) => void;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * Polls until the signal aborts, keeping what the last answer held so that each poll reports only what moved.
 * Passing trouble (network, rate limit, 5xx) is reported once and retried; anything else ends the watch.
 */
export async function watchDeliveries(options: WatchDeliveriesOptions): Promise<void> {
  checkWebhookId(options.webhookId);
  const {realSleep} = await import('@svc/client');
  const sleep = options.sleep ?? realSleep;
  let seen: Map<string, Delivery> | undefined;
  let failing = false;
  while (!options.signal.aborted) {
    let list: DeliveryList | undefined;
    try {
      list = await listDeliveries(options);
    } catch (err) {
      if (options.signal.aborted) return;
      if (!isPassing(err)) throw err;
      if (!failing) options.onProgress({kind: 'trouble', error: err as ApiError});
      failing = true;
    }
    if (list) {
      if (failing) options.onProgress({kind: 'recovered'});
      failing = false;
      const changes = deliveryChanges(seen ?? new Map(), list.deliveries);
      options.onProgress(seen ? {kind: 'changes', changes} : {kind: 'start', changes, ...list});
      seen = new Map(list.deliveries.map((d) => [d.id, d]));
    }
    try {
      await sleep(options.intervalMs, options.signal);
    } catch {
      return; // aborted while waiting: a normal end
    }
  }
}

export interface DeliveryChange {
  change: 'new' | 'updated';
  delivery: Delivery;
}

/** What differs between two polls, oldest first: deliveries not seen before, and those whose state moved. */
export function deliveryChanges(
  before: ReadonlyMap<string, Delivery>,
  now: readonly Delivery[],
): DeliveryChange[] {
  const changes: DeliveryChange[] = [];
  for (const d of [...now].reverse()) {
    const old = before.get(d.id);
    if (!old) changes.push({change: 'new', delivery: d});
    else if (
      old.status !== d.status ||
      old.attempts !== d.attempts ||
      old.last_status_code !== d.last_status_code ||
      old.last_attempt_at !== d.last_attempt_at ||
      old.next_attempt_at !== d.next_attempt_at
    )
      changes.push({change: 'updated', delivery: d});
  }
  return changes;
}

export function isPassing(err: unknown): boolean {
  return (
    err instanceof NetworkError ||
    err instanceof RateLimitedError ||
    (err instanceof ApiError &&
      err.status !== undefined &&
      err.status >= 500 &&
      err.code !== 'vault_unavailable')
  );
}
