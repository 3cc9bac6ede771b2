// Orgs as the unit of isolation on one emulator (a test file each): reset one, delete one, move its own clock, and
// take, list, rewind to and delete its checkpoints.
// Admin token only, like all of /_emulator; each route reads its input and calls an operation.
import type {Checkpoint, CheckpointDeleted, RewoundCheckpoint} from '../../schemas/checkpoints.js';
import type {OrgClockState, OrgDeleted, OrgReset} from '../../schemas/emulator.js';
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {invalidRequest} from '../http-error.js';
import {readJsonObject} from '../net/read-json.js';
import {deleteCheckpoint, listCheckpoints, rewindOrg, takeCheckpoint} from '../ops/checkpoints.js';
import {moveOrgClock, readOrgClock} from '../ops/clock.js';
import {deleteOrg, getOrg, resetOrg} from '../ops/orgs.js';

/** The optional org_id field of a control request: absent means the emulator's default org (undefined here). */
export function orgIdOf(body: Record<string, unknown>): string | undefined {
  const value = body.org_id;
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidRequest('org_id must be a string');
  return value;
}

/** `{"advance": "30s"}` or `{"set": ISO}`, with `"settle": true` to answer once what the move made due is done. */
export function clockMoveOf(body: Record<string, unknown>): {
  move: {advance: string} | {set: string};
  settle: boolean;
} {
  const {settle, ...rest} = body;
  const keys = Object.keys(rest);
  const value = keys.length === 1 ? rest[keys[0] as string] : undefined;
  if (typeof value !== 'string' || (settle !== undefined && typeof settle !== 'boolean')) {
    throw invalidRequest(
      'the body must be {"advance": "10m"} or {"set": "2030-01-01T00:00:00Z"}, with "settle": true to wait for the attempts it makes due',
    );
  }
  return {move: keys[0] === 'advance' ? {advance: value} : {set: value}, settle: settle === true};
}

export function registerOrgRoutes(app: EmulatorApp, ctx: EmulatorContext): void {
  app.post('/_emulator/orgs/:id/reset', async (c) =>
    c.json((await resetOrg(ctx, c.req.param('id'))) satisfies OrgReset),
  );
  app.delete('/_emulator/orgs/:id', async (c) =>
    c.json((await deleteOrg(ctx, c.req.param('id'))) satisfies OrgDeleted),
  );
  app.get('/_emulator/orgs/:id/clock', async (c) => {
    const org = await getOrg(ctx, c.req.param('id'));
    return c.json(readOrgClock(ctx, org.id) satisfies OrgClockState);
  });
  app.post('/_emulator/orgs/:id/clock', async (c) => {
    const org = await getOrg(ctx, c.req.param('id'));
    const {move, settle} = clockMoveOf(await readJsonObject(c, ['advance', 'set', 'settle']));
    const state = await moveOrgClock(ctx, org.id, move);
    if (settle) await ctx.engine.settle();
    return c.json(state satisfies OrgClockState);
  });
  app.post('/_emulator/orgs/:id/checkpoints', async (c) => {
    const body = await readJsonObject(c, ['name']);
    return c.json(
      (await takeCheckpoint(ctx, c.req.param('id'), {name: body.name})) satisfies Checkpoint,
      201,
    );
  });
  app.get('/_emulator/orgs/:id/checkpoints', async (c) =>
    c.json((await listCheckpoints(ctx, c.req.param('id'))) satisfies {data: Checkpoint[]}),
  );
  app.post('/_emulator/orgs/:id/checkpoints/:name/rewind', async (c) =>
    c.json((await rewindOrg(ctx, c.req.param('id'), c.req.param('name'))) satisfies RewoundCheckpoint),
  );
  app.delete('/_emulator/orgs/:id/checkpoints/:name', async (c) =>
    c.json((await deleteCheckpoint(ctx, c.req.param('id'), c.req.param('name'))) satisfies CheckpointDeleted),
  );
}
