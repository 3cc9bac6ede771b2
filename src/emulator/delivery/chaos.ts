// Delivery chaos: an endpoint's first attempts made the way production may make them: some delivered twice
// (the same event id), some held back so that later events overtake them, some delayed. Every choice comes
// from a seeded generator, one stream per endpoint drawn in the order the endpoint's deliveries come due, so
// the same seed and the same events give the same sequence and a failing test can be run again identically.
// The retry schedule is untouched: waits run from each attempt as always; an extra delivery takes no place in it.
import {CHAOS_HOLD_MS, type ChaosSettings} from '../../schemas/chaos.js';

export {
  CHAOS_EXAMPLE,
  CHAOS_HOLD_MS,
  CHAOS_MAX_DELAY_MS,
  ChaosSettingsError,
  type ChaosSettings,
  checkChaosSettings,
  describeChaos,
  parseChaosSpec,
} from '../../schemas/chaos.js';

export interface ChaosDecision {
  /** How long the first attempt waits (delay, plus the hold when held back). */
  postponeMs: number;
  duplicate: boolean;
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
