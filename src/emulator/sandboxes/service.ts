// Sandbox moves and the events they emit, each in one transaction with the event and its deliveries.
import type {EventType, SandboxAction} from '../../definitions.js';
import type {SandboxMove} from '../../schemas/emulator.js';
import type {EventSet} from '../../schemas/event-shape.js';
import type {Clock} from '../clock.js';
import type {Database, Queryable} from '../db/database.js';
import {recordEvent} from '../delivery/events.js';
import {base62, newId} from '../../ids.js';
import {OperationError} from '../operation-error.js';
import {PreparedStatements} from '../delivery/statements.js';
import {
  expiryWork,
  findSandbox,
  insertSandbox,
  listSandboxes,
  orgExists,
  type SandboxRecord,
  type SandboxRow,
  toRecord,
  updateSandbox,
} from './repository.js';
import {applyAction, forceForEvent, readyState, type SandboxState, TransitionError} from './transitions.js';

/** 404 not found. */
export class SandboxNotFoundError extends OperationError {
  constructor(what: string) {
    super('not_found', `no such ${what}`);
    this.name = 'SandboxNotFoundError';
  }
}

export interface SandboxServiceOptions {
  db: Database;
  clock: Clock;
  /** An org's time where it has a clock of its own (its sandboxes' times and expiry follow it). */
  orgNow?: (orgId: string) => Date;
  /** Called after a transaction that wrote an event commits, so the delivery worker looks at once. */
  onEvent?: () => void;
}

/** A sandbox move: the sandbox afterwards, the event it emitted (if any) and how many deliveries that made. */
export type MoveResult = SandboxMove;

export class SandboxService {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #orgNow: (orgId: string) => Date;
  readonly #onEvent: () => void;
  readonly #statements: PreparedStatements;

  constructor(options: SandboxServiceOptions) {
    this.#db = options.db;
    this.#statements = new PreparedStatements(options.db);
    this.#clock = options.clock;
    this.#orgNow = options.orgNow ?? (() => this.#clock.now());
    this.#onEvent = options.onEvent ?? (() => undefined);
  }

