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
  /** The endpoints with chaos on now. */
  readonly chaos: Set<string>;
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

/**
 * Waits until what is due now in the org has been attempted and recorded. Each due delivery is waited for on its
 * own (a pushed wait of the emulator), so orgs running side by side do not wait for each other's attempts; with
 * chaos on (a duplicate follows its attempt), or with nothing to name (an expiry's event not made yet), the
 * emulator's settle, which waits for everything due.
 */
async function settleDue(world: World, due: readonly Delivery[], whole: boolean): Promise<void> {
  if (whole || world.chaos.size > 0) {
    await world.control.advanceClock('0ms', {org: world.orgId, settle: true});
    return;
  }
  await Promise.all(
    due.map((d) => world.control.waitForDelivery({delivery_id: d.id, attempts: d.attempts + 1})),
  );
}

/** Sets the org's clock and waits for what that makes due; `due`: the deliveries it makes due, when known. */
export async function setOrgClock(world: World, ms: number, due?: readonly Delivery[]): Promise<void> {
  await world.control.setClock(new Date(ms).toISOString(), {org: world.orgId});
  await settleDue(world, due ?? [], due === undefined);
}

/** Waits for the first attempts of what is due now (a trigger's, a sandbox move's). */
export async function settleNow(world: World): Promise<void> {
  const now = await orgNow(world);
  const due = (await pendingOf(world)).filter((d) => Date.parse(d.next_attempt_at ?? '') <= now);
  await settleDue(world, due, false);
}

/** The pending deliveries of every endpoint of the scenario. */
async function pendingOf(world: World, lists: DeliveryLists = readLists(world)): Promise<Delivery[]> {
  const all = await Promise.all([...world.endpoints.keys()].map(lists));
  return all.flat().filter((d) => d.status === 'pending' && d.next_attempt_at);
}

/** Every delivery of an endpoint (the API's most recent), newest first. */
export function deliveriesOf(world: World, endpoint: string): Promise<Delivery[]> {
  return world.client.listDeliveries(endpointId(world, endpoint));
}

/** An endpoint's deliveries, by its name in the file. */
export type DeliveryLists = (endpoint: string) => Promise<Delivery[]>;

/**
 * Lists read once for one look at the org: asked twice for an endpoint's deliveries (whether it is done, then
 * what is due next), the look makes one request. Many runs side by side share one emulator.
 */
export function readLists(world: World): DeliveryLists {
  const read = new Map<string, Promise<Delivery[]>>();
  return (endpoint) => {
    let list = read.get(endpoint);
    if (!list) {
      list = deliveriesOf(world, endpoint);
      read.set(endpoint, list);
    }
    return list;
  };
}

export function endpointId(world: World, endpoint: string): string {
  const found = world.endpoints.get(endpoint);
  if (!found) throw new Error(`no endpoint ${endpoint}`);
  return found.id;
}

/**
 * Moves the org's clock to `target` as time would pass: to each attempt or expiry due before it in turn, so each
 * is made at its own time (and retries it schedules fall inside the move too). With no target, until nothing is
 * left due. Stops early once `done` says so (looked at before each stop).
 */
export async function passTime(
  world: World,
  target: number | undefined,
  done?: (lists: DeliveryLists) => Promise<boolean>,
): Promise<void> {
  let now = await orgNow(world);
  for (;;) {
    const lists = readLists(world);
    if (done && (await done(lists))) return;
    const pending = await pendingOf(world, lists);
    const attempts = pending.map((d) => Date.parse(d.next_attempt_at as string)).filter((t) => t > now);
    const expiries =
      target === undefined
        ? []
        : (await world.control.listSandboxes(world.orgId)).data
            .map((s) => (s.expires_at ? Date.parse(s.expires_at) : Number.NaN))
            .filter((t) => t > now);
    const next = Math.min(...attempts, ...expiries);
    if (!Number.isFinite(next) || (target !== undefined && next > target)) {
      if (target !== undefined && target > now)
        await world.control.setClock(new Date(target).toISOString(), {org: world.orgId});
      return;
    }
    const due = pending.filter((d) => Date.parse(d.next_attempt_at as string) === next);
    await setOrgClock(world, next, expiries.includes(next) ? undefined : due);
    now = next;
  }
}

/** The delivery to an endpoint of the event a selector means: a named event, the first of a type, or the first. */
export async function findDelivery(
  world: World,
  endpoint: string,
  selector: EventSelector,
  lists: DeliveryLists = (e) => deliveriesOf(world, e),
): Promise<Delivery | undefined> {
  // Oldest first: "the first of a type" is the first that happened.
  const all = (await lists(endpoint)).slice().reverse();
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
