// Checkpoints of one org: save every row of it (keys, endpoints, sandboxes and their links, events, deliveries and
// their attempts), its time and so its pending schedule under a name, and rewind to one: the rows come back
// exactly as saved (each next attempt to the microsecond), the org's clock goes back to the time saved (on a
// manual clock), and what was in flight for the org is cancelled first. No other org is read or touched.
import {CHECKPOINT_NAME_PATTERN, CHECKPOINT_NAME_RULE, MAX_CHECKPOINTS_PER_ORG} from '../../definitions.js';
import type {Checkpoint, CheckpointDeleted, RewoundCheckpoint} from '../../schemas/checkpoints.js';
import {type EmulatorContext, orgNow} from '../context.js';
import {journalMark} from '../db/checkpoint-journal.js';
import {
  countCheckpoints,
  deleteCheckpoint as deleteStored,
  findCheckpoint,
  heldDeliveries,
  listCheckpoints as listStored,
  restoreCheckpointRows,
  type RewoundEndpoint,
  rewoundEndpoints,
  type StoredCheckpoint,
  saveCheckpoint,
} from '../db/org-checkpoints.js';
import {lockEndpointsAgainstClaims} from '../delivery/claim.js';
import type {DeliveryWorker} from '../delivery/worker.js';
import {conflict, notFound} from '../operation-error.js';
import {getOrg} from './orgs.js';
import {Problems} from './validate.js';

/** The name of a checkpoint as given (a body field or a path segment), or every problem with it. */
function checkpointName(value: unknown): string {
  const problems = new Problems();
  if (typeof value !== 'string')
    problems.add('name', value === undefined ? 'is required' : 'must be a string');
  else if (!CHECKPOINT_NAME_PATTERN.test(value)) problems.add('name', `must be ${CHECKPOINT_NAME_RULE}`);
  problems.throwIfAny();
  return value as string;
}

function toRecord(c: StoredCheckpoint): Checkpoint {
  return {
    name: c.name,
    org_id: c.orgId,
    taken_at: c.takenAt,
    clock_now: new Date(c.clockMs).toISOString(),
    counts: c.counts,
  };
}

/** Saves the org's rows and time under a new name (409 when the org has one of that name, or as many as it keeps). */
export async function takeCheckpoint(
  ctx: EmulatorContext,
  orgId: string,
  input: {name: unknown},
): Promise<Checkpoint> {
  const org = await getOrg(ctx, orgId);
  const name = checkpointName(input.name);
  const saved = await saveCheckpoint(ctx.db, {
    orgId: org.id,
    name,
    takenAt: new Date(ctx.engine.timers.now()),
    clockMs: orgNow(ctx, org.id).getTime(),
    ownClock: ctx.orgClocks.offsetMs(org.id) !== 0,
  });
  if (saved) return toRecord(saved);
  if (await findCheckpoint(ctx.db, org.id, name)) {
    throw conflict(
      `org ${org.id} has a checkpoint named ${name} already; delete it first or take another name`,
    );
  }
  if ((await countCheckpoints(ctx.db, org.id)) >= MAX_CHECKPOINTS_PER_ORG) {
    throw conflict(
      `org ${org.id} keeps ${MAX_CHECKPOINTS_PER_ORG} checkpoints already, the most it may; delete one to take another`,
    );
  }
  throw conflict(`the checkpoint ${name} of org ${org.id} was not saved; try again`);
}

export async function listCheckpoints(ctx: EmulatorContext, orgId: string): Promise<{data: Checkpoint[]}> {
  const org = await getOrg(ctx, orgId);
  return {data: (await listStored(ctx.db, org.id)).map(toRecord)};
}

export async function deleteCheckpoint(
  ctx: EmulatorContext,
  orgId: string,
  nameValue: unknown,
): Promise<CheckpointDeleted> {
  const org = await getOrg(ctx, orgId);
  const name = checkpointName(nameValue);
  if (!(await deleteStored(ctx.db, org.id, name))) throw notFound(noCheckpoint(org.id, name));
  return {deleted: true, org_id: org.id, name};
}

