// Delivery chaos: an endpoint's first attempts made the way production may make them: some delivered twice
// (the same event id), some held back so that later events overtake them, some delayed. Every choice comes
// from a seeded generator, one stream per endpoint drawn in the order the endpoint's deliveries come due, so
// the same seed and the same events give the same sequence and a failing test can be run again identically.
// The retry schedule is untouched: waits run from each attempt as always; an extra delivery takes no place in it.
import type {ChaosSettings} from '../../schemas/emulator.js';
import {parseDuration} from '../clock.js';

export type {ChaosSettings};

export interface ChaosDecision {
  /** How long the first attempt waits (delay, plus the hold when held back). */
  postponeMs: number;
  duplicate: boolean;
}

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

/** mulberry32: small, fast, and the same numbers from the same seed on every machine. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One endpoint's stream of decisions. Three draws per delivery whatever the settings, so streams stay aligned. */
export class ChaosDice {
  readonly #next: () => number;
  constructor(readonly settings: ChaosSettings) {
    this.#next = generator(settings.seed);
  }

  next(): ChaosDecision {
    const s = this.settings;
    const delay = s.delay_min_ms + Math.floor(this.#next() * (s.delay_max_ms - s.delay_min_ms + 1));
    const held = this.#next() < s.reorder;
    const duplicate = this.#next() < s.duplicate;
    return {postponeMs: delay + (held ? s.delay_max_ms + CHAOS_HOLD_MS : 0), duplicate};
  }
}

/**
 * Which endpoints have chaos and where each stands: the emulator-wide settings (`--chaos`) and per-endpoint
 * ones (the control route), kept by this process. Setting an endpoint's chaos starts its stream again.
 */
export class ChaosPlan {
  readonly #global: ChaosSettings | undefined;
  readonly #perEndpoint = new Map<string, ChaosSettings | null>();
  readonly #dice = new Map<string, ChaosDice>();
  /** First attempts postponed by chaos, with what was decided for them, until they are made. */
  readonly #postponed = new Map<string, ChaosDecision>();

  constructor(global?: ChaosSettings) {
    this.#global = global;
  }

  get global(): ChaosSettings | undefined {
    return this.#global;
  }

  /** The settings in force for an endpoint; null when it has none. */
  settingsFor(endpointId: string): ChaosSettings | null {
    const own = this.#perEndpoint.get(endpointId);
    return own === undefined ? (this.#global ?? null) : own;
  }

  /** The endpoint has settings of its own (or chaos turned off for it). */
  hasOwn(endpointId: string): boolean {
    return this.#perEndpoint.has(endpointId);
  }

  /** Per-endpoint settings; null turns chaos off for the endpoint, undefined returns it to the emulator's. */
  set(endpointId: string, settings: ChaosSettings | null | undefined): void {
    if (settings === undefined) this.#perEndpoint.delete(endpointId);
    else this.#perEndpoint.set(endpointId, settings);
    this.#dice.delete(endpointId);
  }

  /**
   * What happens to a delivery's first scheduled attempt: undefined without chaos. A delivery postponed earlier
   * comes back with its decision and `resumed`, so it is not postponed again and its attempt is marked chaos.
   */
  decide(endpointId: string, deliveryId: string): (ChaosDecision & {resumed: boolean}) | undefined {
    const earlier = this.#postponed.get(deliveryId);
    if (earlier) {
      this.#postponed.delete(deliveryId);
      return {...earlier, postponeMs: 0, resumed: true};
    }
    const settings = this.settingsFor(endpointId);
    if (!settings) return undefined;
    let dice = this.#dice.get(endpointId);
    if (!dice) {
      dice = new ChaosDice(settings);
      this.#dice.set(endpointId, dice);
    }
    const decision = dice.next();
    if (decision.postponeMs > 0) this.#postponed.set(deliveryId, decision);
    return {...decision, resumed: false};
  }
}
