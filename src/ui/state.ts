// What the state commands tell people: what a seed or snapshot load added, and the secrets the emulator made
// for it (shown this once).
import type {SeedLoadResult, SnapshotLoadResult, StateLoadResult} from '../../emulator/control-client.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function renderLoad(source: string, r: StateLoadResult): string {
  return r.kind === 'snapshot' ? renderSnapshotLoad(source, r) : renderSeedLoad(source, r);
}

function renderSnapshotLoad(source: string, r: SnapshotLoadResult): string {
  const lines = [
    `Loaded the snapshot ${source}: ${plural(r.rows.orgs, 'org')}, ${plural(r.rows.api_keys, 'API key')}, ` +
      `${plural(r.rows.webhook_endpoints, 'webhook endpoint')}, ${plural(r.rows.sandboxes, 'sandbox')}, ` +
      `${plural(r.rows.events, 'event')}, ${plural(r.rows.deliveries, 'delivery')}`.replace(
        'deliverys',
        'deliveries',
      ) +
      '; no event was fired.',
    `Default org: ${r.default_org_id}`,
    r.clock === 'set'
      ? "Clock: set to the snapshot's time."
      : "Clock: kept (this emulator's clock is real, or the snapshot was merged).",
  ];
  return `${lines.join('\n')}\n`;
}

function renderSeedLoad(source: string, r: SeedLoadResult): string {
  const count = (pick: (o: SeedLoadResult['orgs'][number]) => unknown[]) =>
    r.orgs.reduce((n, o) => n + pick(o).length, 0);
  const lines = [
    `Loaded ${source}: ${plural(r.orgs.length, 'org')}, ${plural(
      count((o) => o.people),
      'person',
    )}, ` +
      `${plural(
        count((o) => o.keys),
        'API key',
      )}, ${plural(
        count((o) => o.webhooks),
        'webhook endpoint',
      )}, ` +
      `${plural(
        count((o) => o.sandboxes),
        'sandbox',
      )}; no event was fired.`,
    `Default org: ${r.default_org_id}`,
  ];
  const made: string[] = [];
  for (const org of r.orgs) {
    for (const key of org.keys) if (key.secret) made.push(`  key ${key.id} (${key.name}): ${key.secret}`);
    for (const hook of org.webhooks)
      if (hook.secret) made.push(`  endpoint ${hook.id} (${hook.url}): ${hook.secret}`);
  }
  if (made.length > 0) lines.push('Secrets the file left to the emulator (shown once, keep them):', ...made);
  for (const warning of r.warnings) lines.push(`warning: ${warning}`);
  return `${lines.join('\n')}\n`;
}