const noCheckpoint = (orgId: string, name: string) =>
  `org ${orgId} has no checkpoint named ${name} (svc emulator orgs checkpoints ${orgId} lists them)`;

/**
 * Puts the org back as the checkpoint saved it. First what is in flight for the org stops: no lane of its
 * endpoints runs here while the rows are replaced, and every other process sharing the database cancels its
 * attempts for them and answers once what it sent is recorded (claims skip the endpoints until the rewind commits),
 * so no attempt made before the rewind lands on the rows it writes. The org's clock goes back to the saved time
 * before the rows, so nothing the rows hold comes due early.
 */
export async function rewindOrg(
  ctx: EmulatorContext,
  orgId: string,
  nameValue: unknown,
): Promise<RewoundCheckpoint> {
  const org = await getOrg(ctx, orgId);
  const name = checkpointName(nameValue);
  const checkpoint = await findCheckpoint(ctx.db, org.id, name);
  if (!checkpoint) throw notFound(noCheckpoint(org.id, name));
  const worker = ctx.engine.worker;
  const ids = (endpoints: RewoundEndpoint[]) => endpoints.map((e) => e.id);
  const before = ids(await rewoundEndpoints(ctx.db, org.id, name, await journalMark(ctx.db, org.id, name)));
  // Nothing of these endpoints read here before now gets a request from now on; requests on the wire are cut.
  worker.cancel(before, {abort: true});
  const busyHere = new Set(worker.busyEndpoints());
  const cancelled = new Set(before.filter((id) => busyHere.has(id)));
  const {endpoints: touched, rows} = await holdEndpoints(worker, before, async () => {
    if (ctx.clock.mode !== 'real') await ctx.orgClocks.set(org.id, new Date(checkpoint.clockMs));
    return ctx.db.transaction(async (tx) => {
      // Read again in the transaction: another rewind may have made the checkpoint a copy meanwhile.
      const mark = await journalMark(tx, org.id, name);
      const endpoints = await rewoundEndpoints(tx, org.id, name, mark, {lock: true});
      if (ctx.db.kind === 'postgres') {
        await lockEndpointsAgainstClaims(tx, ids(endpoints));
        const held = await heldDeliveries(tx, org.id, new Date(ctx.engine.timers.now()));
        for (const h of held) cancelled.add(h.endpointId);
        await ctx.engine.rewinding(
          ids(endpoints),
          held.map((h) => h.holder),
        );
      }
      return {endpoints, rows: await restoreCheckpointRows(ctx.db, tx, org.id, name, mark)};
    });
  });
  // What the rewind wrote leaves dead rows behind, as recorded attempts do (PGlite has no autovacuum).
  await worker.rowsWritten(rows);
  ctx.auth.forgetAll();
  // Endpoints the checkpoint does not hold are gone, as if deleted: a relay holding one lets its listener go.
  for (const e of touched) if (!e.kept) for (const told of ctx.endpointDeletions) told(e.id);
  ctx.engine.announce();
  return {
    ...toRecord(checkpoint),
    rewound_at: new Date(ctx.engine.timers.now()).toISOString(),
    clock_restored: ctx.clock.mode !== 'real',
    cancelled: {endpoints: [...cancelled].sort()},
  };
}

/** Runs `fn` while no lane of these endpoints runs in this process (holdEndpoint for each, one inside the other). */
function holdEndpoints<T>(
  worker: DeliveryWorker,
  endpointIds: readonly string[],
  fn: () => Promise<T>,
): Promise<T> {
  const [first, ...rest] = endpointIds;
  if (first === undefined) return fn();
  return worker.holdEndpoint(first, () => holdEndpoints(worker, rest, fn));
}
