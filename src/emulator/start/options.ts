// What startEmulator takes and hands back, and the error of a start that fails: the package's face re-exports
// them (index.ts); the wiring in this folder builds on them.
import type {ClockSetting, SignatureClock} from '../../definitions.js';
import type {EmulatorControl} from '@svc/client';
import type {RateLimitSetting} from '../auth/rate-limiter.js';
import type {Clock} from '../clock.js';
import type {EmulatorContext} from '../context.js';
import type {Database} from '../db/database.js';
import type {Repositories} from '../db/repositories.js';
import type {DemoKey} from '../demo-key.js';
import type {ChaosSettings} from '../delivery/chaos.js';
import type {DeliveryEngineOptions} from '../delivery/engine.js';
import type {Resolver} from '../net/address-policy.js';
import type {Snapshot} from '../../schemas/snapshot.js';
import type {LoadResult as StateLoadResult} from '../state/load.js';
import {type AboutOption, StartOptionError} from '../start-option.js';

export interface StartEmulatorOptions {
  /** Default 4010; 0 picks a free port. */
  port?: number;
  /** The address to listen on; default 127.0.0.1. */
  host?: string;
  /**
   * Names besides localhost, 127.0.0.1, [::1] and `host` that requests may be addressed to (a container's, a
   * tunnel's). Any other Host is refused (DNS rebinding).
   */
  allowedHosts?: string[];
  /**
   * Where data, vault.key and emulator.json live; required unless inMemory (then a temporary one by default).
   * The CLI passes the user data dir.
   */
  dataDir?: string;
  /** Where a database template is made and kept when the package has none built (the CLI passes the user cache). */
  templateCacheDir?: string;
  /** Nothing survives stop(). */
  inMemory?: boolean;
  /** A real PostgreSQL instead of the embedded one. */
  databaseUrl?: string;
  /**
   * `real` (default), `manual` (time moves only when told), or `scaled:N`: time runs N times as fast as real time
   * (a day of retries in 24 minutes at scaled:60), signatures still carrying the real time.
   */
  clock?: ClockSetting;
  /** Where a manual or scaled clock starts (default: now). */
  clockStart?: Date;
  /**
   * The time deliveries are signed with: 'real' (default), so a receiver on a real clock accepts them however
   * far a manual clock has moved; 'emulator' signs with the emulator's clock, for receivers whose tests share it.
   */
  signatureClock?: SignatureClock;
  /** Run like a deployment without a vault key: signing secrets cannot be stored or read. */
  noVaultKey?: boolean;
  /** 32 bytes; default: SVC_EMULATOR_VAULT_KEY is the caller's business, else <dataDir>/vault.key. */
  vaultKey?: Buffer;
  /** Lets endpoints use http:// and loopback/private hosts. For local development only. */
  allowLocalEndpoints?: boolean;
  /**
   * An API key of the default org made as the emulator starts (returned once as startKey), before the delivery
   * engine's first work: `svc emulator exec` hands one to its command without waiting behind that work.
   */
  startKey?: {name: string; createdBy?: string};
  /** Name the default org as a demo org and give it a demo key: the data dir's earlier one while it works, else a new one. */
  demo?: boolean;
  /**
   * The limit on failed authentications per address (429 `rate_limited` once spent): its size and window, or
   * `false` to turn it off, for API fuzzers only (it says so loudly at start, in `log`, and in the health answer).
   * Default: on, as the service limits repeated failures.
   */
  rateLimit?: RateLimitSetting;
  /** How long a port session waits for the app behind it to start answering (then 504); tests shorten it. */
  portSessionAnswerTimeoutMs?: number;
  log?: (line: string) => void;
  /** DNS resolution for endpoint checks and deliveries (tests pass a fake one). */
  lookup?: Resolver;
  /**
   * How the account page spells the CLI in the commands it suggests: the CLI passes how it was itself run
   * (`svc`, `npx svc`, or node and its path). Default `npx svc`, which runs in a project that depends on svc.
   */
  svcCommand?: string;
  /**
   * A snapshot (or seed) file loaded at start in place of the state, before the emulator answers; a seed
   * given too is loaded after it.
   */
  importFile?: string;
  /**
   * A seed file (JSON) loaded at start, before the emulator answers: its orgs, people, keys, endpoints and
   * sandboxes are added without firing any event, and its first org becomes the default org.
   */
  seed?: string;
  /**
   * Serve only, with no background work (no delivery attempts, no sandbox expiry): for a short-lived emulator
   * that loads, saves or resets the state of a data dir or database whose emulator is stopped.
   */
  serveOnly?: boolean;
  /** Delivery engine tuning (tests shorten the attempt timeout; benchmarks size the lanes). */
  delivery?: DeliveryEngineOptions;
  /** Delivery chaos for every endpoint (duplicates, held-back and delayed first attempts), from a seed. */
  chaos?: ChaosSettings;
}

export interface RunningEmulator {
  apiUrl: string;
  /**
   * The account page, for browsers: at its own name (`http://svc-<port>.localhost:<port>/account`) when it listens
   * on 127.0.0.1, ::1 or every interface. Node may not resolve that name; programs use apiUrl.
   */
  accountUrl: string;
  adminToken: string;
  dataDir: string;
  orgId: string;
  /** Someone owns the default org already (signed in to the account page on an earlier run): true at start. */
  owned: boolean;
  clock: Clock;
  db: Database;
  repos: Repositories;
  control: EmulatorControl;
  /** What the routes share; tests build extra apps over it with createApp. */
  context: EmulatorContext;
  /** Only with demo: the data dir's demo key, kept from an earlier start (reused) or minted by this one. */
  demoKey?: DemoKey;
  /** Only with the startKey option: its id and secret, shown nowhere else. */
  startKey?: {id: string; secret: string};
  /** Only with seed: what was loaded, with the secrets the seed left to the emulator (shown this once). */
  seeded?: StateLoadResult;
  /** Only with importFile: what was loaded. */
  imported?: StateLoadResult;
  /** The whole state as a snapshot document; it holds signing secrets in clear text. */
  exportState(): Promise<Snapshot>;
  stop(): Promise<void>;
  /** `await using emulator = await startEmulator(…)` stops it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Why a start failed (`code`); `option` names the option it is about, when it is about one. */
export class EmulatorStartError extends StartOptionError {
  constructor(
    message: AboutOption | string,
    readonly code:
      | 'already_running'
      | 'port_in_use'
      | 'data_dir_not_private'
      | 'invalid_option'
      | 'vault_key_mismatch'
      | 'start_failed'
      | 'invalid_state_file',
  ) {
    super(message);
    this.name = 'EmulatorStartError';
  }
}
