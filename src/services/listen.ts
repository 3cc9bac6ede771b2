// `svc listen`: receives the emulator's deliveries for a relay endpoint over a streaming connection and forwards
// the exact bytes and Svc-* headers to a local URL, one at a time, reporting each answer back so the delivery
// record and its retries reflect what the local server did. Reconnects (with backoff) when the emulator restarts.
import {randomUUID} from 'node:crypto';
import {hostname} from 'node:os';
import type {Dispatcher} from 'undici';
import {
  type EmulatorControl,
  EmulatorControlError,
  type RelayDelivery,
  type RelayHolder,
  type RelayRegistration,
  type RuntimeInfo,
} from '@svc/client';
import {describeNetworkError, postDelivery} from '../deliver.js';
import {DELIVERY_TIMEOUT_MS, type EventType} from '../definitions.js';
import {UserError, usageError} from '../lib/errors.js';
import {ExitCode} from '../lib/exit-codes.js';
import {currentSvcCommand} from '../lib/invocation.js';
import {dataDirArg, FORWARD_EXAMPLE} from '../lib/hints.js';
import {type ConnectOptions, connectControl} from './emulator/connect.js';
import {parseEventType} from './events/event-type.js';

/** The local server gets the time the service gives any endpoint. */
export const FORWARD_TIMEOUT_MS = DELIVERY_TIMEOUT_MS;
/** The emulator pings every 15 s; three missed pings mean the connection went stale (e.g. after a laptop sleep). */
const STALE_AFTER_MS = 45_000;
const RELAY_NAME = 'default';

export interface ForwardResult {
  status: number | null;
  error: string | null;
  durationMs: number;
  body: string | null;
  refused: boolean;
}

/** A `svc listen` run as a person looks for it: its process and machine. */
export function runName(holder: RelayHolder): string {
  const where = holder.host ? ` on ${holder.host}` : '';
  return holder.pid === null ? `a svc listen${where}` : `svc listen process ${holder.pid}${where}`;
}

/** What a run of `svc listen` reports as it goes; the command hands in the screen that shows it. */
export interface ListenReport {
  /** apiUrl: the emulator whose relay this is. */
  ready(relay: RelayRegistration, forwardUrl: URL, apiUrl: string): void;
  received(delivery: RelayDelivery): void;
  answered(delivery: RelayDelivery, forwardUrl: URL, result: ForwardResult): void;
  disconnected(reason: string): void;
  reconnected(apiUrl: string): void;
  /** --print-secret: the relay's signing secret, alone, for a script to read. */
  secret(secret: string): void;
  /** After --print-secret: the secret printed is new, so a receiver configured earlier has the wrong one. */
  newSecretNote(): void;
  warn(text: string): void;
}

export interface ListenOptions extends ConnectOptions {
  forwardTo?: string;
  events?: EventType[];
  json: boolean;
  printSecret: boolean;
  /**
   * Takes the relay from the `svc listen` holding it, once: that run is told and stops. A run that loses its
   * connection later never takes the relay back by itself.
   */
  takeOver?: boolean;
  /** Shows what the run reports (the command hands in the screen: the services sit below the screens). */
  report: ListenReport;
  /** Aborting it ends listening cleanly. */
  signal: AbortSignal;
  forwardTimeoutMs?: number;
  /** Longest wait between reconnection attempts. */
  maxBackoffMs?: number;
}

export function parseEvents(text: string | undefined): EventType[] | undefined {
  if (text === undefined) return undefined;
  const events = text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (events.length === 0) throw usageError('--events needs at least one event type');
  return [...new Set(events.map((e) => parseEventType(e, {several: true})))];
}

export function parseForwardUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`--forward-to ${JSON.stringify(text)} is not an absolute URL`, [
      `Example: --forward-to ${FORWARD_EXAMPLE}`,
    ]);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError('--forward-to must be an http:// or https:// URL');
  return url;
}

