// What `svc trigger` says: what was emitted, for which sandbox, how many deliveries, and what to do next.
import type {SandboxMove} from '../schemas/emulator.js';
import {dataDirArg, FORWARD_EXAMPLE} from '../lib/hints.js';
import {sanitize} from './text.js';

/**
 * One line for a person: what was emitted, for which sandbox, and how many endpoints will receive it. The sandbox
 * is the one the emulator has (its own name and state); where the delivered body says otherwise (`trigger --set`
 * shapes the body only), what it says is named too, so neither is taken for the other.
 */
export function describeMove(move: SandboxMove): string {
  const s = move.sandbox;
  const what = move.event ? `${move.event.type} [${move.event.id}]` : 'no event';
  const deliveries = move.deliveries === 1 ? '1 delivery' : `${move.deliveries} deliveries`;
  const body = bodyDiffers(move);
  const delivered = body.length > 0 ? `, delivered with ${body.join(', ')} in its body` : '';
  return `${what} for ${sanitize(s.name)} (${s.id}, ${s.status})${delivered}; ${deliveries} queued`;
}

/** The delivered body's sandbox fields that differ from the sandbox itself, as `data.sandbox.name "web"`. */
function bodyDiffers(move: SandboxMove): string[] {
  const inBody = (move.event?.data as {sandbox?: Record<string, unknown>} | undefined)?.sandbox;
  if (!inBody) return [];
  const record = move.sandbox as unknown as Record<string, unknown>;
  return Object.entries(inBody)
    .filter(([field, value]) => field !== 'id' && JSON.stringify(value) !== JSON.stringify(record[field]))
    .map(([field, value]) => `data.sandbox.${field} ${sanitize(JSON.stringify(value) ?? 'absent')}`);
}

/** Where the event goes from here; nothing when no event was emitted. */
export function triggerHint(move: SandboxMove, o: {svc: string; dataDir?: string}): string | undefined {
  if (!move.event) return undefined;
  if (move.deliveries === 0) {
    return `No endpoint receives ${move.event.type} yet. Relay events to a local server: ${o.svc} listen --forward-to ${FORWARD_EXAMPLE}${dataDirArg(o.dataDir)}`;
  }
  return `Follow them: \`${o.svc} webhooks list\` shows each endpoint's id for \`${o.svc} webhooks deliveries ID\``;
}