  async create(input: {orgId: string; name?: string; expiresInMs?: number}): Promise<MoveResult> {
    const now = this.#orgNow(input.orgId);
    const expiresAt = input.expiresInMs === undefined ? null : new Date(now.getTime() + input.expiresInMs);
    return this.#write(async (tx) => {
      await this.#requireOrg(tx, input.orgId);
      return this.#insertReady(tx, input.orgId, input.name ?? defaultName(), expiresAt, now);
    });
  }

  async act(id: string, action: SandboxAction, options: {lastError?: string} = {}): Promise<MoveResult> {
    return this.#write(async (tx) => {
      const current = await findSandbox(tx, id, true);
      if (!current) throw new SandboxNotFoundError('sandbox');
      const now = this.#orgNow(current.org_id);
      const move = applyAction(current, action, options);
      if (action === 'fork') {
        return this.#insertReady(tx, current.org_id, `${current.name}-fork`, null, now);
      }
      return this.#apply(tx, current, move.state, move.event, now);
    });
  }

  /** Emits one event of `type`, creating a sandbox in the implied state when none is named. */
  async trigger(input: {
    orgId: string;
    type: EventType;
    sandboxId?: string;
    lastError?: string;
    sets?: readonly EventSet[];
  }): Promise<MoveResult> {
    const now = this.#orgNow(input.orgId);
    // A new sandbox, its event and the deliveries are one statement: atomic without a transaction's two extra
    // round trips, which on PGlite cost about as much as the statement's own planning-free execution.
    if (!input.sandboxId) return this.#write((q) => this.#triggerNew(q, input, now), {single: true});
    const sandboxId = input.sandboxId;
    return this.#write(async (tx) => {
      const current = await findSandbox(tx, sandboxId, true);
      if (!current || current.org_id !== input.orgId) throw new SandboxNotFoundError('sandbox in this org');
      const next = forceForEvent(current, input.type, {lastError: input.lastError, now});
      return this.#apply(tx, current, next, input.type, now, input.sets);
    });
  }

  /** A sandbox born in the state the event implies, stored with the event and its deliveries. */
  async #triggerNew(
    q: Queryable,
    input: {orgId: string; type: EventType; lastError?: string; sets?: readonly EventSet[]},
    now: Date,
  ): Promise<MoveResult> {
    const fresh: SandboxRow = {
      id: newId('sandbox'),
      org_id: input.orgId,
      name: defaultName(),
      ...readyState(null),
      created_at: now,
      updated_at: now,
    };
    const row = {...fresh, ...forceForEvent(fresh, input.type, {lastError: input.lastError, now})};
    try {
      const recorded = await recordEvent(
        q,
        {
          orgId: input.orgId,
          type: input.type,
          sandbox: row,
          now,
          insertSandbox: row,
          sets: input.sets,
        },
        this.#statements,
      );
      return {sandbox: toRecord(row), event: recorded.event, deliveries: recorded.deliveryIds.length};
    } catch (err) {
      if ((err as {code?: string}).code === '23503') throw new SandboxNotFoundError('org');
      throw err;
    }
  }

  async get(id: string): Promise<SandboxRecord> {
    const row = await findSandbox(this.#db, id);
    if (!row) throw new SandboxNotFoundError('sandbox');
    return toRecord(row);
  }

  async list(orgId: string): Promise<SandboxRecord[]> {
    await this.#requireOrg(this.#db, orgId);
    return (await listSandboxes(this.#db, orgId)).map(toRecord);
  }

  /** Moves every sandbox whose `expires_at` has passed on the clock; returns when the next one will. */
  async expireDue(now: Date): Promise<Date | null> {
    for (;;) {
      // `next` leaves out what is due now, so expiring it does not change the answer.
      const {due, next} = await expiryWork(this.#db, now, 100);
      for (const id of due) {
        await this.#write(async (tx) => {
          const current = await findSandbox(tx, id, true);
          // Another process (or a trigger) may have moved it since it was listed.
          const orgTime = current ? this.#orgNow(current.org_id) : now;
          if (
            !current ||
            current.status === 'deleting' ||
            !current.expires_at ||
            current.expires_at > orgTime
          ) {
            return null;
          }
          const move = applyAction(current, 'expire');
          return this.#apply(tx, current, move.state, move.event, orgTime);
        });
      }
      if (due.length < 100) return next;
    }
  }

  async #write<T extends MoveResult | null>(
    fn: (q: Queryable) => Promise<T>,
    options: {single?: boolean} = {},
  ): Promise<T> {
    const result = options.single ? await fn(this.#db) : await this.#db.transaction(fn);
    if (result?.event) this.#onEvent();
    return result;
  }

  async #insertReady(tx: Queryable, orgId: string, name: string, expiresAt: Date | null, now: Date) {
    const row: SandboxRow = {
      id: newId('sandbox'),
      org_id: orgId,
      name,
      ...readyState(expiresAt),
      created_at: now,
      updated_at: now,
    };
    await insertSandbox(tx, row);
    const recorded = await recordEvent(
      tx,
      {orgId, type: 'sandbox.ready', sandbox: row, now},
      this.#statements,
    );
    return {sandbox: toRecord(row), event: recorded.event, deliveries: recorded.deliveryIds.length};
  }

  async #apply(
    tx: Queryable,
    current: SandboxRow,
    next: SandboxState,
    event: EventType | null,
    now: Date,
    sets?: readonly EventSet[],
  ): Promise<MoveResult> {
    await updateSandbox(tx, current.id, next, now);
    const row: SandboxRow = {...current, ...next, updated_at: now};
    if (!event) return {sandbox: toRecord(row), event: null, deliveries: 0};
    const recorded = await recordEvent(
      tx,
      {orgId: current.org_id, type: event, sandbox: row, now, sets},
      this.#statements,
    );
    return {sandbox: toRecord(row), event: recorded.event, deliveries: recorded.deliveryIds.length};
  }

  async #requireOrg(q: Queryable, orgId: string): Promise<void> {
    if (!(await orgExists(q, orgId))) throw new SandboxNotFoundError('org');
  }
}

function defaultName(): string {
  return `sandbox-${base62(6).toLowerCase()}`;
}

export {TransitionError};