/** Runs until `signal` aborts. With printSecret it only registers, prints the secret and returns. */
export async function listen(options: ListenOptions): Promise<void> {
  const forwardUrl = options.forwardTo === undefined ? undefined : parseForwardUrl(options.forwardTo);
  if (!forwardUrl && !options.printSecret)
    throw usageError('--forward-to is required', [
      `Like this: \`svc listen --forward-to ${FORWARD_EXAMPLE}\``,
    ]);
  if (options.printSecret && options.takeOver)
    throw usageError(
      '--print-secret takes nothing from the svc listen forwarding the relay, so --take-over does not go with it',
    );
  const svc = currentSvcCommand(options.env);
  const out = options.report;
  const self = listenerIdentity();
  const events = options.events ? ` --events ${options.events.join(',')}` : '';
  const again = forwardUrl
    ? `${svc} listen --forward-to ${forwardUrl.href}${events}${dataDirArg(options.dataDir)}`
    : undefined;
  // The first connection must work: a typo in --data-dir should fail at once, not retry forever. It alone may
  // take the relay over: the reconnections after it keep to the relay's holder, whoever that is by then.
  let session = await connect(options, self, {takeOver: options.takeOver === true, again});
  if (options.printSecret) {
    out.secret(session.relay.secret);
    if (session.relay.created) out.newSecretNote();
    return;
  }
  out.ready(session.relay, forwardUrl as URL, session.info.api_url);
  // undici loads only once there is something to relay: every other command shares this module's imports.
  const {Agent} = await import('undici');
  const http: Dispatcher = new Agent({keepAliveTimeout: 4_000});
  let backoff = 0;
  let lost = false;
  const onConnected = () => {
    backoff = 0;
    if (lost) out.reconnected(session.info.api_url);
    lost = false;
  };
  try {
    while (!options.signal.aborted) {
      try {
        await streamDeliveries(session, forwardUrl as URL, http, options, out, onConnected, self);
      } catch (err) {
        if (options.signal.aborted) break;
        if (err instanceof RelayDeleted) throw relayDeleted(session.relay.endpoint_id, again as string);
        if (err instanceof RelayTakenOver) throw relayTakenOver(err.by, again as string);
        if (err instanceof UserError && err.code === 'relay_busy') throw err;
        // Said once per outage; the retries after it stay quiet until the stream is back.
        if (!lost) out.disconnected(describeNetworkError(err));
        lost = true;
      }
      while (!options.signal.aborted) {
        backoff = Math.min(options.maxBackoffMs ?? 5_000, backoff === 0 ? 250 : backoff * 2);
        await sleep(backoff, options.signal);
        if (options.signal.aborted) break;
        let next: Session;
        try {
          next = await connect(options, self, {takeOver: false, again});
        } catch (err) {
          // Another run took the relay meanwhile: it keeps it, and this one says so and stops. Anything else
          // (no emulator running yet, a refused connection) is the outage going on.
          if (err instanceof UserError && err.code === 'relay_busy') throw err;
          // still down; try again after a longer wait
          continue;
        }
        // A relay made anew while this run was away means the old one was deleted: its secret is gone too.
        if (next.relay.created) throw relayDeleted(session.relay.endpoint_id, again as string);
        session = next;
        break;
      }
    }
  } finally {
    await http.close().catch(() => undefined);
  }
}

/** Names this run to the emulator, so a second `svc listen` is told which process holds the relay. */
interface ListenerIdentity {
  listenerId: string;
  pid: number;
  host: string;
}

function listenerIdentity(): ListenerIdentity {
  return {listenerId: randomUUID(), pid: process.pid, host: hostname()};
}

/** The emulator said the relay endpoint was deleted. */
class RelayDeleted extends Error {}

/** The emulator said another run took the relay over (`svc listen --take-over`). */
class RelayTakenOver extends Error {
  constructor(readonly by: RelayHolder) {
    super('the relay was taken over');
  }
}

function relayDeleted(endpointId: string, again: string): UserError {
  return new UserError(
    `the relay endpoint ${endpointId} was deleted (on the account page or with \`emulator webhooks delete\`), ` +
      'so svc listen stopped forwarding',
    {
      code: 'relay_deleted',
      suggestions: [
        `Run \`${again}\` for a new relay endpoint; it gets a new signing secret, which your receiver needs`,
      ],
    },
  );
}

/** Another run holds the relay: the first one keeps it, this one stops instead of knocking it off. */
function relayBusy(err: EmulatorControlError | string, again: string | undefined): UserError {
  const message = typeof err === 'string' ? err : err.message;
  const pid = /process (\d+)/.exec(message)?.[1];
  const stop = pid
    ? `Use that svc listen, or stop it (Ctrl-C in its terminal, or \`kill ${pid}\`) and run this one again`
    : 'Use that svc listen, or stop it and run this one again';
  return new UserError(message, {
    code: 'relay_busy',
    exitCode: ExitCode.usage,
    suggestions: [again ? `${stop}, or take the relay from it: \`${again} --take-over\`` : stop],
  });
}

/** Another run took the relay over: this one stops for good rather than take it back. */
function relayTakenOver(by: RelayHolder, again: string): UserError {
  return new UserError(
    `${runName(by)} took this relay over at ${by.since} (svc listen --take-over), so this svc listen stopped forwarding`,
    {
      code: 'relay_taken_over',
      suggestions: [`To forward here again, stop that one, or take the relay back: \`${again} --take-over\``],
    },
  );
}

