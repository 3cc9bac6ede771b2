// msw handlers of the documented /v1 API, backed by a small in-memory state.
// Every answer goes through the shared zod schemas, so the mock can only say what the wire allows.
import {createHash} from 'node:crypto';
import {readFileSync} from 'node:fs';
import {HttpResponse, http, type RequestHandler} from 'msw';
import {WEBHOOK_CREATE_DEPRECATION} from '../../src/definitions.js';
import {newApiKeySecret, newId} from '../../src/emulator/ids.js';
import {
  type ApiKey,
  ApiKeySchema,
  type Delivery,
  DeliverySchema,
  listOf,
  type Org,
  OrgSchema,
  type WebhookEndpoint,
  WebhookEndpointSchema,
} from '../../src/schemas/index.js';

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../../fixtures/api/${name}`, import.meta.url), 'utf8')) as T;

export const fixtures = {
  org: (): Org => fixture('org.json'),
  apiKeys: (): ApiKey[] => fixture<{data: ApiKey[]}>('api-keys.json').data,
  webhooks: (): WebhookEndpoint[] => fixture<{data: WebhookEndpoint[]}>('webhooks.json').data,
  deliveries: (): {webhook_id: string; data: Delivery[]} => fixture('deliveries.json'),
};

interface StoredKey {
  orgId: string;
  hash: string;
  record: Omit<ApiKey, 'status'>;
  revoked: boolean;
  /** Fixture keys keep the status they were written with, whatever today's date. */
  fixedStatus?: ApiKey['status'];
}

export interface MockState {
  orgs: Map<string, Org>;
  keys: StoredKey[];
  webhooks: {orgId: string; record: WebhookEndpoint}[];
  deliveries: Map<string, Delivery[]>;
  vault: boolean;
  /** Milliseconds added to the real clock: lets tests move time forward, like the emulator's manual clock. */
  offsetMs: number;
  /** Every Authorization header the mock saw, for tests that prove where keys went. */
  authorizations: string[];
  /** Failed authentications in the current window, like the service's limit on repeated failures. */
  failures: {windowStartMs: number; count: number};
}

export const MOCK_RATE_LIMIT = {maxFailures: 20, windowMs: 60_000};

export interface MintedKey {
  id: string;
  name: string;
  prefix: string;
  secret: string;
  expires_at: string | null;
}

const DAY_MS = 24 * 3600 * 1000;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const error = (status: number, code: string, message: string, headers?: Record<string, string>) =>
  HttpResponse.json({error: {code, message}}, {status, headers});

export class MockApi {
  readonly state: MockState;
  readonly orgId: string;

  /** `seed`: start with the records of fixtures/api (for docs-like listings); otherwise an empty org. */
  constructor(options: {seed?: boolean} = {}) {
    const org = options.seed
      ? fixtures.org()
      : {id: newId('org'), name: 'Mock Org', created_at: new Date().toISOString()};
    this.orgId = org.id;
    this.state = {
      orgs: new Map([[org.id, org]]),
      keys: [],
      webhooks: [],
      deliveries: new Map(),
      vault: true,
      offsetMs: 0,
      authorizations: [],
      failures: {windowStartMs: 0, count: 0},
    };
    if (options.seed) {
      // Fixture keys have no secret: they are there to be listed, never to authenticate.
      for (const k of fixtures.apiKeys()) {
        const {status, ...record} = k;
        this.state.keys.push({
          orgId: org.id,
          hash: sha256(newApiKeySecret()),
          record,
          revoked: status === 'revoked',
          fixedStatus: status,
        });
      }
      for (const w of fixtures.webhooks()) this.state.webhooks.push({orgId: org.id, record: w});
      const d = fixtures.deliveries();
      this.state.deliveries.set(d.webhook_id, d.data);
    }
  }

  now(): Date {
    return new Date(Date.now() + this.state.offsetMs);
  }

  createOrg(name: string): Org {
    const org = {id: newId('org'), name, created_at: this.now().toISOString()};
    this.state.orgs.set(org.id, org);
    return org;
  }

  mintKey(input: {
    name: string;
    expires?: '30' | '90' | '365' | 'never';
    created_by?: string;
    org_id?: string;
  }): MintedKey {
    const secret = newApiKeySecret();
    const now = this.now();
    const days = input.expires && input.expires !== 'never' ? Number(input.expires) : undefined;
    const record = {
      id: newId('key'),
      name: input.name,
      prefix: secret.slice(0, 8),
      created_by: input.created_by ?? null,
      created_at: now.toISOString(),
      last_used_at: null,
      expires_at: days === undefined ? null : new Date(now.getTime() + days * DAY_MS).toISOString(),
    };
    this.state.keys.push({orgId: input.org_id ?? this.orgId, hash: sha256(secret), record, revoked: false});
    return {id: record.id, name: record.name, prefix: record.prefix, secret, expires_at: record.expires_at};
  }

  revokeKey(id: string): void {
    const key = this.state.keys.find((k) => k.record.id === id);
    if (key) key.revoked = true;
  }

  createWebhook(input: {
    url: string;
    events: string[];
    description?: string;
    org_id?: string;
  }): WebhookEndpoint {
    const record = {
      id: newId('we'),
      url: input.url,
      events: input.events,
      description: input.description ?? null,
      created_at: this.now().toISOString(),
    };
    this.state.webhooks.push({orgId: input.org_id ?? this.orgId, record});
    return record;
  }

  /** One event of `type` in `orgId`: a fresh pending delivery for each endpoint subscribed to it. */
  trigger(type: string, orgId = this.orgId): void {
    const now = this.now().toISOString();
    const eventId = newId('evt');
    for (const w of this.state.webhooks) {
      if (w.orgId !== orgId || !w.record.events.includes(type)) continue;
      const list = this.state.deliveries.get(w.record.id) ?? [];
      list.push({
        id: newId('dlv'),
        event_id: eventId,
        event_type: type,
        status: 'pending',
        attempts: 0,
        created_at: now,
        last_attempt_at: null,
        next_attempt_at: now,
        last_status_code: null,
      });
      this.state.deliveries.set(w.record.id, list);
    }
  }

  /** Seconds to wait when too many authentications failed in the current window, else 0. */
  private retryAfterSeconds(): number {
    const {failures} = this.state;
    const nowMs = this.now().getTime();
    if (nowMs - failures.windowStartMs >= MOCK_RATE_LIMIT.windowMs) return 0;
    if (failures.count < MOCK_RATE_LIMIT.maxFailures) return 0;
    return Math.max(1, Math.ceil((failures.windowStartMs + MOCK_RATE_LIMIT.windowMs - nowMs) / 1000));
  }

  private recordFailure(): void {
    const nowMs = this.now().getTime();
    const {failures} = this.state;
    if (nowMs - failures.windowStartMs >= MOCK_RATE_LIMIT.windowMs) {
      failures.windowStartMs = nowMs;
      failures.count = 0;
    }
    failures.count++;
  }

  private status(key: StoredKey): ApiKey['status'] {
    if (key.fixedStatus) return key.fixedStatus;
    if (key.revoked) return 'revoked';
    if (key.record.expires_at && Date.parse(key.record.expires_at) <= this.now().getTime()) return 'expired';
    return 'active';
  }

  private authenticate(request: Request): StoredKey | undefined {
    const header = request.headers.get('authorization') ?? '';
    this.state.authorizations.push(header);
    const match = /^Bearer (svc_[0-9A-Za-z]{40})$/.exec(header);
    if (!match) return undefined;
    const key = this.state.keys.find((k) => k.hash === sha256(match[1]!));
    if (!key || this.status(key) !== 'active') return undefined;
    key.record.last_used_at = this.now().toISOString();
    return key;
  }

  /** Handlers for any origin, so the same set serves in-process fetch and a loopback server. */
  handlers(): RequestHandler[] {
    const unauthorized = () => error(401, 'unauthorized', 'missing or invalid API key');
    const authed =
      (fn: (key: StoredKey, params: Record<string, string>) => Response | Promise<Response>) =>
      ({request, params}: {request: Request; params: Record<string, unknown>}) => {
        const wait = this.retryAfterSeconds();
        if (wait > 0)
          return error(429, 'rate_limited', 'too many failed authentications', {'Retry-After': String(wait)});
        const key = this.authenticate(request);
        if (key) return fn(key, params as Record<string, string>);
        this.recordFailure();
        return unauthorized();
      };
    const json = <T>(schema: {parse: (v: unknown) => T}, value: unknown) =>
      HttpResponse.json(schema.parse(value) as object);
    const forbidden = (message: string, headers?: Record<string, string>) =>
      error(403, 'forbidden', message, headers);

    return [
      http.get(
        '*/v1/org',
        authed((key) => json(OrgSchema, this.state.orgs.get(key.orgId))),
      ),
      http.get(
        '*/v1/api-keys',
        authed((key) =>
          json(listOf(ApiKeySchema), {
            data: this.state.keys
              .filter((k) => k.orgId === key.orgId)
              .map((k) => ({...k.record, status: this.status(k)}))
              .sort((a, b) => b.created_at.localeCompare(a.created_at)),
          }),
        ),
      ),
      http.post(
        '*/v1/api-keys',
        authed(() => forbidden('API keys are created on the account page')),
      ),
      http.delete(
        '*/v1/api-keys/:key',
        authed(() => forbidden('API keys are revoked on the account page')),
      ),
      http.get(
        '*/v1/webhooks',
        authed((key) =>
          json(listOf(WebhookEndpointSchema), {
            data: this.state.webhooks.filter((w) => w.orgId === key.orgId).map((w) => w.record),
          }),
        ),
      ),
      http.post(
        '*/v1/webhooks',
        authed(() =>
          forbidden('webhook endpoints are added on the account page', {
            Deprecation: WEBHOOK_CREATE_DEPRECATION,
          }),
        ),
      ),
      http.get(
        '*/v1/webhooks/:webhook/deliveries',
        authed((key, params) => {
          if (!this.state.vault) return error(503, 'vault_unavailable', 'this deployment has no vault key');
          const endpoint = this.state.webhooks.find(
            (w) => w.record.id === params.webhook && w.orgId === key.orgId,
          );
          if (!endpoint) return error(404, 'not_found', 'no webhook endpoint with this id');
          const data = [...(this.state.deliveries.get(endpoint.record.id) ?? [])]
            .sort((a, b) => b.created_at.localeCompare(a.created_at))
            .slice(0, 100);
          return json(listOf(DeliverySchema), {data});
        }),
      ),
      http.all(
        '*/v1/*',
        authed(() => error(404, 'not_found', 'no such route')),
      ),
    ];
  }
}
