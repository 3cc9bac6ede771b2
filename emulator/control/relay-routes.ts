// Control routes behind `svc listen`: register a relay endpoint, stream its deliveries as NDJSON, take reports.
import {z} from 'zod';
import {EVENT_TYPES, ID_PATTERNS} from '../../src/definitions.js';
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {conflict, HttpError, invalidRequest, notFound} from '../http-error.js';
import {readJsonBody} from '../net/read-json.js';
import {randomUUID} from 'node:crypto';
import type {RelayMessage, RelayRegistration} from '../../src/schemas/emulator.js';
import {RelayBusyError, type RelayHolder, type RelayHub} from '../delivery/relay-hub.js';
import {isRelayEndpoint, RelayLimitError, registerRelay} from '../delivery/relay-registry.js';
import {isSuccessStatus, RESPONSE_BODY_LIMIT_BYTES} from '../delivery/retry-policy.js';

/** Keeps idle proxies and the listener's stale-connection check satisfied. */
export const RELAY_PING_INTERVAL_MS = 15_000;

const RegisterBody = z.strictObject({
  name: z
    .string({error: 'name must be a string'})
    .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, {error: 'name must be 1-63 characters of a-z, 0-9, ., _ or -'})
    .optional(),
  events: z
    .array(z.enum(EVENT_TYPES, {error: `events must be among ${EVENT_TYPES.join(', ')}`}))
    .min(1, {error: 'events must name at least one event type'})
    .optional(),
  org_id: z
    .string({error: 'org_id must be a string'})
    .regex(ID_PATTERNS.org, {error: 'org_id is not an org id'})
    .optional(),
  /** The run about to stream: refused at once when another run holds the relay, before it announces anything. */
  listener: z
    .string()
    .regex(/^[A-Za-z0-9_-]{8,64}$/, {error: 'listener must be 8-64 of A-Z, a-z, 0-9, _ or -'})
    .optional(),
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

const HOST_NAME = /^[A-Za-z0-9._-]{1,253}$/;

/** Who is asking for the stream, from its query (`listener`, `pid`, `host`); whatever is malformed is left out. */
function holderOf(query: (name: string) => string | undefined): RelayHolder {
  const listener = query('listener');
  const pid = Number(query('pid'));
  const host = query('host');
  return {
    listener_id: listener && /^[A-Za-z0-9_-]{8,64}$/.test(listener) ? listener : randomUUID(),
    pid: Number.isSafeInteger(pid) && pid > 0 ? pid : null,
    host: host && HOST_NAME.test(host) ? host : null,
    since: new Date().toISOString(),
  };
}

export function registerRelayRoutes(app: EmulatorApp, ctx: EmulatorContext, hub: RelayHub): void {
  app.post('/_emulator/relay', async (c) => {
    const body = await readJsonBody(c, RegisterBody, {emptyAllowed: true});
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
    const holder = hub.holder(relay.endpoint_id);
    if (body.listener && holder && holder.listener_id !== body.listener)
      throw conflict(new RelayBusyError(holder).message);
    // `created` tells `svc listen` that the secret is new (the relay was deleted, or this is the first run).
    return c.json(relay satisfies RelayRegistration, relay.created ? 201 : 200);
  });

  app.get('/_emulator/relay/:id/stream', async (c) => {
    const id = c.req.param('id');
    if (!ID_PATTERNS.webhookEndpoint.test(id) || !(await isRelayEndpoint(ctx.db, id)))
      throw notFound('no relay endpoint with this id');
    const holder = holderOf((name) => c.req.query(name));
    const current = hub.holder(id);
    if (current && current.listener_id !== holder.listener_id)
      throw conflict(new RelayBusyError(current).message);
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
          try {
            controller.close();
          } catch {
            // already closed by the client going away
          }
        };
        send({type: 'connected', endpoint_id: id});
        // Checked just above with nothing awaited since, so this attach cannot be refused.
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
