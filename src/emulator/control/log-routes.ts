// GET /_emulator/logs: the request log of this process (admin token only). `since` (a time, or a duration back
// from the emulator's clock) and `after` (a seq) choose entries; `wait` (seconds) holds the answer until there
// is one, so `svc emulator logs --follow` needs no polling loop of its own.
import {parseDuration} from '../clock.js';
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {invalidRequest} from '../http-error.js';
import {clientGone} from '../net/body-text.js';
import {REQUEST_LOG_PATH} from '../request-log.js';

/** The longest a follower's request is held. */
export const MAX_LOG_WAIT_SECONDS = 25;

export function registerLogRoutes(app: EmulatorApp, ctx: EmulatorContext): void {
  app.get(REQUEST_LOG_PATH, async (c) => {
    const since = sinceMs(c.req.query('since'), ctx.clock.now().getTime());
    const after = wholeNumber(c.req.query('after'), 'after') ?? 0;
    const wait = Math.min(wholeNumber(c.req.query('wait'), 'wait') ?? 0, MAX_LOG_WAIT_SECONDS);
    let data = ctx.requestLog.read({afterSeq: after, sinceMs: since});
    if (data.length === 0 && wait > 0) {
      await ctx.requestLog.waitForNew(after, wait * 1000, clientGone(c));
      data = ctx.requestLog.read({afterSeq: after, sinceMs: since});
    }
    return c.json({data, last: Math.max(after, ctx.requestLog.last)});
  });
}

function sinceMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const duration = parseDuration(value);
  if (duration !== undefined) return nowMs - duration;
  const time = Date.parse(value);
  if (/^\d{4}-\d{2}-\d{2}T/.test(value) && Number.isFinite(time)) return time;
  throw invalidRequest('since must be a duration like 10m or 2h, or an ISO 8601 time');
}

function wholeNumber(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,15}$/.test(value)) throw invalidRequest(`${name} must be a whole number`);
  return Number(value);
}
