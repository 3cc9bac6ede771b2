// What routes and operations of one emulator share: built once by start/context.ts (or a test), in order, with
// every part already made (the delivery engine and the sandboxes included), and never written after. The one
// part that changes, the default org and the state's epoch, changes inside `current` (current-state.ts).
import type {Authenticator} from './auth/authenticator.js';
import type {AuthFailureLimiter} from './auth/rate-limiter.js';
import type {Clock} from './clock.js';
import type {CurrentState} from './current-state.js';
import type {Database} from './db/database.js';
import type {ReadBarrier} from './db/read-barrier.js';
import type {DatabaseSignals} from './db/notify.js';
import type {Repositories} from './db/repositories.js';
import type {DeliveryEngine} from './delivery/engine.js';
import type {Resolver} from './net/address-policy.js';
import type {EmulatorApp} from './app-env.js';
import type {HostPolicy} from './net/host-policy.js';
import type {RequestLog} from './request-log.js';
import type {Vault} from './vault.js';
import type {LinkTraffic} from './sandboxes/link-traffic.js';
import type {SandboxService} from './sandboxes/service.js';
import type {OrgClocks} from './org-clocks.js';

export interface EmulatorContext {
  readonly db: Database;
  readonly repos: Repositories;
  readonly clock: Clock;
  /** The clocks of orgs that have one of their own (the emulator's clock plus an offset); use orgNow for an org's time. */
  readonly orgClocks: OrgClocks;
  readonly vault: Vault;
  readonly auth: Authenticator;
  /** Failed API keys on /v1, per address. */
  readonly limiter: AuthFailureLimiter;
  /** Failed admin tokens on /_emulator, per address: a budget of its own. */
  readonly controlLimiter: AuthFailureLimiter;
  /** The default org (the one control calls act on when they name none) and the state's epoch. */
  readonly current: CurrentState;
  readonly adminToken: string;
  readonly allowLocalEndpoints: boolean;
  /** The names requests may be addressed to (Host, Origin): a defence against DNS rebinding. */
  readonly hosts: HostPolicy;
  /** DNS resolution for endpoint checks; injectable so tests need no network. */
  readonly lookup: Resolver;
  readonly log: (line: string) => void;
  /** How the commands the account page suggests spell svc: the CLI passes how it was run; a library user gets `npx svc`. */
  readonly svc: string;
  /** Every /v1, control and account-page request of this process, with the real reason of each refusal. */
  readonly requestLog: RequestLog;
  /** Word of other processes' writes, events and clock moves: only on PostgreSQL (undefined on PGlite). */
  readonly signals: DatabaseSignals | undefined;
  /** When a request's reads may use the caches (on a shared PostgreSQL, once this process heard every earlier write). */
  readonly reads: ReadBarrier;
  /** Told of each endpoint deleted through this process (the relay lets its `svc listen` go with a reason). */
  readonly endpointDeletions: Set<(endpointId: string) => void>;
  /** What flows through port sessions now, cut as soon as its link stops working. */
  readonly linkTraffic: LinkTraffic;
  /**
   * The delivery engine: its worker (which sends a resend's attempt too), the relay, chaos, word of changed
   * deliveries, and `settle`. Built before the context; started once the emulator answers.
   */
  readonly engine: DeliveryEngine;
  /** Sandboxes and the events they record (for the engine, whose sweep expires them). */
  readonly sandboxes: SandboxService;
}

/** The time of one org: its own clock when it has one, else the emulator's. */
export function orgNow(ctx: Pick<EmulatorContext, 'orgClocks'>, orgId: string): Date {
  return ctx.orgClocks.now(orgId);
}

export type {AppEnv, EmulatorApp} from './app-env.js';

/** Routes of a part beyond the emulator's own, mounted by createApp after them (control routes are admin-only). */
export interface EmulatorPlugin {
  name: string;
  routes?(app: EmulatorApp, ctx: EmulatorContext): void;
}
