// The expectations of a scenario, each checked against what the emulator recorded (and the receiver's probe):
// whether it holds, and when it does not, what happened instead. `attempt`, `arrives` and a final `delivery`
// state let time pass (as the schedule would) until what they name has happened or no longer can.
import {isTimedOutText} from '../deliver.js';
import {isSuccessStatus, type ScenarioAttemptOutcome} from '../definitions.js';
import {readProbe} from '../probe.js';
import {parseDuration} from '../schemas/duration.js';
import type {DeliveryAttempt} from '../schemas/emulator.js';
import type {Delivery} from '../schemas/index.js';
import type {Expectation} from './types.js';
import {
  type DeliveryLists,
  detailOf,
  findDelivery,
  orgNow,
  passTime,
  selectorText,
  type World,
} from './world.js';

export interface Verdict {
  passed: boolean;
  got?: string;
}

/** The words a scenario's report names an expectation by, when the file gives it no name. */
export function expectationName(e: Expectation): string {
  if (e.name) return e.name;
  if ('attempt' in e) {
    const a = e.attempt;
    const what =
      a.status !== undefined ? `is answered ${a.status}` : a.outcome ? `is ${a.outcome}` : 'is made';
    return `attempt ${a.n} of ${selectorText(a)} to ${a.endpoint} ${what}`;
  }
  if ('arrives' in e)
    return `${selectorText(e.arrives)} arrives at ${e.arrives.endpoint} within ${e.arrives.within}`;
  if ('delivery' in e) {
    const d = e.delivery;
    const parts = [
      d.status && `ends ${d.status}`,
      d.attempts !== undefined && `after ${plural(d.attempts, 'attempt')}`,
    ].filter(Boolean);
    return `the delivery of ${selectorText(d)} to ${d.endpoint} ${parts.join(' ') || 'exists'}`;
  }
  if ('count' in e) {
    const c = e.count;
    const counted =
      c.deliveries !== undefined
        ? plural(c.deliveries, 'delivery', 'deliveries')
        : plural(c.attempts as number, 'attempt');
    const which = [
      c.status,
      c.type ?? (c.event ? `of ${c.event}` : undefined),
      c.sandbox && `of ${c.sandbox}`,
    ]
      .filter(Boolean)
      .join(' ');
    return `${c.endpoint} has ${counted}${which ? ` (${which})` : ''}`;
  }
  if ('probe' in e)
    return `the receiver of ${e.probe.endpoint} applied ${selectorText(e.probe)} ${times(e.probe.applied)}`;
  return `the key ${e.key.name} is ${e.key.status}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const times = (n: number) => (n === 1 ? 'once' : `${n} times`);

/** An attempt's outcome, in the words expectations use. */
export function outcomeOf(a: DeliveryAttempt): ScenarioAttemptOutcome {
  if (a.status_code !== null) return isSuccessStatus(a.status_code) ? '2xx' : 'non-2xx';
  return a.error !== null && isTimedOutText(a.error) ? 'timeout' : 'no-answer';
}

/** An attempt as a report says it: `answered 500`, `timed out after 10000 ms`. */
function attemptText(a: DeliveryAttempt): string {
  return a.status_code !== null ? `answered ${a.status_code}` : (a.error ?? 'no answer');
}

function stateText(d: Delivery): string {
  const last = d.last_status_code === null ? '' : `, last answered ${d.last_status_code}`;
  return `${d.status} after ${plural(d.attempts, 'attempt')}${last}`;
}

/** A virtual duration in the file's own words: 2h30m, 45s. */
export function durationText(ms: number): string {
  const parts: string[] = [];
  let rest = Math.round(ms);
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join('') || '0s';
}

export async function check(world: World, e: Expectation): Promise<Verdict> {
  if ('attempt' in e) {
    const a = e.attempt;
    const find = (lists?: DeliveryLists) => findDelivery(world, a.endpoint, a, lists);
    await passTime(world, undefined, async (lists) => {
      const d = await find(lists);
      return d === undefined || d.status !== 'pending' || d.attempts >= a.n;
    });
    const d = await find();
    if (!d) return {passed: false, got: `no delivery of ${selectorText(a)} to ${a.endpoint}`};
    const made = (await detailOf(world, d)).attempts[a.n - 1];
    if (!made) return {passed: false, got: `attempt ${a.n} was never made: the delivery is ${stateText(d)}`};
    if (a.status !== undefined && made.status_code !== a.status) {
      return {passed: false, got: `attempt ${a.n} ${attemptText(made)}`};
    }
    if (a.outcome !== undefined && outcomeOf(made) !== a.outcome) {
      return {passed: false, got: `attempt ${a.n} was ${outcomeOf(made)} (${attemptText(made)})`};
    }
    return {passed: true};
  }
  if ('arrives' in e) {
    const a = e.arrives;
    const start = await orgNow(world);
    const by = start + (parseDuration(a.within) as number);
    const arrived = async (lists: DeliveryLists) =>
      (await findDelivery(world, a.endpoint, a, lists))?.status === 'succeeded';
    await passTime(world, by, arrived);
    const d = await findDelivery(world, a.endpoint, a);
    if (!d)
      return {passed: false, got: `nothing of ${selectorText(a)} reached ${a.endpoint} within ${a.within}`};
    if (d.status !== 'succeeded')
      return {passed: false, got: `not arrived after ${a.within}: ${stateText(d)}`};
    const at = Date.parse(d.last_attempt_at ?? '');
    if (at > by) return {passed: false, got: `arrived only after ${durationText(at - start)}`};
    return {passed: true};
  }
  if ('delivery' in e) {
    const x = e.delivery;
    const find = (lists?: DeliveryLists) => findDelivery(world, x.endpoint, x, lists);
    // A final state is waited for (the schedule run to its end); `pending` is what is there now.
    if (x.status !== undefined && x.status !== 'pending') {
      await passTime(world, undefined, async (lists) => (await find(lists))?.status !== 'pending');
    }
    const d = await find();
    if (!d) return {passed: false, got: `no delivery of ${selectorText(x)} to ${x.endpoint}`};
    const wrong =
      (x.status !== undefined && d.status !== x.status) ||
      (x.attempts !== undefined && d.attempts !== x.attempts);
    return wrong ? {passed: false, got: `the delivery is ${stateText(d)}`} : {passed: true};
  }
  if ('count' in e) {
    const c = e.count;
    let matching = (await world.client.listDeliveries(world.endpoints.get(c.endpoint)?.id as string)).filter(
      (d) =>
        (c.status === undefined || d.status === c.status) &&
        (c.type === undefined || d.event_type === c.type),
    );
    if (c.event !== undefined)
      matching = matching.filter((d) => d.event_id === world.events.get(c.event as string)?.id);
    if (c.sandbox !== undefined) {
      const only = await findDelivery(world, c.endpoint, {type: c.type, sandbox: c.sandbox});
      matching = matching.filter((d) => d.event_id === only?.event_id);
    }
    const [want, got, noun] =
      c.deliveries !== undefined
        ? [c.deliveries, matching.length, 'deliveries']
        : [c.attempts as number, matching.reduce((n, d) => n + d.attempts, 0), 'attempts'];
    return got === want
      ? {passed: true}
      : {
          passed: false,
          got: noun === 'attempts' ? plural(got, 'attempt') : plural(got, 'delivery', 'deliveries'),
        };
  }
  if ('probe' in e) {
    const p = e.probe;
    const probe = world.endpoints.get(p.endpoint)?.probe;
    if (!probe) return {passed: false, got: `the endpoint ${p.endpoint} has no probe`};
    const eventId =
      p.event !== undefined
        ? world.events.get(p.event)?.id
        : (await findDelivery(world, p.endpoint, p))?.event_id;
    if (eventId === undefined)
      return {passed: false, got: `no event of ${selectorText(p)} reached ${p.endpoint}`};
    const {Agent} = await import('undici');
    const agent = new Agent({pipelining: 0});
    try {
      const read = await readProbe(probe, eventId, agent);
      if ('error' in read) return {passed: false, got: `the probe ${read.error}`};
      return read.applied === p.applied
        ? {passed: true}
        : {passed: false, got: `applied ${times(read.applied)}`};
    } finally {
      await agent.close().catch(() => undefined);
    }
  }
  const key = (await world.client.listApiKeys()).find((k) => k.id === world.keys.get(e.key.name));
  if (!key) return {passed: false, got: `the key ${e.key.name} is not in the org's list`};
  return key.status === e.key.status ? {passed: true} : {passed: false, got: `it is ${key.status}`};
}
