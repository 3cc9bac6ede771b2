// What a delivery worker is told: its database, clocks, vault and relay, and its tuning (lanes, batch sizes, leases,
// idle looks, chores), with the defaults a worker runs on when a value is not given.
import type {Dispatcher} from 'undici';
import type {Clock} from '../clock.js';
import type {Database} from '../db/database.js';
import type {Resolver} from '../net/address-policy.js';
import type {Vault} from '../vault.js';
import type {AttemptRecord} from './attempt-repository.js';
import type {ChaosPlan} from './chaos.js';
import type {RelayHub} from './relay-hub.js';
import {DELIVERY_TIMEOUT_MS, RESPONSE_BODY_LIMIT_BYTES} from './retry-policy.js';
import type {Timers} from './timers.js';

export interface DeliveryWorkerOptions {
  db: Database;
  clock: Clock;
  /** Real time for leases, sleeps and write retries; tests pass fake ones. Default: the process's. */
  timers?: Timers;
  /**
   * Unix milliseconds a signature's `t` is taken from, given how far the delivery's org clock runs ahead of the
   * emulator's and the org time the attempt is made at; the real time unless the emulator is told otherwise.
   */
  signatureNowMs?: (orgOffsetMs: number, atMs?: number) => number;
  vault: Vault;
  relay?: RelayHub;
  /** Lets endpoints on loopback/private addresses and plain http:// be delivered to (local development). */
  allowLocalEndpoints?: boolean;
  /** Name resolution for delivery targets; injectable so tests can simulate DNS rebinding offline. */
  resolver?: Resolver;
  /** Replaces the delivery agent entirely (benchmarks); the caller owns and closes it. */
  dispatcher?: Dispatcher;
  /** Real-time limit of one attempt; the spec's 10 s unless a test shortens it. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Endpoints served at once; each has at most one attempt in flight. */
  maxLanes?: number;
  /** Deliveries one lane takes per claim, sent one after another. */
  perEndpoint?: number;
  /** Outcomes a lane hands to the writer at a time while it keeps sending. */
  recordChunk?: number;
  claimLimit?: number;
  leaseMs?: number;
  /** Longest sleep without a known due time: picks up other processes' writes and expired leases. */
  idleMs?: number;
  /**
   * On a scaled clock, at least how many real milliseconds before a delivery falls due the worker claims it (more
   * while claims are slow); its lane then waits for the due instant itself, so the claim and the chores before it
   * do not make the attempt late (at 60x a millisecond of real time is 60 ms of the clock's). Not used on a real or
   * manual clock.
   */
  claimAheadMs?: number;
  /**
   * This process alone uses the database (PGlite owns its data dir): claims read instead of locking and
   * leasing, and leases left by an earlier run are freed at start.
   */
  exclusiveDatabase?: boolean;
  /**
   * Attempts recorded (and rows a rewind wrote back) between two VACUUM (ANALYZE) runs of the delivery tables, on
   * a database this process owns.
   * PGlite has no autovacuum: without this, every retry and every purge leaves dead rows and index entries
   * behind for good, and the planner never learns how large the tables have grown.
   */
  vacuumEvery?: number;
  /**
   * Claimed deliveries were handed back unsent (shutdown, a lane that could not go on): on a shared database,
   * tells the other processes, which may take them at once.
   */
  onHandBack?: () => void;
  /** Delivery chaos (duplicates, held-back and delayed first attempts); none when absent. */
  chaos?: ChaosPlan;
  /** Told after attempts were recorded: by the lanes' writer with the records, without them for a chaos duplicate. */
  onRecorded?: (records?: readonly AttemptRecord[]) => void;
  /** Clock-driven chores (sandbox expiry, retention); returns when it next needs to run, if known. */
  sweep?: (now: Date) => Promise<Date | null>;
  log?: (line: string) => void;
}

type Tuning = Required<
  Pick<
    DeliveryWorkerOptions,
    | 'timeoutMs'
    | 'maxResponseBytes'
    | 'maxLanes'
    | 'perEndpoint'
    | 'claimLimit'
    | 'leaseMs'
    | 'idleMs'
    | 'claimAheadMs'
    | 'vacuumEvery'
    | 'recordChunk'
  >
>;

/** The worker's options the engine's callers may set (startEmulator's `delivery.worker`). */
export type WorkerTuning = Pick<
  DeliveryWorkerOptions,
  | 'maxLanes'
  | 'perEndpoint'
  | 'claimLimit'
  | 'idleMs'
  | 'leaseMs'
  | 'maxResponseBytes'
  | 'timers'
  | 'vacuumEvery'
>;

/** The options with every tuning value set. */
export type TunedWorkerOptions = Tuning & DeliveryWorkerOptions;

/** The options with the defaults filled in; an option passed as undefined means "the default", not "no limit". */
export function withDefaults(options: DeliveryWorkerOptions): TunedWorkerOptions {
  return {
    timeoutMs: DELIVERY_TIMEOUT_MS,
    maxResponseBytes: RESPONSE_BODY_LIMIT_BYTES,
    maxLanes: 16,
    perEndpoint: 128,
    recordChunk: 32,
    claimLimit: 1024,
    leaseMs: 60_000,
    idleMs: 5_000,
    claimAheadMs: 100,
    vacuumEvery: 20_000,
    ...(Object.fromEntries(
      Object.entries(options).filter(([, v]) => v !== undefined),
    ) as DeliveryWorkerOptions),
  };
}
