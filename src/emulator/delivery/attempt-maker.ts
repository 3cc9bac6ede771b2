// What every attempt of the worker shares, whether scheduled, a chaos duplicate or a resend: the org's time it is
// made at, the `t` it is signed at, the transport it goes over (undici, loaded on first need) and the send itself.
import type {Dispatcher} from 'undici';
import type {WebhookSigner} from '@svc/webhooks';
import type {Clock} from '../clock.js';
import type {Resolver} from '../net/address-policy.js';
import {attemptHeaders, type SendRoute, sendSigned} from './attempt-send.js';
import type {ClaimedDelivery} from './claim.js';
import type {RelayHub} from './relay-hub.js';
import type {AttemptResult} from './sender.js';

export interface AttemptMakerOptions {
  clock: Clock;
  /**
   * Unix milliseconds a signature's `t` is taken from, given the org clock's offset and the org time the attempt is
   * made at; default that time.
   */
  signatureNowMs?: (orgOffsetMs: number, atMs?: number) => number;
  relay?: RelayHub;
  allowLocalEndpoints?: boolean;
  resolver?: Resolver;
  /** Replaces the delivery agent entirely (benchmarks); the caller owns and closes it. */
  dispatcher?: Dispatcher;
  timeoutMs: number;
  maxResponseBytes: number;
  /** Cuts every attempt in flight short (the worker stopping). */
  signal: AbortSignal;
}

/** Where one attempt goes: the endpoint's parsed URL and the transport, both fetched once per lane. */
export interface AttemptTarget {
  target: URL | string | undefined;
  dispatcher: Dispatcher | undefined;
  /** False when no attempt to the same receiver follows at once: the connection closes after this one. */
  keepAlive?: boolean;
}

export class AttemptMaker {
  readonly #o: AttemptMakerOptions;
  /** Created on first need: undici loads only once something is to be delivered (or just after start). */
  #dispatcher: Promise<Dispatcher> | undefined;
  #ownsDispatcher = false;

  constructor(options: AttemptMakerOptions) {
    this.#o = options;
  }

  get relay(): RelayHub | undefined {
    return this.#o.relay;
  }

  /** The time of the item's org: the emulator's clock, or the org's own clock when it has one. */
  orgNowMs(item: ClaimedDelivery): number {
    return this.#o.clock.nowMs() + (item.offsetMs ?? 0);
  }

  /**
   * The org time a scheduled attempt of `item` is made at. On a manual clock, its scheduled instant: a clock moved
   * past several attempts makes each at its own instant, as the service would have made them while that time
   * passed (and schedules the next from it). On a real clock, and for what has no schedule, the org's time now.
   */
  scheduledAtMs(item: ClaimedDelivery): number {
    const now = this.orgNowMs(item);
    if (this.#o.clock.mode !== 'manual' || !item.dueAt) return now;
    return Math.min(item.dueAt.getTime(), now);
  }

  /**
   * The org time an attempt made at `atMs` ends at, which its next attempt is scheduled from: on a manual clock the
   * same instant (its time stands still while the attempt is made), else the org's time now.
   */
  finishedAtMs(item: ClaimedDelivery, atMs: number): number {
    return this.#o.clock.mode === 'manual' ? atMs : this.orgNowMs(item);
  }

  /**
   * The `t` of a signature of an attempt made at the org time `atMs` (default now): what signatureNowMs says (the
   * emulator passes the real time unless told to sign on its clock), else that time.
   */
  signatureT(item: ClaimedDelivery, atMs: number = this.orgNowMs(item)): number {
    const offsetMs = item.offsetMs ?? 0;
    return Math.floor((this.#o.signatureNowMs?.(offsetMs, atMs) ?? atMs) / 1000);
  }

  /** One attempt of `item`, signed at `t`, over the relay or HTTP; never throws. `cut` aborts it too. */
  send(
    item: ClaimedDelivery,
    signer: WebhookSigner,
    t: number,
    to: AttemptTarget,
    cut?: AbortSignal,
  ): Promise<AttemptResult> {
    const route: SendRoute = {
      relay: this.#o.relay,
      target: to.target,
      dispatcher: to.dispatcher,
      timeoutMs: this.#o.timeoutMs,
      maxResponseBytes: this.#o.maxResponseBytes,
      allowLocalEndpoints: Boolean(this.#o.allowLocalEndpoints),
      signal: cut ? AbortSignal.any([this.#o.signal, cut]) : this.#o.signal,
      keepAlive: to.keepAlive,
    };
    return sendSigned(item.endpointId, item, attemptHeaders(item, signer, t), route);
  }

  /** The transport of HTTP attempts, loaded on first call; a failed load is tried again by the next call. */
  agent(): Promise<Dispatcher> {
    if (this.#dispatcher) return this.#dispatcher;
    if (this.#o.dispatcher) {
      this.#dispatcher = Promise.resolve(this.#o.dispatcher);
      return this.#dispatcher;
    }
    this.#ownsDispatcher = true;
    this.#dispatcher = import('./delivery-agent.js').then(({createDeliveryAgent}) =>
      createDeliveryAgent({
        allowLocalEndpoints: Boolean(this.#o.allowLocalEndpoints),
        resolver: this.#o.resolver,
      }),
    );
    this.#dispatcher.catch(() => {
      this.#dispatcher = undefined;
    });
    return this.#dispatcher;
  }

  /** Closes the transport if this maker loaded it. */
  async close(): Promise<void> {
    if (!this.#ownsDispatcher) return;
    await (await this.#dispatcher?.catch(() => undefined))?.close().catch(() => undefined);
  }
}
