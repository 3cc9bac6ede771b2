// Control routes behind `svc listen`: register a relay endpoint, stream its deliveries as NDJSON, take reports.
import {z} from 'zod';
import {EVENT_TYPES, ID_PATTERNS, RELAY_NAME_PATTERN, RELAY_NAME_RULE} from '../../definitions.js';
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {conflict, HttpError, invalidRequest, notFound} from '../http-error.js';
import {readJsonBody} from '../net/read-json.js';
import {randomUUID} from 'node:crypto';
import type {RelayMessage, RelayRegistration} from '../../schemas/emulator.js';
import type {DeliveryEngine} from '../delivery/plugin.js';
import {publicHolder, RelayBusyError, type RelayHolder} from '../delivery/relay-hub.js';
import {isRelayEndpoint, RelayLimitError, registerRelay} from '../delivery/relay-registry.js';
import {isSuccessStatus, RESPONSE_BODY_LIMIT_BYTES} from '../delivery/retry-policy.js';

/** Keeps idle proxies and the listener's stale-connection check satisfied. */
export const RELAY_PING_INTERVAL_MS = 15_000;

const LISTENER_ID = /^[A-Za-z0-9_-]{8,64}$/;
const HOST_NAME = /^[A-Za-z0-9._-]{1,253}$/;

const RegisterBody = z.strictObject({
  name: z
    .string({error: 'name must be a string'})
    .regex(RELAY_NAME_PATTERN, {error: `name must be ${RELAY_NAME_RULE}`})
    .optional(),
  events: z
    .array(z.enum(EVENT_TYPES, {error: `events must be among ${EVENT_TYPES.join(', ')}`}))
    .min(1, {error: 'events must name at least one event type'})
    .optional(),
  org_id: z
    .string({error: 'org_id must be a string'})
    .regex(ID_PATTERNS.org, {error: 'org_id is not an org id'})
    .optional(),
  /**
   * The run about to stream: it holds the relay from here on, or is refused at once when another run holds it,
   * before it announces anything.
   */
  listener: z
    .string()
    .regex(LISTENER_ID, {error: 'listener must be 8-64 of A-Z, a-z, 0-9, _ or -'})
    .optional(),
  pid: z
    .number({error: 'pid must be a number'})
    .int()
    .min(1)
    .max(2 ** 31 - 1)
    .optional(),
  /** The machine's name as the run knows it; one that is no plain host name is left out rather than refused. */
  host: z.string({error: 'host must be a string'}).max(253).optional(),
  /** Takes the relay from the run holding it, which is told so and stops. */
  take_over: z.boolean({error: 'take_over must be true or false'}).optional(),
});

const ReportBody = z.strictObject({
  delivery_id: z.string({error: 'delivery_id must be a string'}).max(64),
  attempt: z.number({error: 'attempt must be a number'}).int().min(1).max(100),
  status_code: z.number().int().min(100).max(999).nullable(),
  error: z.string().max(2000).nullable(),
  duration_ms: z.number().min(0).max(3_600_000),
  body: z
    .string()
    .max(RESPONSE_BODY_LIMIT_BYTES * 4)
    .nullable(),
});

/** Who is asking for the stream, from its query (`listener`, `pid`, `host`); whatever is malformed is left out. */
function holderOf(query: (name: string) => string | undefined): RelayHolder {
  const listener = query('listener');
  const pid = Number(query('pid'));
  const host = query('host');
  return {
    listener_id: listener && LISTENER_ID.test(listener) ? listener : randomUUID(),
    pid: Number.isSafeInteger(pid) && pid > 0 ? pid : null,
    host: host && HOST_NAME.test(host) ? host : null,
    since: new Date().toISOString(),
  };
}

export function registerRelayRoutes(app: EmulatorApp, ctx: EmulatorContext, engine: DeliveryEngine): void {
  const hub = engine.relay;
  const leases = engine.relayLeases;
  app.post('/_emulator/relay', async (c) => {
    const body = await readJsonBody(c, RegisterBody, {emptyAllowed: true});
    if (body.take_over && !body.listener)
      throw invalidRequest('take_over needs listener: the run that takes the relay');
    if (!ctx.vault.available) {
      throw new HttpError(
        503,
        'vault_unavailable',
        'relay endpoints need a vault key to store their signing secret',
      );
    }
    const orgId = body.org_id ?? ctx.orgId;
    const org = await ctx.db.query('SELECT 1 FROM orgs WHERE id = $1', [orgId]);
    if (org.rows.length === 0) throw notFound('no org with this id');
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
        host: body.host && HOST_NAME.test(body.host) ? body.host : null,
        since: new Date().toISOString(),
      };
      const held = await leases.acquire(relay.endpoint_id, holder, body.take_over);
      if (!held.held) throw conflict(new RelayBusyError(held.current).message);
      if (held.previous) answer = {...relay, took_over_from: publicHolder(held.previous)};
    }
    // `created` tells `svc listen` that the secret is new (the relay was deleted, or this is the first run).
    return c.json(answer, relay.created ? 201 : 200);
  });

  app.get('/_emulator/relay/:id/stream', async (c) => {
    const id = c.req.param('id');
    if (!ID_PATTERNS.webhookEndpoint.test(id) || !(await isRelayEndpoint(ctx.db, id)))
      throw notFound('no relay endpoint with this id');
    const holder = holderOf((name) => c.req.query(name));
    const held = await leases.acquire(id, holder);
    if (!held.held) throw conflict(new RelayBusyError(held.current).message);
    const encoder = new TextEncoder();
    let cleanup: () => void = () => undefined;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        let open = true;
        const send = (message: RelayMessage) => {
          if (!open) return;
          try {
            controller.enqueue(encoder.encode(`${JSON.stringify(message)}\n`));
          } catch {
            open = false;
          }
        };
        const ping = setInterval(() => send({type: 'ping'}), RELAY_PING_INTERVAL_MS);
        let detach: () => void = () => undefined;
        cleanup = () => {
          if (!open) return;
          open = false;
          clearInterval(ping);
          detach();
          // A clean disconnect frees the relay at once (a run taken over no longer holds the row: nothing goes).
          leases.release(id, holder.listener_id).catch(() => undefined);
          try {
            controller.close();
          } catch {
            // already closed by the client going away
          }
        };
        send({type: 'connected', endpoint_id: id});
        // The lease was taken just above with nothing awaited since.
        detach = hub.attach(id, {send, close: () => cleanup()}, holder);
        c.req.raw.signal?.addEventListener('abort', () => cleanup(), {once: true});
      },
      cancel() {
        cleanup();
      },
    });
    return new Response(stream, {
      status: 200,
      headers: {'content-type': 'application/x-ndjson', 'cache-control': 'no-store'},
    });
  });

  app.post('/_emulator/relay/:id/results', async (c) => {
    const id = c.req.param('id');
    if (!ID_PATTERNS.webhookEndpoint.test(id)) throw notFound('no relay endpoint with this id');
    const body = await readJsonBody(c, ReportBody);
    if (body.status_code === null && body.error === null) {
      throw invalidRequest('a report needs status_code or error');
    }
    const ok = body.status_code !== null && isSuccessStatus(body.status_code) && body.error === null;
    const accepted = hub.report(
      id,
      body.delivery_id,
      body.attempt,
      {status_code: body.status_code, error: body.error, duration_ms: body.duration_ms, body: body.body},
      ok,
    );
    if (!accepted)
      throw conflict('no attempt is waiting for this report (it timed out or was already reported)');
    return c.body(null, 204);
  });
}
