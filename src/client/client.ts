// The typed svc API client. Read-only by design: the API lets keys only read (an API key can only read).
import {DEFAULT_ACCOUNT_URL, DEFAULT_API_URL} from '../auth/constants.js';
import {redactKeys} from '../auth/redact.js';
import {normalizeApiUrl} from '../auth/url-policy.js';
import type {ApiKey, Delivery, Org, WebhookEndpoint} from '../schemas/index.js';
import {ApiError, InvalidRequestError} from './errors.js';
import {type FetchLike, getJson, realSleep, type Sleep, type TransportOptions} from './transport.js';
import {defaultUserAgent} from './user-agent.js';

type Schemas = typeof import('../schemas/index.js');

export interface ClientOptions {
  /** Base address; checked against the URL policy (https, or http only to loopback). */
  apiUrl?: string;
  apiKey: string;
  /** Where keys and endpoints are managed, for error messages; derived from apiUrl when absent. */
  accountUrl?: string;
  fetch?: FetchLike;
  userAgent?: string;
  /** Per attempt. */
  timeoutMs?: number;
  /** Extra attempts after the first, for 429/502/503/504 and network failures. */
  retries?: number;
  sleep?: Sleep;
  random?: () => number;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface SvcClient {
  readonly apiUrl: string;
  getOrg(options?: RequestOptions): Promise<Org>;
  listApiKeys(options?: RequestOptions): Promise<ApiKey[]>;
  listWebhooks(options?: RequestOptions): Promise<WebhookEndpoint[]>;
  /** The 100 most recent deliveries to one endpoint, newest first. */
  listDeliveries(webhookId: string, options?: RequestOptions): Promise<Delivery[]>;
}

export const WEBHOOK_ID_PATTERN = /^we_[0-9A-Za-z]{24}$/;

export function isWebhookId(value: string): boolean {
  return WEBHOOK_ID_PATTERN.test(value);
}

/** The account page that belongs to an API address: the hosted one, or the emulator's own. */
export function accountUrlFor(apiUrl: string): string {
  return apiUrl === DEFAULT_API_URL ? DEFAULT_ACCOUNT_URL : `${apiUrl}/account`;
}

export function createClient(options: ClientOptions): SvcClient {
  const apiUrl = normalizeApiUrl(options.apiUrl ?? DEFAULT_API_URL);
  // A key with a line break or space would be refused by fetch with the header value in the message.
  if (!/^[\x21-\x7e]+$/.test(options.apiKey)) {
    throw new InvalidRequestError(
      'the API key is empty or contains characters that cannot be sent in a header',
    );
  }
  const transport: TransportOptions = {
    apiUrl,
    apiKey: options.apiKey,
    accountUrl: options.accountUrl ?? accountUrlFor(apiUrl),
    userAgent: options.userAgent ?? defaultUserAgent(),
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    timeoutMs: options.timeoutMs ?? 15_000,
    retries: Math.max(0, options.retries ?? 2),
    sleep: options.sleep ?? realSleep,
    random: options.random ?? Math.random,
  };

  // zod is loaded with the first request, not at import: `svc --help` and friends never pay for it.
  const schemas = (): Promise<Schemas> => import('../schemas/index.js');

  async function get<T>(
    path: string,
    parse: (s: Schemas, body: unknown) => T,
    request?: RequestOptions,
  ): Promise<T> {
    // zod loads while the request is on the wire, not before it: the two waits overlap.
    const loading = schemas();
    loading.catch(() => {});
    const body = await getJson(transport, path, request?.signal);
    const s = await loading;
    try {
      return parse(s, body);
    } catch (err) {
      const where = (err as {issues?: {path?: PropertyKey[]}[]}).issues?.[0]?.path?.join('.') ?? '';
      throw new ApiError(
        `the API at ${apiUrl}${path} answered with an unexpected shape${where ? ` (at ${where})` : ''}`,
        {code: 'invalid_response', suggestions: ['Check that the API address points at an svc API']},
      );
    }
  }

  return {
    apiUrl,
    getOrg(request) {
      return get('/v1/org', (z, b) => z.OrgSchema.parse(b), request);
    },
    listApiKeys(request) {
      return get('/v1/api-keys', (z, b) => z.listOf(z.ApiKeySchema).parse(b).data, request);
    },
    listWebhooks(request) {
      return get('/v1/webhooks', (z, b) => z.listOf(z.WebhookEndpointSchema).parse(b).data, request);
    },
    async listDeliveries(webhookId, request) {
      if (!isWebhookId(webhookId)) {
        throw new InvalidRequestError(
          `${JSON.stringify(redactKeys(webhookId).slice(0, 40))} is not a webhook endpoint id (they look like we_ followed by 24 letters and digits)`,
        );
      }
      const path = `/v1/webhooks/${encodeURIComponent(webhookId)}/deliveries`;
      return get(path, (z, b) => z.listOf(z.DeliverySchema).parse(b).data, request);
    },
  };
}
