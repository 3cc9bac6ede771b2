// In-process rendezvous between the delivery worker and `svc listen` clients: the worker hands an attempt to
// the listener attached to a relay endpoint and waits for the listener to report what the local server said.
import {performance} from 'node:perf_hooks';
import type {
  RelayDelivery,
  RelayHolder as PublicRelayHolder,
  RelayMessage,
  RelayReport,
} from '../../schemas/emulator.js';
import type {AttemptResult} from './sender.js';
import {realTimers, type Timers} from './timers.js';

export type {RelayDelivery};

/** What `svc listen` said of one attempt: the record of the relay's answer without the ids it was sent under. */
export type RelayAnswer = Omit<RelayReport, 'delivery_id' | 'attempt'>;

export interface RelayConnection {
  send(message: RelayMessage): void;
  close(): void;
}

/** Who holds a relay: one `svc listen` run, named so a second one can be told which process to look for. */
export interface RelayHolder {
  /** Random per run: a run that reconnects takes its own place back. */
  listener_id: string;
  pid: number | null;
  host: string | null;
  /** ISO time the holder attached (the emulator's real time, as a person would read it). */
  since: string;
}

/** What others are told of a holder: never its listener id, which is what lets a run take its own place back. */
export function publicHolder(holder: RelayHolder): PublicRelayHolder {
  return {pid: holder.pid, host: holder.host, since: holder.since};
}

/** A relay is held by another `svc listen`: one listener per relay at a time, the first one keeps it. */
export class RelayBusyError extends Error {
  constructor(readonly holder: RelayHolder) {
    super(
      `this relay is already forwarded by another svc listen (${describeHolder(holder)}); only one may ` +
        'forward it at a time',
    );
    this.name = 'RelayBusyError';
  }
}

export function describeHolder(holder: RelayHolder): string {
  const where = holder.host ? ` on ${holder.host}` : '';
  const process = holder.pid === null ? `a process${where}` : `process ${holder.pid}${where}`;
  return `${process}, since ${holder.since}`;
}

interface Waiting {
  endpointId: string;
  started: number;
  /** Cancels the answer's timeout. */
  cancel(): void;
  resolve(result: AttemptResult): void;
}

export class RelayHub {
  readonly #connections = new Map<string, RelayConnection>();
  readonly #holders = new Map<string, RelayHolder>();
  readonly #waiting = new Map<string, Waiting>();
  readonly #timers: Timers;

  readonly #listeners = new Set<() => void>();
  /** The emulator is stopping: streams that come now end at once (closeAll ran before they were attached). */
  #closed = false;

  /** `timers`: the real time an answer is waited for (tests pass fake ones). */
  constructor(timers: Timers = realTimers) {
    this.#timers = timers;
  }

  /**
   * Attaches a listener to an endpoint and returns the detach function. Who may hold the relay is the lease's
   * word (relay-lease.ts), asked before: the same run coming back (its connection went stale) takes its own place
   * back; another run attached here was taken over, and its stream is told by whom before it is let go.
   */
  attach(endpointId: string, connection: RelayConnection, holder: RelayHolder): () => void {
    if (this.#closed) {
      connection.close();
      return () => undefined;
    }
    const previous = this.#connections.get(endpointId);
    const previousHolder = this.#holders.get(endpointId);
    this.#connections.set(endpointId, connection);
    this.#holders.set(endpointId, holder);
    if (previous) {
      const replaced = previousHolder && previousHolder.listener_id !== holder.listener_id;
      if (replaced) previous.send({type: 'taken_over', endpoint_id: endpointId, by: publicHolder(holder)});
      this.#failWaiting(
        endpointId,
        replaced ? 'relay taken over by another svc listen' : 'relay listener reconnected',
        Boolean(replaced),
      );
      previous.close();
    }
    this.#changed();
    return () => {
      if (this.#connections.get(endpointId) !== connection) return;
      this.#connections.delete(endpointId);
      this.#holders.delete(endpointId);
      this.#failWaiting(endpointId, 'relay listener disconnected');
      this.#changed();
    };
  }

  /** The run whose stream this process holds for a relay, if any. */
  holderHere(endpointId: string): RelayHolder | undefined {
    return this.#holders.get(endpointId);
  }

