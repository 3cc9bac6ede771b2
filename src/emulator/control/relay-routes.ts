// Control routes behind `svc listen`: register a relay endpoint, stream its deliveries as NDJSON, take reports.
// Each route is one named handler below; the request shapes are the control surface's (src/schemas/emulator.ts).
import {randomUUID} from 'node:crypto';
import type {Context} from 'hono';
import {
  EVENT_TYPES,
  ID_PATTERNS,
  RELAY_HOST_NAME_PATTERN,
  RELAY_LISTENER_ID_PATTERN,
} from '../../definitions.js';
import {
  RegisterRelayRequestSchema,
  type RelayMessage,
  type RelayRegistration,
  RelayReportSchema,
} from '../../schemas/emulator.js';
import type {AppEnv, EmulatorApp, EmulatorContext} from '../context.js';
import type {Clock} from '../clock.js';
import {conflict, HttpError, invalidRequest, notFound} from '../http-error.js';
import {readJsonBody} from '../net/read-json.js';
import type {DeliveryEngine} from '../delivery/engine.js';
import {publicHolder, RelayBusyError, type RelayHolder} from '../delivery/relay-hub.js';
import {isRelayEndpoint, RelayLimitError, registerRelay} from '../delivery/relay-registry.js';
import {isSuccessStatus} from '../delivery/retry-policy.js';
import {every} from '../delivery/timers.js';
import {clientGone} from '../net/body-text.js';
import {getOrg} from '../ops/orgs.js';

/** Keeps idle proxies and the listener's stale-connection check satisfied. */
export const RELAY_PING_INTERVAL_MS = 15_000;

const RELAY_PATH = '/_emulator/relay';
const STREAM_PATH = '/_emulator/relay/:id/stream';
const RESULTS_PATH = '/_emulator/relay/:id/results';

export function registerRelayRoutes(app: EmulatorApp, ctx: EmulatorContext): void {
  const {engine} = ctx;
  app.post(RELAY_PATH, (c) => registerRelayEndpoint(c, ctx, engine));
  app.get(STREAM_PATH, (c) => streamRelay(c, ctx, engine));
  app.post(RESULTS_PATH, (c) => takeRelayReport(c, engine));
}

/** A machine's name as given, or null when it is no plain host name. */
function hostNameOf(host: string | undefined): string | null {
  return host && RELAY_HOST_NAME_PATTERN.test(host) ? host : null;
}

/** Who is asking for the stream, from its query (`listener`, `pid`, `host`); whatever is malformed is left out. */
function holderOf(query: (name: string) => string | undefined, clock: Clock): RelayHolder {
  const listener = query('listener');
  const pid = Number(query('pid'));
  return {
    listener_id: listener && RELAY_LISTENER_ID_PATTERN.test(listener) ? listener : randomUUID(),
    pid: Number.isSafeInteger(pid) && pid > 0 ? pid : null,
    host: hostNameOf(query('host')),
    since: clock.now().toISOString(),
  };
}

/** POST /_emulator/relay: finds or makes the org's relay endpoint, and takes its lease for a named run. */
async function registerRelayEndpoint(
  c: Context<AppEnv, typeof RELAY_PATH>,
  ctx: EmulatorContext,
  engine: DeliveryEngine,
): Promise<Response> {
  const body = await readJsonBody(c, RegisterRelayRequestSchema, {emptyAllowed: true});
  if (body.take_over && !body.listener)
    throw invalidRequest('take_over needs listener: the run that takes the relay');
  if (!ctx.vault.available) {
    throw new HttpError(
      503,
      'vault_unavailable',
      'relay endpoints need a vault key to store their signing secret',
    );
  }
  const orgId = body.org_id ?? ctx.current.orgId;
  await getOrg(ctx, orgId);
  const events = body.events ? [...new Set(body.events)] : [...EVENT_TYPES];
  const relay = await registerRelay(ctx.db, ctx.vault, {
    orgId,
    name: body.name ?? 'default',
    events,
    now: ctx.clock.now(),
  }).catch((err: unknown) => {
    throw err instanceof RelayLimitError ? conflict(err.message) : err;
  });
  let answer: RelayRegistration = relay;
  if (body.listener) {
    const holder: RelayHolder = {
      listener_id: body.listener,
      pid: body.pid ?? null,
      host: hostNameOf(body.host),
      since: ctx.clock.now().toISOString(),
    };
    const held = await engine.relayLeases.acquire(relay.endpoint_id, holder, body.take_over);
    if (!held.held) throw conflict(new RelayBusyError(held.current).message);
    if (held.previous) answer = {...relay, took_over_from: publicHolder(held.previous)};
  }
  // `created` tells `svc listen` that the secret is new (the relay was deleted, or this is the first run).
  return c.json(answer, relay.created ? 201 : 200);
}

