// The chaos settings of a webhook endpoint, as the control route takes them (JSON) and as the CLI writes them
// (`duplicate=0.2,reorder=0.3,delay=0-5s,seed=42`): checked and read one way, for the emulator and the CLI.
import type {ChaosSettings} from './emulator.js';
import {parseDuration} from './duration.js';

export type {ChaosSettings};

export class ChaosSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChaosSettingsError';
  }
}

/** A held-back delivery waits this much longer than the longest delay, so anything sent after it overtakes it. */
export const CHAOS_HOLD_MS = 2_000;
/** The longest delay accepted: delays stay well inside a delivery's first retry wait. */
export const CHAOS_MAX_DELAY_MS = 60_000;
const MAX_SEED = 2 ** 32 - 1;

export const CHAOS_EXAMPLE = 'duplicate=0.2,reorder=0.3,delay=0-5s,seed=42';

function probability(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new ChaosSettingsError(`${name} must be a number from 0 to 1`);
  }
  return value;
}

/** Checks settings from JSON (the control route) or from parseChaosSpec; every field has a default. */
export function checkChaosSettings(value: unknown): ChaosSettings {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ChaosSettingsError('chaos settings must be an object');
  }
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v)) {
    if (!['duplicate', 'reorder', 'delay_min_ms', 'delay_max_ms', 'seed'].includes(key)) {
      throw new ChaosSettingsError(`unknown chaos setting ${JSON.stringify(key)}`);
    }
  }
  const min = v.delay_min_ms ?? 0;
  const max = v.delay_max_ms ?? min;
  for (const [name, ms] of [
    ['delay_min_ms', min],
    ['delay_max_ms', max],
  ] as const) {
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > CHAOS_MAX_DELAY_MS) {
      throw new ChaosSettingsError(`${name} must be whole milliseconds from 0 to ${CHAOS_MAX_DELAY_MS}`);
    }
  }
  if ((max as number) < (min as number))
    throw new ChaosSettingsError('the delay range ends before it starts');
  const seed = v.seed ?? 0;
  if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) {
    throw new ChaosSettingsError(`seed must be a whole number from 0 to ${MAX_SEED}`);
  }
  return {
    duplicate: probability('duplicate', v.duplicate ?? 0),
    reorder: probability('reorder', v.reorder ?? 0),
    delay_min_ms: min as number,
    delay_max_ms: max as number,
    seed,
  };
}

function durationMs(text: string): number {
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const ms = /^\d+ms$/.test(text) ? Number(text.slice(0, -2)) : parseDuration(text);
  if (ms === undefined || !Number.isFinite(ms))
    throw new ChaosSettingsError(`${JSON.stringify(text)} is not a duration`);
  return ms;
}

/** `duplicate=0.2,reorder=0.3,delay=0-5s,seed=42` (each part optional; a delay's unit may be on both ends). */
export function parseChaosSpec(spec: string): ChaosSettings {
  const out: Record<string, number> = {};
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1).trim();
    if (key === 'duplicate' || key === 'reorder' || key === 'seed') {
      if (!/^\d+(\.\d+)?$/.test(value))
        throw new ChaosSettingsError(`${key} needs a number, e.g. ${CHAOS_EXAMPLE}`);
      out[key] = Number(value);
    } else if (key === 'delay') {
      const m = /^(\d+(?:ms|s|m|h)?)(?:-(\d+(?:ms|s|m|h)?))?$/.exec(value);
      if (!m) {
        throw new ChaosSettingsError(
          `delay=${value} is not a delay: give MIN-MAX in ms, s or m, at most ${CHAOS_MAX_DELAY_MS / 1000}s, e.g. delay=0-5s`,
        );
      }
      const unit = /(ms|s|m|h)$/.exec(m[2] ?? m[1] ?? '')?.[1] ?? 's';
      const withUnit = (t: string) => (/(ms|s|m|h)$/.test(t) ? t : `${t}${unit}`);
      out.delay_min_ms = durationMs(withUnit(m[1] as string));
      out.delay_max_ms = durationMs(withUnit(m[2] ?? (m[1] as string)));
      if (out.delay_max_ms > CHAOS_MAX_DELAY_MS || out.delay_min_ms > CHAOS_MAX_DELAY_MS) {
        throw new ChaosSettingsError(
          `delay=${value} is longer than chaos delays go: at most ${CHAOS_MAX_DELAY_MS / 1000}s, e.g. delay=0-${CHAOS_MAX_DELAY_MS / 1000}s`,
        );
      }
    } else {
      throw new ChaosSettingsError(`unknown chaos option ${JSON.stringify(key)}; use ${CHAOS_EXAMPLE}`);
    }
  }
  return checkChaosSettings(out);
}

export function describeChaos(s: ChaosSettings): string {
  const delay =
    s.delay_min_ms % 1000 === 0 && s.delay_max_ms % 1000 === 0
      ? `${s.delay_min_ms / 1000}-${s.delay_max_ms / 1000}s`
      : `${s.delay_min_ms}-${s.delay_max_ms}ms`;
  return `duplicate=${s.duplicate},reorder=${s.reorder},delay=${delay},seed=${s.seed}`;
}
