// In-process rendezvous between the delivery worker and `svc listen` clients: the worker hands an attempt to
// the listener attached to a relay endpoint and waits for the listener to report what the local server said.
import {performance} from 'node:perf_hooks';
import type {RelayDelivery, RelayMessage, RelayReport} from '../../src/schemas/emulator.js';
import type {AttemptResult} from './sender.js';

export type {RelayDelivery};

/** What `svc listen` said of one attempt: the record of the relay's answer without the ids it was sent under. */
export type RelayAnswer = Omit<RelayReport, 'delivery_id' | 'attempt'>;

export interface RelayConnection {
  send(message: RelayMessage): void;
  close(): void;
}

interface Waiting {
  endpointId: string;
  started: number;
  timer: NodeJS.Timeout;
  resolve(result: AttemptResult): void;
}

export class RelayHub {
  readonly #connections = new Map<string, RelayConnection>();
  readonly #waiting = new Map<string, Waiting>();
  readonly #listeners = new Set<() => void>();

  /** Attaches a listener to an endpoint, replacing (and closing) an older one. Returns the detach function. */
  attach(endpointId: string, connection: RelayConnection): () => void {
    const previous = this.#connections.get(endpointId);
    this.#connections.set(endpointId, connection);
    if (previous) {
      this.#failWaiting(endpointId, 'relay listener replaced by a newer one');
      previous.close();
    }
    this.#changed();
    return () => {
      if (this.#connections.get(endpointId) !== connection) return;
      this.#connections.delete(endpointId);
      this.#failWaiting(endpointId, 'relay listener disconnected');
      this.#changed();
    };
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
