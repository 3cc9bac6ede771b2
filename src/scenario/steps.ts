// The actions of a scenario, each done through the org's control client (or the stand-in): one function per
// step kind, named as the file names them.
import type {EventType} from '../definitions.js';
import {parseDuration} from '../schemas/duration.js';
import type {SandboxMove} from '../schemas/emulator.js';
import {attemptSet} from './stand-in.js';
import type {EventSelector, Step} from './types.js';
import {
  endpointId,
  findDelivery,
  orgNow,
  passTime,
  selectorText,
  setOrgClock,
  settleNow,
  type World,
} from './world.js';

/** A step the emulator could not do, said as the scenario's failure. */
export class StepError extends Error {}

type Action = Exclude<Step, {expect: unknown}>;

function remember(world: World, as: string | undefined, move: SandboxMove): void {
  if (as !== undefined && move.event) {
    world.events.set(as, {id: move.event.id, type: move.event.type, sandboxId: move.sandbox.id});
  }
}

function sandboxId(world: World, name: string | undefined): string | undefined {
  return name === undefined ? undefined : world.sandboxes.get(name);
}

async function deliveryId(world: World, endpoint: string, selector: EventSelector): Promise<string> {
  const d = await findDelivery(world, endpoint, selector);
  if (!d) throw new StepError(`there is no delivery of ${selectorText(selector)} to ${endpoint} to resend`);
  return d.id;
}

/** Does one action. */
export async function doStep(world: World, step: Action): Promise<void> {
  const {control, orgId} = world;
  if ('trigger' in step) {
    const t = typeof step.trigger === 'string' ? {type: step.trigger} : step.trigger;
    const set =
      'set' in t && t.set ? Object.entries(t.set).map(([path, value]) => ({path, value})) : undefined;
    const move = await control.trigger({
      type: t.type as EventType,
      org_id: orgId,
      sandbox_id: sandboxId(world, 'sandbox' in t ? t.sandbox : undefined),
      last_error: 'last_error' in t ? t.last_error : undefined,
      set,
    });
    remember(world, 'as' in t ? t.as : undefined, move);
    await settleNow(world);
  } else if ('advance' in step) {
    await passTime(world, (await orgNow(world)) + (parseDuration(step.advance) as number));
  } else if ('set_clock' in step) {
    const to = Date.parse(step.set_clock);
    // Forward as time passes; back at once (nothing is due in the past).
    if (to > (await orgNow(world))) await passTime(world, to);
    else await setOrgClock(world, to, []);
  } else if ('chaos' in step) {
    const {endpoint, off, ...given} = step.chaos;
    if (off) world.chaos.delete(endpoint);
    else world.chaos.add(endpoint);
    await control.setChaos(
      endpointId(world, endpoint),
      off ? null : {duplicate: 0, reorder: 0, delay_min_ms: 0, delay_max_ms: 0, seed: 1, ...given},
    );
  } else if ('answer' in step) {
    const a = step.answer;
    world.standIn.answer(a.endpoint, {attempts: attemptSet(a.attempts), status: a.status, body: a.body});
  } else if ('resend' in step) {
    await control.resendDelivery(await deliveryId(world, step.resend.endpoint, step.resend));
  } else if ('create_key' in step) {
    const key = await control.createKey({
      name: step.create_key.name,
      expires: step.create_key.expires,
      org_id: orgId,
    });
    world.keys.set(step.create_key.name, key.id);
  } else if ('revoke_key' in step) {
    await control.revokeKey(world.keys.get(step.revoke_key) as string);
  } else if ('create_sandbox' in step) {
    const s = step.create_sandbox;
    const move = await control.createSandbox({name: s.name ?? s.as, expires_in: s.expires_in, org_id: orgId});
    world.sandboxes.set(s.as, move.sandbox.id);
    await settleNow(world);
  } else if ('sandbox' in step) {
    const s = step.sandbox;
    const move = await control.sandboxAction(world.sandboxes.get(s.sandbox) as string, s.action, {
      last_error: s.last_error,
      org_id: orgId,
    });
    remember(world, s.as, move);
    await settleNow(world);
  } else if ('checkpoint' in step) {
    await world.checkpoints.checkpoint(step.checkpoint);
  } else if ('rewind' in step) {
    await world.checkpoints.rewind(step.rewind);
  }
}

/** A step in words, for a failure that names it. */
export function stepText(step: Step): string {
  const [kind, body] = Object.entries(step)[0] as [string, unknown];
  return typeof body === 'string' ? `${kind}: ${body}` : kind;
}
