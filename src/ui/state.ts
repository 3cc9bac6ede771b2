// What the state commands tell people: what a seed or snapshot load added, and the secrets the emulator made
// for it (shown this once).
import type {SeedLoadResult, SnapshotLoadResult, StateLoadResult} from '../schemas/emulator.js';

const NOUNS = {
  org: ['org', 'orgs'],
  person: ['person', 'people'],
  key: ['API key', 'API keys'],
  endpoint: ['webhook endpoint', 'webhook endpoints'],
  sandbox: ['sandbox', 'sandboxes'],
  link: ['sandbox link', 'sandbox links'],
  event: ['event', 'events'],
  delivery: ['delivery', 'deliveries'],
} as const;

const counted = (n: number, noun: keyof typeof NOUNS) => `${n} ${NOUNS[noun][n === 1 ? 0 : 1]}`;

/** What a snapshot holds, its sandbox links (port sessions, desktop links, browser URLs) included. */
function snapshotParts(rows: SnapshotLoadResult['rows']): string[] {
  return [
    counted(rows.orgs, 'org'),
    counted(rows.api_keys, 'key'),
    counted(rows.webhook_endpoints, 'endpoint'),
    counted(rows.sandboxes, 'sandbox'),
    counted(rows.sandbox_links, 'link'),
    counted(rows.events, 'event'),
    counted(rows.deliveries, 'delivery'),
  ];
}

export function renderLoad(source: string, r: StateLoadResult): string {
  return r.kind === 'snapshot' ? renderSnapshotLoad(source, r) : renderSeedLoad(source, r);
}

function renderSnapshotLoad(source: string, r: SnapshotLoadResult): string {
  const parts = snapshotParts(r.rows);
  const lines = [
    `Loaded the snapshot ${source}: ${parts.join(', ')}; no event was fired.`,
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
  const parts = [
    counted(r.orgs.length, 'org'),
    counted(
      count((o) => o.people),
      'person',
    ),
    counted(
      count((o) => o.keys),
      'key',
    ),
    counted(
      count((o) => o.webhooks),
      'endpoint',
    ),
    counted(
      count((o) => o.sandboxes),
      'sandbox',
    ),
  ];
  const lines = [
    `Loaded ${source}: ${parts.join(', ')}; no event was fired.`,
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

/** What `svc emulator export --out` wrote. */
export function renderExport(file: string, rows: SnapshotLoadResult['rows'], source: string): string {
  const parts = snapshotParts(rows);
  return `Wrote ${file} from ${source} (owner-only: it holds signing secrets): ${parts.join(', ')}.\n`;
}
