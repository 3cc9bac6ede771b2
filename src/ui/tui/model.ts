// The browser's rules that need no terminal: filtering, a selection that follows its row, the visible window,
// and how long to wait before the next refresh.
import type {Delivery, WebhookEndpoint} from '../../schemas/index.js';

/** Case-insensitive match of every word of the filter somewhere in the row's fields. */
export function matchesFilter(fields: (string | null | undefined)[], filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text = fields
    .filter((f): f is string => typeof f === 'string')
    .join(' ')
    .toLowerCase();
  return words.every((w) => text.includes(w));
}

/** Deliveries by event type, status, event id or delivery id. */
export function filterDeliveries(deliveries: readonly Delivery[], filter: string): Delivery[] {
  return deliveries.filter((d) => matchesFilter([d.event_type, d.status, d.event_id, d.id], filter));
}

export function filterEndpoints(endpoints: readonly WebhookEndpoint[], filter: string): WebhookEndpoint[] {
  return endpoints.filter((e) => matchesFilter([e.id, e.url, e.description, e.events.join(' ')], filter));
}

/**
 * The row to select after the list changed: the same id wherever it moved to; when it is gone, the row now at
 * its old place (clamped); with no selection yet, the first row.
 */
export function keepSelection(
  ids: readonly string[],
  selectedId: string | undefined,
  previousIndex: number,
): string | undefined {
  if (ids.length === 0) return selectedId;
  if (selectedId !== undefined && ids.includes(selectedId)) return selectedId;
  if (selectedId === undefined) return ids[0];
  return ids[Math.min(Math.max(previousIndex, 0), ids.length - 1)];
}

/** The first row to show so that `selected` stays in a window of `height` rows, moving as little as possible. */
export function scrollTop(selected: number, height: number, currentTop: number, total: number): number {
  if (height <= 0 || total <= height) return 0;
  let top = currentTop;
  if (selected < top) top = selected;
  if (selected >= top + height) top = selected - height + 1;
  return Math.min(Math.max(top, 0), total - height);
}

export interface Backoff {
  /** Wait after a refresh that changed something (or the first one). */
  minMs: number;
  /** Longest wait while nothing changes. */
  idleMaxMs: number;
  /** Longest wait while refreshes fail. */
  errorMaxMs: number;
}

export const LIVE_BACKOFF: Backoff = {minMs: 1_000, idleMaxMs: 8_000, errorMaxMs: 15_000};

/** The wait before the next refresh: short after a change, growing while nothing happens, longer on errors. */
export function nextDelay(
  previousMs: number,
  outcome: 'changed' | 'same' | 'failed',
  b: Backoff = LIVE_BACKOFF,
): number {
  if (outcome === 'changed') return b.minMs;
  if (outcome === 'same') return Math.min(Math.max(previousMs, b.minMs) * 1.5, b.idleMaxMs);
  return Math.min(Math.max(previousMs, b.minMs) * 2, b.errorMaxMs);
}