/** GET /_emulator/relay/:id/stream: the relay's deliveries as NDJSON, for the run holding its lease. */
async function streamRelay(
  c: Context<AppEnv, typeof STREAM_PATH>,
  ctx: EmulatorContext,
  engine: DeliveryEngine,
): Promise<Response> {
  const id = c.req.param('id');
  if (!ID_PATTERNS.webhookEndpoint.test(id) || !(await isRelayEndpoint(ctx.db, id)))
    throw notFound('no relay endpoint with this id');
  const holder = holderOf((name) => c.req.query(name), ctx.clock);
  const held = await engine.relayLeases.acquire(id, holder);
  if (!held.held) throw conflict(new RelayBusyError(held.current).message);
  // Its connection goes with it: a stream ends when its client goes, or when the emulator stops, whose close
  // would otherwise wait a second for that connection, left idle and kept alive.
  return new Response(relayStream(engine, id, holder, clientGone(c)), {
    status: 200,
    headers: {'content-type': 'application/x-ndjson', 'cache-control': 'no-store', connection: 'close'},
  });
}

/**
 * The stream of one relay's messages, attached to the hub at once (its lease was just taken): `connected`, a ping
 * now and then, each delivery. Ends, freeing the lease, when the client goes away or the hub closes it.
 */
function relayStream(
  engine: DeliveryEngine,
  id: string,
  holder: RelayHolder,
  aborted: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cleanup: () => void = () => undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      // Until the stream ends, whichever way: the client went (abort, cancel), the hub closed it, or a message
      // could not be queued. Ending stops the pings, detaches it and frees the relay, once.
      let open = true;
      const send = (message: RelayMessage) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(`${JSON.stringify(message)}\n`));
        } catch {
          cleanup();
        }
      };
      // The connection keeps the process alive while the client is there; a ping never does on its own.
      const stopPinging = every(engine.timers, RELAY_PING_INTERVAL_MS, () => send({type: 'ping'}), {
        background: true,
      });
      let detach: () => void = () => undefined;
      cleanup = () => {
        if (!open) return;
        open = false;
        stopPinging();
        detach();
        // A clean disconnect frees the relay at once (a run taken over no longer holds the row: nothing goes).
        engine.relayLeases.release(id, holder.listener_id).catch(() => undefined);
        try {
          controller.close();
        } catch {
          // already closed by the client going away
        }
      };
      // A client that went away while its stream was being opened is gone for good: its abort came before anyone
      // listened for it, and nothing is attached or held for it.
      if (aborted?.aborted) {
        cleanup();
        return;
      }
      aborted?.addEventListener('abort', () => cleanup(), {once: true});
      send({type: 'connected', endpoint_id: id});
      // The lease was taken just before with nothing awaited since. A hub already closed (the emulator stops)
      // ends the stream at once.
      detach = engine.relay.attach(id, {send, close: () => cleanup()}, holder);
    },
    cancel() {
      cleanup();
    },
  });
}

/** POST /_emulator/relay/:id/results: what the local server answered to one relayed attempt. */
async function takeRelayReport(
  c: Context<AppEnv, typeof RESULTS_PATH>,
  engine: DeliveryEngine,
): Promise<Response> {
  const id = c.req.param('id');
  if (!ID_PATTERNS.webhookEndpoint.test(id)) throw notFound('no relay endpoint with this id');
  const body = await readJsonBody(c, RelayReportSchema);
  if (body.status_code === null && body.error === null) {
    throw invalidRequest('a report needs status_code or error');
  }
  const ok = body.status_code !== null && isSuccessStatus(body.status_code) && body.error === null;
  const accepted = engine.relay.report(
    id,
    body.delivery_id,
    body.attempt,
    {status_code: body.status_code, error: body.error, duration_ms: body.duration_ms, body: body.body},
    ok,
  );
  if (!accepted)
    throw conflict('no attempt is waiting for this report (it timed out or was already reported)');
  return c.body(null, 204);
}
