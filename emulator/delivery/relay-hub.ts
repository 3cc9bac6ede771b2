// In-process rendezvous between the delivery worker and `svc listen` clients: the worker hands an attempt to
// the listener attached to a relay endpoint and waits for the listener to report what the local server said.
import {hostname} from 'node:os';
import {performance} from 'node:perf_hooks';
import {isProcessAlive} from '../../src/client/emulator-runtime.js';
import type {RelayDelivery, RelayMessage, RelayReport} from '../../src/schemas/emulator.js';
import type {AttemptResult} from './sender.js';

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
  timer: NodeJS.Timeout;
  resolve(result: AttemptResult): void;
}

export class RelayHub {
  readonly #connections = new Map<string, RelayConnection>();
  readonly #holders = new Map<string, RelayHolder>();
  readonly #waiting = new Map<string, Waiting>();
  readonly #listeners = new Set<() => void>();

  /**
   * Attaches a listener to an endpoint and returns the detach function. A relay held by another run is refused
   * (RelayBusyError): two listeners replacing each other would knock each other off for good. The same run
   * coming back (its connection went stale) takes its own place back.
   */
  attach(endpointId: string, connection: RelayConnection, holder: RelayHolder): () => void {
    const current = this.holder(endpointId);
    if (current && current.listener_id !== holder.listener_id) throw new RelayBusyError(current);
    const previous = this.#connections.get(endpointId);
    this.#connections.set(endpointId, connection);
    this.#holders.set(endpointId, holder);
    if (previous) {
      this.#failWaiting(endpointId, 'relay listener reconnected');
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

  /**
   * The run holding a relay, if any. A holder that was a process on this machine and has exited is let go here:
   * its stream's close may not have been seen yet (a stopped `svc listen` restarted at once would otherwise be
   * told the relay is busy, naming a process that no longer runs).
   */
  holder(endpointId: string): RelayHolder | undefined {
    const current = this.#holders.get(endpointId);
    if (!current || current.pid === null || current.host !== hostname() || isProcessAlive(current.pid))
      return current;
    const connection = this.#connections.get(endpointId);
    this.#connections.delete(endpointId);
    this.#holders.delete(endpointId);
    this.#failWaiting(endpointId, 'relay listener exited');
    connection?.close();
    this.#changed();
    return undefined;
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
      const timer = setTimeout(() => {
        this.#waiting.delete(key);
        resolve({
          ok: false,
          statusCode: null,
          error: `relay listener did not answer within ${timeoutMs} ms`,
          durationMs: Math.round(performance.now() - started),
          responseBody: null,
        });
      }, timeoutMs);
      this.#waiting.set(key, {endpointId, started, timer, resolve});
      connection.send(message);
    });
  }

  /** A listener's answer for one attempt. False when nothing waits for it (late, duplicate or foreign). */
  report(endpointId: string, deliveryId: string, attempt: number, report: RelayAnswer, ok: boolean): boolean {
    const key = waitKey(deliveryId, attempt);
    const waiting = this.#waiting.get(key);
    if (!waiting || waiting.endpointId !== endpointId) return false;
    this.#waiting.delete(key);
    clearTimeout(waiting.timer);
    waiting.resolve({
      ok,
      statusCode: report.status_code,
      error: report.error,
      durationMs: Math.max(0, Math.round(report.duration_ms)),
      responseBody: report.body,
    });
    return true;
  }

  closeAll(): void {
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
      clearTimeout(waiting.timer);
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
