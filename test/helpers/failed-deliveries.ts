// Many failed deliveries at once, as a bulk resend meets them: a snapshot loaded into a running emulator adds an
// org with one endpoint, and events with their deliveries, each failed after the nine scheduled attempts, without
// walking a schedule per delivery. Through the control surface's import, as a user's snapshot would come.
import {randomBytes} from 'node:crypto';
import type {EmulatorControl} from '../../src/client/emulator-control.js';

/** Ids of the shape the service uses: the prefix and 24 base62 characters, unique per run and number. */
function idOf(prefix: string, run: string, n: number): string {
  return `${prefix}_${run}${String(n).padStart(24 - run.length, '0')}`;
}

export interface FailedOrg {
  orgId: string;
  endpointId: string;
  /** The failed deliveries, oldest first. */
  ids: string[];
}

/**
 * A new org whose one endpoint (at `url`, subscribed to sandbox.ready) has `count` failed deliveries, created a
 * second apart (oldest first) and ending a minute before the emulator's now. Merged beside what the emulator
 * holds; with `replace`, in place of it all, the org becoming the default org.
 */
export async function seedFailedDeliveries(
  control: EmulatorControl,
  o: {url: string; count: number; replace?: boolean},
): Promise<FailedOrg> {
  const state = await control.exportState();
  const nowMs = Date.parse(state.clock.now);
  // Letters only, so ids of different runs never share a prefix with the zero-padded numbers.
  const run = Array.from({length: 6}, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join(
    '',
  );
  const orgId = idOf('org', run, 0);
  const endpointId = idOf('we', run, 0);
  const created = new Date(nowMs - 60_000 - (o.count + 1) * 1000).toISOString();
  const events = [];
  const deliveries = [];
  for (let i = 0; i < o.count; i++) {
    const createdAt = new Date(nowMs - 60_000 - (o.count - i) * 1000).toISOString();
    const eventId = idOf('evt', run, i);
    const body = {
      id: eventId,
      type: 'sandbox.ready',
      created_at: createdAt,
      org_id: orgId,
      data: {sandbox: {id: idOf('sbx', run, i), name: 'bulk', status: 'running', desired_state: 'running'}},
    };
    events.push({
      id: eventId,
      org_id: orgId,
      type: 'sandbox.ready' as const,
      created_at: createdAt,
      body: JSON.stringify(body),
    });
    deliveries.push({
      id: idOf('dlv', run, i),
      org_id: orgId,
      event_id: eventId,
      endpoint_id: endpointId,
      event_type: 'sandbox.ready' as const,
      status: 'failed' as const,
      attempts: 9,
      manual_attempts: 0,
      created_at: createdAt,
      last_attempt_at: createdAt,
      next_attempt_at: null,
      last_status_code: 503,
    });
  }
  await control.importState({
    source: 'failed-deliveries.json',
    mode: o.replace ? 'replace' : 'merge',
    document: {
      ...state,
      default_org_id: orgId,
      org_clocks: [],
      orgs: [{id: orgId, name: `failing ${run}`, created_at: created}],
      persons: [],
      memberships: [],
      invitations: [],
      api_keys: [],
      webhook_endpoints: [
        {
          id: endpointId,
          org_id: orgId,
          url: o.url,
          events: ['sandbox.ready'],
          description: null,
          secret: `whsec_${randomBytes(32).toString('base64')}`,
          created_at: created,
        },
      ],
      relay_endpoints: [],
      sandboxes: [],
      sandbox_links: [],
      events,
      deliveries,
      delivery_attempts: [],
    },
  });
  return {orgId, endpointId, ids: deliveries.map((d) => d.id)};
}