  /** Every relay whose stream this process holds, with its run: the leases to renew. */
  heldHere(): {endpointId: string; holder: RelayHolder}[] {
    return [...this.#holders].map(([endpointId, holder]) => ({endpointId, holder}));
  }

  /** Another run took the relay (through this process or another): the stream here is told by whom, then let go. */
  takenOver(endpointId: string, by: RelayHolder): void {
    const connection = this.#connections.get(endpointId);
    if (!connection) return;
    connection.send({type: 'taken_over', endpoint_id: endpointId, by: publicHolder(by)});
    this.#connections.delete(endpointId);
    this.#holders.delete(endpointId);
    this.#failWaiting(endpointId, 'relay taken over by another svc listen', true);
    connection.close();
    this.#changed();
  }

  /** The same run streams through another process now: this stream, which it left, is closed without a word. */
  stale(endpointId: string): void {
    const connection = this.#connections.get(endpointId);
    if (!connection) return;
    this.#connections.delete(endpointId);
    this.#holders.delete(endpointId);
    this.#failWaiting(endpointId, 'relay listener reconnected through another process', true);
    connection.close();
    this.#changed();
  }

  /** The relay endpoint is gone: its listener is told why, then let go. */
  deleted(endpointId: string): void {
    const connection = this.#connections.get(endpointId);
    if (!connection) return;
    connection.send({type: 'deleted', endpoint_id: endpointId});
    this.#connections.delete(endpointId);
    this.#holders.delete(endpointId);
    this.#failWaiting(endpointId, 'relay endpoint deleted', true);
    connection.close();
    this.#changed();
  }

  isConnected(endpointId: string): boolean {
    return this.#connections.has(endpointId);
  }

  connectedIds(): string[] {
    return [...this.#connections.keys()];
  }

  /** Called when a listener attaches or leaves, so the worker can pick up what waited for it. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  deliver(endpointId: string, message: RelayDelivery, timeoutMs: number): Promise<AttemptResult> {
    const connection = this.#connections.get(endpointId);
    if (!connection) {
      return Promise.resolve({
        ok: false,
        statusCode: null,
        error: 'no relay listener attached',
        durationMs: 0,
        responseBody: null,
        aborted: true,
      });
    }
    const key = waitKey(message.delivery_id, message.attempt);
    return new Promise<AttemptResult>((resolve) => {
      const started = performance.now();
      const cancel = this.#timers.setTimeout(() => {
        this.#waiting.delete(key);
        resolve({
          ok: false,
          statusCode: null,
          error: `relay listener did not answer within ${timeoutMs} ms`,
          durationMs: Math.round(performance.now() - started),
          responseBody: null,
        });
      }, timeoutMs);
      this.#waiting.set(key, {endpointId, started, cancel, resolve});
      connection.send(message);
    });
  }

  /** A listener's answer for one attempt. False when nothing waits for it (late, duplicate or foreign). */
  report(endpointId: string, deliveryId: string, attempt: number, report: RelayAnswer, ok: boolean): boolean {
    const key = waitKey(deliveryId, attempt);
    const waiting = this.#waiting.get(key);
    if (!waiting || waiting.endpointId !== endpointId) return false;
    this.#waiting.delete(key);
    waiting.cancel();
    waiting.resolve({
      ok,
      statusCode: report.status_code,
      error: report.error,
      durationMs: Math.max(0, Math.round(report.duration_ms)),
      responseBody: report.body,
    });
    return true;
  }

  /** The emulator stops: every stream ends, and one asked for from now on ends as soon as it is attached. */
  closeAll(): void {
    this.#closed = true;
    for (const [endpointId, connection] of this.#connections) {
      this.#connections.delete(endpointId);
      this.#holders.delete(endpointId);
      this.#failWaiting(endpointId, 'emulator shutting down', true);
      connection.close();
    }
  }

  #failWaiting(endpointId: string, error: string, aborted = false): void {
    for (const [key, waiting] of this.#waiting) {
      if (waiting.endpointId !== endpointId) continue;
      this.#waiting.delete(key);
      waiting.cancel();
      waiting.resolve({
        ok: false,
        statusCode: null,
        error,
        durationMs: Math.round(performance.now() - waiting.started),
        responseBody: null,
        aborted,
      });
    }
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }
}

function waitKey(deliveryId: string, attempt: number): string {
  return `${deliveryId}#${attempt}`;
}