interface Session {
  info: RuntimeInfo;
  control: EmulatorControl;
  relay: RelayRegistration;
}

async function connect(
  options: ListenOptions,
  self: ListenerIdentity,
  how: {takeOver: boolean; again: string | undefined},
): Promise<Session> {
  const {control, info} = await connectControl(options);
  // Printing the secret takes nothing from a running listener; forwarding takes the relay, or is refused when
  // another run holds it (unless told to take it over).
  const run = options.printSecret
    ? {}
    : {listener: self.listenerId, pid: self.pid, host: self.host, ...(how.takeOver ? {take_over: true} : {})};
  const relay = await control
    .registerRelay({name: RELAY_NAME, events: options.events, ...run})
    .catch((err: unknown) => {
      throw err instanceof EmulatorControlError &&
        err.status === 409 &&
        err.message.includes('another svc listen')
        ? relayBusy(err, how.again)
        : err;
    });
  return {info, control, relay};
}

async function streamDeliveries(
  session: Session,
  forwardUrl: URL,
  http: Dispatcher,
  options: ListenOptions,
  out: ListenReport,
  onConnected: () => void,
  self: ListenerIdentity,
): Promise<void> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal.addEventListener('abort', onAbort, {once: true});
  let staleTimer: NodeJS.Timeout | undefined;
  const touch = () => {
    clearTimeout(staleTimer);
    staleTimer = setTimeout(
      () => controller.abort(new Error('no word from the emulator for 45 s')),
      STALE_AFTER_MS,
    );
  };
  try {
    touch();
    const stream = session.control.relayStream(session.relay.endpoint_id, {
      signal: controller.signal,
      listener: {id: self.listenerId, pid: self.pid, host: self.host},
    });
    try {
      for await (const message of stream) {
        touch();
        if (message.type === 'connected') onConnected();
        if (message.type === 'deleted') throw new RelayDeleted();
        if (message.type === 'taken_over') throw new RelayTakenOver(message.by);
        if (message.type !== 'delivery') continue;
        // Awaited before the next message is read: one at a time keeps the order the emulator sent.
        await handleDelivery(message, session, forwardUrl, http, options, out);
        touch();
      }
    } catch (err) {
      if (err instanceof EmulatorControlError && err.status === 409) throw relayBusy(err, undefined);
      if (err instanceof EmulatorControlError && err.status === 404) throw new RelayDeleted();
      throw err;
    }
    if (!options.signal.aborted) throw new Error('the emulator closed the relay stream');
  } catch (err) {
    if (controller.signal.aborted && !options.signal.aborted && controller.signal.reason instanceof Error) {
      throw controller.signal.reason;
    }
    throw err;
  } finally {
    clearTimeout(staleTimer);
    options.signal.removeEventListener('abort', onAbort);
  }
}

async function handleDelivery(
  delivery: RelayDelivery,
  session: Session,
  forwardUrl: URL,
  http: Dispatcher,
  options: ListenOptions,
  out: ListenReport,
): Promise<void> {
  out.received(delivery);
  const result = await forward(
    delivery,
    forwardUrl,
    http,
    options.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS,
    options.signal,
  );
  // Stopped (Ctrl+C) while the local server had it: no answer to print or report. The emulator hears the stream
  // end, records the attempt as failed and retries it on its schedule.
  if (result.aborted) return;
  out.answered(delivery, forwardUrl, result);
  try {
    await session.control.reportRelayResult(session.relay.endpoint_id, {
      delivery_id: delivery.delivery_id,
      attempt: delivery.attempt,
      status_code: result.status,
      error: result.error,
      duration_ms: result.durationMs,
      body: result.body,
    });
  } catch (err) {
    // The emulator times the attempt out and retries it; nothing is lost by a report that did not arrive.
    out.warn(`could not report the answer for ${delivery.event_id}: ${describeNetworkError(err)}`);
  }
}

/** POSTs the stored bytes with the emulator's headers, as the service posts them; cut short when `signal` aborts. */
async function forward(
  delivery: RelayDelivery,
  url: URL,
  dispatcher: Dispatcher,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<ForwardResult & {aborted: boolean}> {
  const r = await postDelivery(url, delivery.headers, delivery.body, {dispatcher, timeoutMs, signal});
  return {
    status: r.statusCode,
    error: r.error,
    durationMs: r.durationMs,
    body: r.responseBody,
    refused: r.refused === true,
    aborted: r.aborted === true,
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, {once: true});
  });
}
