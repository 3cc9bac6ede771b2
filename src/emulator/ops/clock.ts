// The emulator's clock: read it, and move a manual one (a real clock cannot be moved).
import type {ClockState, OrgClockState} from '../../schemas/emulator.js';
import type {ManualClock} from '../clock.js';
import {parseDuration} from '../clock.js';
import {type EmulatorContext, orgNow} from '../context.js';
import {conflict, invalidInput} from '../operation-error.js';

export type {ClockState, OrgClockState};

/** The clock now; a manual clock shared with other processes is read from where they all store it. */
export async function readClock(ctx: EmulatorContext): Promise<ClockState> {
  if (ctx.clock.mode === 'manual') await (ctx.clock as ManualClock).refresh();
  return clockState(ctx);
}

function clockState(ctx: EmulatorContext): ClockState {
  return {now: ctx.clock.now().toISOString(), mode: ctx.clock.mode};
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Moves a manual clock forward by a duration (`90s`, `10m`, `3h`, `31d`) or to a time. Resolves once every process
 * sharing the clock (several on one PostgreSQL) can see the move.
 */
export async function moveClock(
  ctx: EmulatorContext,
  input: {advance: string} | {set: string},
): Promise<ClockState> {
  if (ctx.clock.mode !== 'manual') {
    throw conflict(
      "the clock is real; start the emulator on a manual clock (the `clock: 'manual'` option, `--clock manual` for the CLI) to move time",
    );
  }
  const clock = ctx.clock as ManualClock;
  try {
    const move = parseMove(input);
    if ('advanceMs' in move) clock.advance(move.advanceMs);
    else clock.set(move.to);
  } catch (err) {
    // The clock refuses to leave the range of times it can represent; say so rather than fail.
    if (err instanceof RangeError)
      throw invalidInput([{field: 'advance' in input ? 'advance' : 'set', message: err.message}]);
    throw err;
  }
  await clock.synced();
  return clockState(ctx);
}

/** An org's clock: its own when it has one (`own`), else the emulator's. */
export function readOrgClock(ctx: EmulatorContext, orgId: string): OrgClockState {
  const offset = ctx.orgClocks.offsetMs(orgId);
  return {
    org_id: orgId,
    now: orgNow(ctx, orgId).toISOString(),
    mode: ctx.clock.mode,
    own: offset !== 0,
  };
}

/**
 * Moves one org's clock (its deliveries' schedule, its keys' and sandboxes' expiry, its retention, the times it
 * shows and signs) and no other org's. An org without a clock of its own gets one, starting at the emulator's time.
 */
export async function moveOrgClock(
  ctx: EmulatorContext,
  orgId: string,
  input: {advance: string} | {set: string},
): Promise<OrgClockState> {
  const clocks = ctx.orgClocks;
  const move = parseMove(input);
  try {
    if ('advanceMs' in move) await clocks.advance(orgId, move.advanceMs);
    else await clocks.set(orgId, move.to);
  } catch (err) {
    if (err instanceof RangeError)
      throw invalidInput([{field: 'advance' in input ? 'advance' : 'set', message: err.message}]);
    throw err;
  }
  return readOrgClock(ctx, orgId);
}

function parseMove(input: {advance: string} | {set: string}): {advanceMs: number} | {to: Date} {
  if ('advance' in input) {
    const ms = parseDuration(input.advance);
    if (ms === undefined) {
      throw invalidInput([{field: 'advance', message: 'must be a duration like 90s, 10m, 3h or 31d'}]);
    }
    return {advanceMs: ms};
  }
  const to = ISO_TIME.test(input.set) ? new Date(input.set) : undefined;
  if (!to || !Number.isFinite(to.getTime())) {
    throw invalidInput([{field: 'set', message: 'must be an ISO 8601 time like 2030-01-01T00:00:00Z'}]);
  }
  return {to};
}
