// Shared set-up for delivery tests: a migrated in-memory PGlite, seeded rows, and real loopback receivers.
import {randomBytes} from 'node:crypto';
import {createServer, type IncomingHttpHeaders, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {PGlite} from '@electric-sql/pglite';
import {EmulatorControl} from '../../../src/client/emulator-control.js';
import {type Database, migrate, wrapPGlite} from '../../../src/emulator/db/database.js';
import {recordEvent} from '../../../src/emulator/delivery/events.js';
import type {Vault} from '../../../src/emulator/vault.js';
import {newSigningSecret} from '../../../src/emulator/ids.js';
import {newId} from '../../../src/ids.js';
import {OrgControl} from '../../../src/testing/org-control.js';

export async function openTestDb(): Promise<Database> {
  const db = wrapPGlite(new PGlite() as never);
  await migrate(db);
  return db;
}

/** Empties every table between tests, so one initdb serves a whole file. */
export async function resetDb(db: Database): Promise<void> {
  await db.query(
    'TRUNCATE delivery_attempts, deliveries, events, relay_endpoints, sandboxes, webhook_endpoints, api_keys, orgs CASCADE',
  );
}

export async function seedOrg(db: Database, now: Date): Promise<string> {
  const id = newId('org');
  await db.query('INSERT INTO orgs (id, name, created_at) VALUES ($1, $2, $3)', [id, 'Test org', now]);
  return id;
}

export async function seedEndpoint(
  db: Database,
  vault: Vault,
  input: {orgId: string; url: string; events: string[]; now: Date},
): Promise<{id: string; secret: string}> {
  const id = newId('webhookEndpoint');
  const secret = newSigningSecret();
  await db.query(
    `INSERT INTO webhook_endpoints (id, org_id, url, events, description, secret_ciphertext, created_at)
     VALUES ($1, $2, $3, $4, NULL, $5, $6)`,
    [id, input.orgId, input.url, input.events, vault.encrypt(secret), input.now],
  );
  return {id, secret};
}

export const testVaultKey = () => randomBytes(32);

/**
 * Records `count` sandbox.ready events for sandboxes sbx_<from>… one millisecond apart, a second after `start`:
 * each makes one delivery per subscribed endpoint.
 */
export async function emitReadyEvents(
  db: Database,
  o: {orgId: string; start: Date; count: number; from?: number},
): Promise<void> {
  const from = o.from ?? 0;
  for (let i = from; i < from + o.count; i++) {
    const now = new Date(o.start.getTime() + 1_000 + i);
    const sandbox = {
      id: `sbx_${i}`,
      name: 's',
      status: 'ready',
      desired_state: 'running',
      last_error: null,
      expires_at: null,
    };
    await db.transaction((tx) => recordEvent(tx, {orgId: o.orgId, type: 'sandbox.ready', sandbox, now}));
  }
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type Responder = (req: ReceivedRequest, res: ServerResponse, index: number) => void;

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** The most requests it held at once: arrived and not yet answered. */
  readonly maxInFlight: number;
  /**
   * Resolves once the requests recorded so far satisfy `check`, tried again as each request arrives (pushed, not
   * polled); rejects after `timeoutMs` naming what was received.
   */
  until(check: (requests: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Until at least `count` requests have arrived. */
  received(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Until a request for this event id (its Svc-Event-Id) has arrived; resolves with the first one. */
  receivedEvent(eventId: string, timeoutMs?: number): Promise<ReceivedRequest>;
  close(): Promise<void>;
}

/**
 * Conditions on something that changes by events: each waiter is checked at once and again on every change.
 * What a test waits for through it is pushed to it, never read on a timer.
 */
export function changeWaiters<T>(read: () => T) {
  const waiters = new Set<() => void>();
  return {
    changed() {
      for (const w of [...waiters]) w();
    },
    until(check: (value: T) => boolean, timeoutMs: number, what: () => string): Promise<T> {
      return new Promise((resolve, reject) => {
        const tryNow = () => {
          if (!check(read())) return false;
          waiters.delete(tryNow);
          clearTimeout(timer);
          resolve(read());
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(tryNow);
          reject(new Error(`not reached in ${timeoutMs} ms: ${what()}`));
        }, timeoutMs);
        if (!tryNow()) waiters.add(tryNow);
      });
    },
  };
}

/** A real HTTP server on 127.0.0.1 that records every request before `respond` answers it. */
export async function startReceiver(respond: Responder = (_q, res) => res.end('ok')): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once('close', () => {
      inFlight -= 1;
    });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(received);
      respond(received, res, requests.length - 1);
      arrivals.changed();
    });
  });
  const arrivals = changeWaiters(() => requests);
  const seen = () =>
    `${requests.length} request(s): ${requests.map((q) => `${q.method} ${q.url} ${q.headers['svc-event-id'] ?? ''}`).join(', ')}`;
  const until = (check: (r: ReceivedRequest[]) => boolean, timeoutMs = 15_000) =>
    arrivals.until(check, timeoutMs, seen);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    until,
    received: (count, timeoutMs) => until((r) => r.length >= count, timeoutMs),
    receivedEvent: async (eventId, timeoutMs) =>
      (await until((r) => r.some((q) => q.headers['svc-event-id'] === eventId), timeoutMs)).find(
        (q) => q.headers['svc-event-id'] === eventId,
      ) as ReceivedRequest,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * An org of its own for one test on an emulator the file shares, as `@svc/cli/testing`'s fixtures make one:
 * `control` holds the org's own control token (the emulator refuses it anything of another org or of the whole
 * emulator), `org` acts on this org and its clock alone. Delete it after the test (`control.deleteOrg(id)`).
 */
export async function orgOfItsOwn(
  admin: EmulatorControl,
  name: string,
): Promise<{id: string; org: OrgControl; control: EmulatorControl}> {
  const made = await admin.createControlToken({new_org: name});
  if (!made.org) throw new Error('the emulator made no org');
  const control = new EmulatorControl({url: admin.url, adminToken: made.token});
  return {id: made.org.id, org: new OrgControl(control, made.org.id), control};
}

export function answer(status: number, body = '', headers: Record<string, string> = {}): Responder {
  return (_q, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };
}

/**
 * Polls until `check` holds. Only where nothing pushes the change to the test: a row another process writes, or a
 * timer's own queue; each caller says why. Deliveries, attempts and received requests have pushed waits
 * (`control.waitForDelivery`, `receiver.until`, `spawned.stderrUntil`).
 */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
