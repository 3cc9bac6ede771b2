// The worker's chores between claims: the clock-driven sweep (sandbox expiry, retention), run when a clock moved,
// when it said it would next be needed, or at least every second of real time; and VACUUM (ANALYZE) of the
// delivery tables and the checkpoints' journal on a database this process owns, which PGlite (without autovacuum)
// needs to stay fast.
import {CHECKPOINT_TABLES} from '../../schemas/checkpoints.js';
import type {Clock, Timers} from '../clock.js';
import type {Database} from '../db/database.js';
import {journalTable} from '../db/tables.js';
import type {AttemptWriter} from './attempt-record.js';

const SWEEP_INTERVAL_MS = 1_000;

/** The tables attempts and events are written to, which gather dead rows. */
const VACUUMED = ['deliveries', 'delivery_attempts', 'events', 'sandboxes'];
/**
 * The journal of the orgs' checkpoints, whose entries a rewind forgets once used: left dead, they made each later
 * rewind of an org look through them (one of an org of 10,000 deliveries went from 12 ms to 35 ms over 40 rounds).
 */
const JOURNALS = CHECKPOINT_TABLES.map(journalTable);

export interface MaintenanceOptions {
  db: Database;
  clock: Clock;
  timers: Timers;
  writer: AttemptWriter;
  /** Clock-driven chores; returns when it next needs to run, if known. */
  sweep?: (now: Date) => Promise<Date | null>;
  /** Attempts recorded (and rows written otherwise) between two VACUUM runs; only on a database this process owns. */
  vacuumEvery?: number;
}

export class Maintenance {
  readonly #o: MaintenanceOptions;
  #sweepDue = true;
  #lastSweepReal = 0;
  #nextSweepAt: Date | null = null;

  constructor(options: MaintenanceOptions) {
    this.#o = options;
  }

  /** When the sweep said it next needs to run (emulator-clock time), if known. */
  get nextSweepAt(): Date | null {
    return this.#nextSweepAt;
  }

  /** A clock moved: the sweep runs at the next pass. */
  clockMoved(): void {
    this.#sweepDue = true;
  }

  /**
   * Rows written other than by the attempts (a rewind puts thousands back at once): each leaves a dead row as an
   * attempt does, and brings the next VACUUM as near. One they bring due runs before this resolves: the writer
   * that left the dead rows waits for it, not whichever request comes next.
   */
  async rowsWritten(count: number): Promise<void> {
    this.#o.writer.written += count;
    await this.#maybeVacuum();
  }

  /** The chores that are due, one after another. */
  async run(): Promise<void> {
    await this.#maybeSweep();
    await this.#maybeVacuum();
  }

  async #maybeSweep(): Promise<void> {
    const sweep = this.#o.sweep;
    if (!sweep) return;
    const realNow = this.#o.timers.now();
    const clockNow = this.#o.clock.now();
    const due =
      this.#sweepDue ||
      realNow - this.#lastSweepReal >= SWEEP_INTERVAL_MS ||
      (this.#nextSweepAt !== null && this.#nextSweepAt <= clockNow);
    if (!due) return;
    this.#sweepDue = false;
    this.#lastSweepReal = realNow;
    this.#nextSweepAt = await sweep(clockNow);
  }

  async #maybeVacuum(): Promise<void> {
    const every = this.#o.vacuumEvery;
    if (every === undefined || this.#o.writer.written < every) return;
    this.#o.writer.written = 0;
    // Short next to the attempts it follows. The lanes keep sending meanwhile; only their records wait.
    await this.#o.db.query(`VACUUM (ANALYZE) ${VACUUMED.join(', ')}`);
    // VACUUM alone for the journal, whose rows are read by the org and the number (VACUUM sets the tables' sizes).
    await this.#o.db.query(`VACUUM ${JOURNALS.join(', ')}`);
  }
}
