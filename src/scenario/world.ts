// What one scenario run holds while its steps run: its org's control client and API client, the names the file
// gave (events, sandboxes, keys), its endpoints, the stand-in, and time: moving the org's clock as time would
// pass, stopping at each attempt or expiry due on the way so each happens at its own virtual time.
import type {EmulatorControl, SvcClient} from '@svc/client';
import type {DeliveryDetail} from '../schemas/emulator.js';
import type {Delivery} from '../schemas/index.js';
import type {StandIn} from './stand-in.js';
import type {EventSelector} from './types.js';

export interface NamedEvent {
  id: string;
  type: string;
  sandboxId: string;
}

export interface World {
  readonly control: EmulatorControl;
  readonly orgId: string;
  readonly client: SvcClient;
  readonly standIn: StandIn;
  /** Endpoint names to their ids, and to their probe's address (when the file gives one). */
  readonly endpoints: Map<string, {id: string; probe?: URL}>;
  readonly events: Map<string, NamedEvent>;
  readonly sandboxes: Map<string, string>;
  readonly keys: Map<string, string>;
  readonly checkpoints: OrgCheckpoints;
}

/** Saving the org's state under a name and going back to it (the emulator's per-org checkpoints). */
export interface OrgCheckpoints {
  checkpoint(name: string): Promise<void>;
  rewind(name: string): Promise<void>;
}

/** The org's time now, in ms. */
export async function orgNow(world: World): Promise<number> {
  return Date.parse((await world.control.orgClock(world.orgId)).now);
}

/** Sets the org's clock, once what that makes due has been attempted and recorded. */
export async function setOrgClock(world: World, ms: number): Promise<void> {
  await world.control.setClock(new Date(ms).toISOString(), {org: world.orgId, settle: true});
}

/** Waits for what is due now (a trigger's first attempts) to be attempted and recorded. */
export async function settleNow(world: World): Promise<void> {
  await world.control.advanceClock('0ms', {org: world.orgId, settle: true});
}

/** Every delivery of an endpoint (the API's most recent), newest first. */
export function deliveriesOf(world: World, endpoint: string): Promise<Delivery[]> {
  return world.client.listDeliveries(endpointId(world, endpoint));
}

export function endpointId(world: World, endpoint: string): string {
  const found = world.endpoints.get(endpoint);
  if (!found) throw new Error(`no endpoint ${endpoint}`);
  return found.id;
}

/** The next time after `now` something is due in the org: an attempt (of these endpoints) or a sandbox's expiry. */
async function nextWake(
  world: World,
  now: number,
  endpoints: readonly string[],
  sandboxes: boolean,
): Promise<number | undefined> {
  const times: number[] = [];
  for (const endpoint of endpoints) {
    for (const d of await deliveriesOf(world, endpoint)) {
      if (d.status === 'pending' && d.next_attempt_at) times.push(Date.parse(d.next_attempt_at));
    }
  }
  if (sandboxes) {
    for (const s of await world.control.listSandboxes(world.orgId).then((l) => l.data)) {
      if (s.expires_at) times.push(Date.parse(s.expires_at));
    }
  }
  const later = times.filter((t) => t > now);
  return later.length ? Math.min(...later) : undefined;
}

/**
 * Moves the org's clock to `target` as time would pass: to each attempt or expiry due before it in turn, so each
 * is made at its own time (and retries it schedules fall inside the move too). With no target, until nothing is
 * left due. Stops early once `done` says so (looked at after each stop).
 */
export async function passTime(
  world: World,
  target: number | undefined,
  done?: () => Promise<boolean>,
): Promise<void> {
  const endpoints = [...world.endpoints.keys()];
  for (;;) {
    if (done && (await done())) return;
    const now = await orgNow(world);
    const next = await nextWake(world, now, endpoints, target !== undefined);
    if (next === undefined || (target !== undefined && next > target)) {
      if (target !== undefined && target > now) await setOrgClock(world, target);
      return;
    }
    await setOrgClock(world, next);
  }
}

/** The delivery to an endpoint of the event a selector means: a named event, the first of a type, or the first. */
export async function findDelivery(
  world: World,
  endpoint: string,
  selector: EventSelector,
): Promise<Delivery | undefined> {
  // Oldest first: "the first of a type" is the first that happened.
  const all = (await deliveriesOf(world, endpoint)).slice().reverse();
  if (selector.event !== undefined) {
    const id = world.events.get(selector.event)?.id;
    return all.find((d) => d.event_id === id);
  }
  const typed = selector.type === undefined ? all : all.filter((d) => d.event_type === selector.type);
  if (selector.sandbox === undefined) return typed[0];
  const sandboxId = world.sandboxes.get(selector.sandbox);
  for (const d of typed) {
    const detail = await detailOf(world, d);
    if ((detail.event.data.sandbox as {id?: string}).id === sandboxId) return d;
  }
  return undefined;
}

export function detailOf(world: World, delivery: Delivery): Promise<DeliveryDetail> {
  return world.control.delivery(delivery.id);
}

/** A selector in words, as expectations and failures name it: `first`, `the first sandbox.expired of box`. */
export function selectorText(selector: EventSelector): string {
  if (selector.event !== undefined) return selector.event;
  const of = selector.sandbox === undefined ? '' : ` of ${selector.sandbox}`;
  return selector.type === undefined ? `the first event${of}` : `the first ${selector.type}${of}`;
}
