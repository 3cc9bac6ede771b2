// What `svc trigger` says: what was emitted, for which sandbox, how many deliveries, and what to do next.
import type {SandboxMove} from '../schemas/emulator.js';
import {dataDirArg, FORWARD_EXAMPLE} from '../lib/hints.js';
import {sanitize} from './text.js';

/** One line for a person: what was emitted, for which sandbox, and how many endpoints will receive it. */
export function describeMove(move: SandboxMove): string {
  const s = move.sandbox;
  const what = move.event ? `${move.event.type} [${move.event.id}]` : 'no event';
  const deliveries = move.deliveries === 1 ? '1 delivery' : `${move.deliveries} deliveries`;
  return `${what} for ${sanitize(s.name)} (${s.id}, ${s.status}); ${deliveries} queued`;
}

/** Where the event goes from here; nothing when no event was emitted. */
export function triggerHint(move: SandboxMove, o: {svc: string; dataDir?: string}): string | undefined {
  if (!move.event) return undefined;
  if (move.deliveries === 0) {
    return `No endpoint receives ${move.event.type} yet. Relay events to a local server: ${o.svc} listen --forward-to ${FORWARD_EXAMPLE}${dataDirArg(o.dataDir)}`;
  }
  return `Follow them: \`${o.svc} webhooks list\` shows each endpoint's id for \`${o.svc} webhooks deliveries ID\``;
}
