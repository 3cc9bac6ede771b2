// The emulator's clock: read it, and move a manual one (a real clock cannot be moved).
import type {ClockState, OrgClockState} from '../../schemas/emulator.js';
import type {ManualClock} from '../clock.js';
import {checkAdvance, checkClockTimeWith, parseDuration} from '../clock.js';
import {type EmulatorContext, orgNow} from '../context.js';
import {parseIsoTime} from '../../schemas/timestamp.js';
import {conflict, invalidInput} from '../operation-error.js';

export type {ClockState, OrgClockState};

/** The clock now; a manual clock shared with other processes is read from where they all store it. */
export async function readClock(ctx: EmulatorContext): Promise<ClockState> {
  if (ctx.clock.mode === 'manual') await (ctx.clock as ManualClock).refresh();
  return clockState(ctx);
}

function clockState(ctx: EmulatorContext): ClockState {
  const {clock} = ctx;
  return {
    now: clock.now().toISOString(),
    mode: clock.mode,
    ...(clock.mode === 'scaled' ? {scale: clock.scale} : {}),
  };
}

/**
 * Moves a manual clock forward by a duration (`90s`, `10m`, `3h`, `31d`) or to a time. Resolves once every process
 * sharing the clock (several on one PostgreSQL) can see the move. Refused (nothing moves) when it would take the
 * emulator's clock, or an org's own clock that runs ahead of or behind it, outside the times a clock can show.
 */
export async function moveClock(
  ctx: EmulatorContext,
  input: {advance: string} | {set: string},
): Promise<ClockState> {
  if (ctx.clock.mode !== 'manual') {
    throw conflict(
      `the clock is ${ctx.clock.mode}${ctx.clock.mode === 'scaled' ? " (it runs on by itself; an org's own clock can still be moved)" : ''}; start the emulator on a manual clock (the \`clock: 'manual'\` option, \`--clock manual\` for the CLI) to move time`,
    );
  }
  const clock = ctx.clock as ManualClock;
  const move = parseMove(input);
  await refusingOutOfRange(input, () =>
    ctx.orgClocks.exclusive(async (spread) => {
      checkClockTimeWith(
        'advanceMs' in move ? checkAdvance(clock.nowMs(), move.advanceMs) : move.to.getTime(),
        spread,
      );
      if ('advanceMs' in move) clock.advance(move.advanceMs);
      else clock.set(move.to);
      // A clock shared with other processes is moved by one statement that checks the range again, with the
      // org clocks other processes moved: it may still refuse.
      await clock.synced();
    }),
  );
  return clockState(ctx);
}

/** An org's clock: its own when it has one, else the emulator's. */
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
 * On a manual clock, or a scaled one (the org's time then runs on at the same pace from where it was moved to);
 * on a real one every org lives in the real time.
 */
export async function moveOrgClock(
  ctx: EmulatorContext,
  orgId: string,
  input: {advance: string} | {set: string},
): Promise<OrgClockState> {
  if (ctx.clock.mode === 'real') {
    throw conflict(
      "the clock is real, and so is every org's: org clocks exist only on a manual clock (or a scaled one); start the emulator on one (the `clock: 'manual'` option, `--clock manual` for the CLI) to give an org a clock of its own",
    );
  }
  const clocks = ctx.orgClocks;
  const move = parseMove(input);
  await refusingOutOfRange(input, () =>
    'advanceMs' in move ? clocks.advance(orgId, move.advanceMs) : clocks.set(orgId, move.to),
  );
  return readOrgClock(ctx, orgId);
}

/** A move the clocks refuse (it would leave the times a clock can show) is bad input, naming its field. */
async function refusingOutOfRange(input: {advance: string} | {set: string}, move: () => Promise<unknown>) {
  try {
    await move();
  } catch (err) {
    if (err instanceof RangeError)
      throw invalidInput([{field: 'advance' in input ? 'advance' : 'set', message: err.message}]);
    throw err;
  }
}

function parseMove(input: {advance: string} | {set: string}): {advanceMs: number} | {to: Date} {
  if ('advance' in input) {
    const ms = parseDuration(input.advance);
    if (ms === undefined) {
      throw invalidInput([{field: 'advance', message: 'must be a duration like 90s, 10m, 3h or 31d'}]);
    }
    return {advanceMs: ms};
  }
  const to = parseIsoTime(input.set);
  if (typeof to === 'string') throw invalidInput([{field: 'set', message: to}]);
  return {to};
}
