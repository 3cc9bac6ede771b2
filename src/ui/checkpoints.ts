// What `svc emulator orgs checkpoint|rewind|checkpoints` tell people: what a checkpoint holds, what a rewind did
// (and did not: a real or scaled clock cannot go back), and an org's checkpoints as a table.
import type {Checkpoint, RewoundCheckpoint} from '../schemas/checkpoints.js';
import {renderTable} from './table.js';

/** `3 deliveries (5 attempts), 4 events, 1 key, 1 endpoint, 2 sandboxes; its time 2030-01-01T00:00:30.000Z`. */
export function checkpointSummary(c: Checkpoint): string {
  const n = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
  const k = c.counts;
  return [
    `${n(k.deliveries, 'delivery', 'deliveries')} (${n(k.delivery_attempts, 'attempt')})`,
    n(k.events, 'event'),
    n(k.api_keys, 'key'),
    n(k.webhook_endpoints, 'endpoint'),
    n(k.sandboxes, 'sandbox', 'sandboxes'),
  ]
    .join(', ')
    .concat(`; its time ${c.clock_now}`);
}

export function rewoundText(r: RewoundCheckpoint): string {
  const lines = [`Rewound ${r.org_id} to ${r.name}: ${checkpointSummary(r)}.`];
  if (!r.clock_restored) {
    lines.push(
      `Its clock was not moved back: only a manual clock can be (svc emulator start --clock manual); deliveries due by now are attempted at once.`,
    );
  }
  if (r.cancelled.endpoints.length > 0) {
    lines.push(`Cancelled the attempts in flight to ${r.cancelled.endpoints.join(', ')}; none was recorded.`);
  }
  return `${lines.join('\n')}\n`;
}

export function checkpointsText(list: readonly Checkpoint[], orgId: string): string {
  if (list.length === 0) {
    return `${orgId} has no checkpoints; take one with svc emulator orgs checkpoint ${orgId} NAME.\n`;
  }
  return renderTable(
    [
      {header: 'NAME', value: (c) => c.name},
      {header: 'ORG TIME', value: (c) => c.clock_now},
      {header: 'TAKEN AT', value: (c) => c.taken_at},
      {header: 'DELIVERIES', value: (c) => String(c.counts.deliveries)},
      {header: 'EVENTS', value: (c) => String(c.counts.events)},
    ],
    [...list],
  );
}
