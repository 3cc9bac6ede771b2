// What routes and background workers of one emulator share; built once by startEmulator (or a test).
import type {Authenticator} from './auth/authenticator.js';
import type {AuthFailureLimiter} from './auth/rate-limiter.js';
import type {Clock} from './clock.js';
import type {Database} from './db/database.js';
import type {DatabaseSignals} from './db/notify.js';
import type {Repositories} from './db/repositories.js';
import type {Resolver} from './net/address-policy.js';
import type {EmulatorApp} from './app-env.js';
import type {HostPolicy} from './net/host-policy.js';
import type {RequestLog} from './request-log.js';
import type {Attempter} from './delivery/attempter.js';
import type {Vault} from './vault.js';
import type {LinkTraffic} from './links/traffic.js';
import type {OrgClocks} from './org-clocks.js';
import type {DeliveryChanges} from './delivery/changes.js';

export interface EmulatorContext {
  db: Database;
  repos: Repositories;
  clock: Clock;
  /** The clocks of orgs that have one of their own (the emulator's clock plus an offset); use orgNow for an org's time. */
  orgClocks?: OrgClocks;
  vault: Vault;
  auth: Authenticator;
  /** Failed API keys on /v1, per address. */
  limiter: AuthFailureLimiter;
  /** Failed admin tokens on /_emulator, per address: a budget of its own. */
  controlLimiter: AuthFailureLimiter;
  /** The org that control calls act on when they name none. */
  orgId: string;
  adminToken: string;
  allowLocalEndpoints: boolean;
  /** The names requests may be addressed to (Host, Origin): a defence against DNS rebinding. */
  hosts: HostPolicy;
  /** DNS resolution for endpoint checks; injectable so tests need no network. */
  lookup: Resolver;
  log: (line: string) => void;
  /** How the commands the account page suggests spell svc: the CLI passes how it was run; a library user gets `npx svc`. */
  svc: string;
  /** Every /v1, control and account-page request of this process, with the real reason of each refusal. */
  requestLog: RequestLog;
  /** Only on PostgreSQL, which other emulator processes may share: word of their writes, events and clock moves. */
  signals?: DatabaseSignals;
  /** Sends a resend's attempt (the delivery engine's worker, once it runs); the account page resends through it. */
  resendAttempter?: () => Attempter | undefined;
  /**
   * Moves on each time the state is replaced (reset, a replacing import, a load): whatever a surface cached of
   * the old state (the account page's sessions) is dropped.
   */
  stateEpoch?: number;
  /**
   * Resolves once the deliveries due at the clocks' current times have been attempted and recorded (the delivery
   * engine's worker, once it runs).
   */
  settle?: () => Promise<void>;
  /** Word that deliveries changed, in this process or another sharing the database (the delivery engine's). */
  deliveryChanges?: DeliveryChanges;
  /** Told of each endpoint deleted through this process (the relay lets its `svc listen` go with a reason). */
  endpointDeletions?: Set<(endpointId: string) => void>;
  /** What flows through port sessions now, cut as soon as its link stops working (absent: nothing is tracked). */
  linkTraffic?: LinkTraffic;
}

/** The time of one org: its own clock when it has one, else the emulator's. */
export function orgNow(ctx: Pick<EmulatorContext, 'clock' | 'orgClocks'>, orgId: string): Date {
  return ctx.orgClocks ? ctx.orgClocks.now(orgId) : ctx.clock.now();
}

export type {AppEnv, EmulatorApp} from './app-env.js';

/**
 * A part of the emulator beyond the core (the delivery engine, sandboxes): it may add routes
 * (control routes under /_emulator/ are admin-only automatically) and run in the background
 * between start and stop.
 */
export interface EmulatorPlugin {
  name: string;
  routes?(app: EmulatorApp, ctx: EmulatorContext): void;
  start?(ctx: EmulatorContext): Promise<void> | void;
  /** Called as the server starts closing: end long-lived streams so the close need not wait for them. */
  closing?(): void;
  /** Should finish in-flight work; called before the database closes. */
  stop?(): Promise<void> | void;
}
