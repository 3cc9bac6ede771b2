// Waiting for a delivery: the answer is held until the emulator has recorded what the caller waits for (a delivery
// of an event or by id, in a status, with a number of attempts), woken by the delivery engine's own word of changes
// to that delivery or event rather than by reading again and again.
import {
  DEFAULT_DELIVERY_WAIT_MS,
  DELIVERY_STATUSES,
  type DeliveryStatus,
  isId,
  MAX_DELIVERY_WAIT_MS,
} from '../../definitions.js';
import type {DeliveryDetail} from '../../schemas/emulator.js';
import type {EmulatorContext} from '../context.js';
import {OperationError, vaultUnavailable} from '../operation-error.js';
import {getDeliveryDetail, deliveryDetailIfKept} from './delivery-detail.js';
import {oneOf, Problems} from './validate.js';

export interface WaitForDeliveryInput {
  event_id?: unknown;
  delivery_id?: unknown;
  status?: unknown;
  attempts?: unknown;
  timeout_ms?: unknown;
}

interface Wanted {
  eventId: string | null;
  deliveryId: string | null;
  status: DeliveryStatus | null;
  attempts: number;
  timeoutMs: number;
}

function wanted(input: WaitForDeliveryInput): Wanted {
  const problems = new Problems();
  const eventId = input.event_id;
  const deliveryId = input.delivery_id;
  if ((eventId === undefined) === (deliveryId === undefined)) {
    problems.add('event_id', 'name exactly one of event_id or delivery_id');
  }
  if (eventId !== undefined && !isId('event', eventId))
    problems.add('event_id', 'must be an event id (evt_…)');
  if (deliveryId !== undefined && !isId('delivery', deliveryId))
    problems.add('delivery_id', 'must be a delivery id (dlv_…)');
  const status =
    input.status === undefined ? undefined : oneOf(problems, 'status', input.status, DELIVERY_STATUSES);
  const attempts = input.attempts;
  if (attempts !== undefined && !(Number.isSafeInteger(attempts) && (attempts as number) >= 0))
    problems.add('attempts', 'must be a whole number, 0 or more');
  const timeout = input.timeout_ms ?? DEFAULT_DELIVERY_WAIT_MS;
  if (
    !(
      Number.isSafeInteger(timeout) &&
      (timeout as number) >= 0 &&
      (timeout as number) <= MAX_DELIVERY_WAIT_MS
    )
  )
    problems.add('timeout_ms', `must be a whole number of milliseconds from 0 to ${MAX_DELIVERY_WAIT_MS}`);
  problems.throwIfAny();
  return {
    eventId: (eventId as string | undefined) ?? null,
    deliveryId: (deliveryId as string | undefined) ?? null,
    status: status ?? null,
    // Without a status, waiting means an attempt has been recorded.
    attempts: (attempts as number | undefined) ?? (status === undefined ? 1 : 0),
    timeoutMs: timeout as number,
  };
}

async function find(ctx: EmulatorContext, w: Wanted): Promise<string | undefined> {
  const {rows} = await ctx.db.query<{id: string}>(
    `SELECT id FROM deliveries
      WHERE ($1::text IS NULL OR id = $1) AND ($2::text IS NULL OR event_id = $2)
        AND ($3::text IS NULL OR status = $3) AND attempts >= $4
      ORDER BY created_at, id LIMIT 1`,
    [w.deliveryId, w.eventId, w.status, w.attempts],
  );
  return rows[0]?.id;
}

/**
 * The detail of the delivery waited for, once it is recorded as wanted. One waited for by id is read whole at once
 * and looked at here: one statement for each look, which test suites and scenario runs make all the time. Only
 * when it is not there (no such delivery yet, or one past the retention window, which find() still sees and the
 * detail then refuses as not_found) is it looked for as one by event is.
 */
async function recorded(ctx: EmulatorContext, w: Wanted): Promise<DeliveryDetail | undefined> {
  if (w.deliveryId !== null) {
    const detail = await deliveryDetailIfKept(ctx, w.deliveryId);
    if (detail) {
      const d = detail.delivery;
      const done = (w.status === null || d.status === w.status) && d.attempts >= w.attempts;
      return done ? detail : undefined;
    }
  }
  const id = await find(ctx, w);
  return id === undefined ? undefined : getDeliveryDetail(ctx, {deliveryId: id});
}

/**
 * Resolves with the delivery's detail once it is recorded as wanted; refuses with `timeout` (408) when the time
 * runs out first, and with 503 when the emulator stops first. Aborting `signal` (the caller went away) ends the
 * wait.
 */
export async function waitForDelivery(
  ctx: EmulatorContext,
  input: WaitForDeliveryInput,
  signal?: AbortSignal,
): Promise<DeliveryDetail> {
  const w = wanted(input);
  const changes = ctx.engine.changes;
  // Real time, on the delivery engine's timers.
  const remaining = changes.countdown(w.timeoutMs);
  // Woken only by changes to this delivery (or this event's), and by those that name nothing: a change of
  // another org's deliveries does not make this wait read again.
  const watch = changes.watch([(w.deliveryId ?? w.eventId) as string]);
  const stopping = ctx.engine.stopping;
  const ended = signal ? AbortSignal.any([signal, stopping]) : stopping;
  try {
    for (;;) {
      watch.clear();
      const detail = await recorded(ctx, w);
      if (detail) return detail;
      const left = remaining();
      if (left <= 0 || ended.aborted) break;
      await watch.next(left, ended);
    }
  } finally {
    watch.close();
  }
  const what = w.deliveryId ? `delivery ${w.deliveryId}` : `a delivery of event ${w.eventId}`;
  const how = [w.status ? `status ${w.status}` : '', w.attempts > 0 ? `${w.attempts}+ attempts` : '']
    .filter(Boolean)
    .join(', ');
  if (stopping.aborted && !signal?.aborted) {
    throw vaultUnavailable(
      `the emulator is stopping: the wait ended before ${what}${how ? ` with ${how}` : ''} was recorded`,
    );
  }
  throw new OperationError(
    'timeout',
    `no ${what}${how ? ` with ${how}` : ''} was recorded within ${w.timeoutMs} ms`,
  );
}
