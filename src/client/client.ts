// The typed svc API client. Read-only by design: an API key can only read.
import {ID_PATTERNS, isId, idShapeText} from '../definitions.js';
import type {ApiKey, Delivery, Org, WebhookEndpoint} from '../schemas/index.js';
import {localAccountUrl} from './account-address.js';
import {isLoopbackHost, normalizeApiUrl} from './api-url.js';
import {DEFAULT_ACCOUNT_URL, DEFAULT_API_URL} from './defaults.js';
import {ApiError, InvalidRequestError} from './errors.js';
import {redactKeys} from './redact.js';
import {type FetchLike, getJson, realSleep, type Sleep, type TransportOptions} from './transport.js';
import {defaultUserAgent} from './user-agent.js';
import type {z} from 'zod';

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
  /**
   * The API's time now, for "in 5 minutes" and "2 hours ago": this machine's clock, unless the `Date`
   * header of the latest answer showed the API's clock elsewhere (an emulator whose clock is moved by
   * hand), beyond what that header's one-second precision and the trip explain.
   */
  serverNowMs(): number;
}

/** The shape of a webhook endpoint id; kept as an export of the client for its users. */
export const WEBHOOK_ID_PATTERN = ID_PATTERNS.webhookEndpoint;

/** A `Date` header is whole seconds and was stamped before the trip back: differences within this are noise. */
const CLOCK_AGREEMENT_MS = 2000;

export function isWebhookId(value: string): boolean {
  return isId('webhookEndpoint', value);
}

/**
 * The account page that belongs to an API address: the hosted one, or the emulator's own. An emulator reached at
 * a loopback address keeps its page at its own name (`svc-<port>.localhost`), so its cookies reach no other
 * local server.
 */
export function accountUrlFor(apiUrl: string): string {
  if (apiUrl === DEFAULT_API_URL && DEFAULT_ACCOUNT_URL !== undefined) return DEFAULT_ACCOUNT_URL;
  const url = URL.canParse(apiUrl) ? new URL(apiUrl) : undefined;
  if (url?.protocol === 'http:' && isLoopbackHost(url.hostname) && url.pathname === '/')
    return localAccountUrl(Number(url.port || 80));
  return `${apiUrl}/account`;
}

export function createClient(options: ClientOptions): SvcClient {
  const given = options.apiUrl ?? DEFAULT_API_URL;
  if (given === undefined) {
    throw new InvalidRequestError(
      'createClient needs `apiUrl`: the address of the API to call (an emulator prints its own when it starts)',
    );
  }
  const apiUrl = normalizeApiUrl(given);
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
    onDate(value, sentAtMs, receivedAtMs) {
      const serverMs = Date.parse(value);
      if (Number.isNaN(serverMs)) return;
      // A server whose clock agrees with ours stamps a time between the request leaving (less the second the
      // header drops) and the answer arriving, however slow the trip was.
      const agrees =
        serverMs >= sentAtMs - 1000 - CLOCK_AGREEMENT_MS && serverMs <= receivedAtMs + CLOCK_AGREEMENT_MS;
      // The header drops milliseconds, so its time is the server's "now" to the second below: kept as that
      // bound (relative times allow for the second it may be short), never moved to a guessed half second,
      // which would put a retry due in 30 s on the edge between "in 29 seconds" and "in 30 seconds".
      clockOffsetMs = agrees ? 0 : serverMs - receivedAtMs;
    },
  };
  let clockOffsetMs = 0;

  // zod and a record's schema are loaded with the request that needs them, not at import: `svc --help` and
  // friends never pay for zod, and a read constructs the one schema it parses with (src/schemas/<record>.ts).
  async function get<S, T>(
    path: string,
    schemas: () => Promise<S>,
    parse: (s: S, body: unknown) => T,
    request?: RequestOptions,
  ): Promise<T> {
    // zod loads while the server works on the request, not before the request leaves: the two waits overlap.
    // A request is written once the event loop next polls, and a setImmediate callback runs right after that
    // poll (in a runtime without setImmediate, after a timer: still after the request is sent).
    const loading = afterThisTurn().then(schemas);
    loading.catch(() => {});
    const body = await getJson(transport, path, request?.signal);
    const s = await loading;
    try {
      return parse(s, body);
    } catch (err) {
      const where = (err as {issues?: {path?: PropertyKey[]}[]}).issues?.[0]?.path?.join('.') ?? '';
      throw new ApiError(
        `the API at ${apiUrl}${path} answered with an unexpected shape${where ? ` (at ${where})` : ''}`,
        {code: 'invalid_response', cause: err},
      );
    }
  }

  return {
    apiUrl,
    serverNowMs: () => Date.now() + clockOffsetMs,
    getOrg(request) {
      return get(
        '/v1/org',
        () => import('../schemas/org.js'),
        (s, b) => s.OrgSchema.parse(b, ONCE),
        request,
      );
    },
    listApiKeys(request) {
      return get(
        '/v1/api-keys',
        listSchema(async () => (await import('../schemas/api-key.js')).ApiKeySchema),
        (list, b) => list.parse(b, ONCE).data,
        request,
      );
    },
    listWebhooks(request) {
      return get(
        '/v1/webhooks',
        listSchema(async () => (await import('../schemas/webhook-endpoint.js')).WebhookEndpointSchema),
        (list, b) => list.parse(b, ONCE).data,
        request,
      );
    },
    async listDeliveries(webhookId, request) {
      if (!isWebhookId(webhookId)) {
        throw new InvalidRequestError(
          `${JSON.stringify(redactKeys(webhookId).slice(0, 40))} is not a webhook endpoint id (they look like ${idShapeText('webhookEndpoint')})`,
        );
      }
      const path = `/v1/webhooks/${encodeURIComponent(webhookId)}/deliveries`;
      return get(
        path,
        listSchema(async () => (await import('../schemas/delivery.js')).DeliverySchema),
        (list, b) => list.parse(b, ONCE).data,
        request,
      );
    },
  };
}

/**
 * Each answer is parsed once: zod's compiled parsers (made with `new Function` on an object schema's first parse)
 * cost a short-lived command more to make than they save.
 */
const ONCE = {jitless: true} as const;

/**
 * The list envelope around a record's schema, built with the loading: making a zod schema costs more than a
 * parse with it, and here it is made while the request is out, not after the answer is in.
 */
function listSchema<T extends z.ZodType>(item: () => Promise<T>) {
  return async () => {
    const [schema, {listOf}] = await Promise.all([item(), import('../schemas/list.js')]);
    return listOf(schema);
  };
}

/** Resolves once the event loop has polled for I/O after now. */
function afterThisTurn(): Promise<void> {
  const later: (fn: () => void) => unknown = globalThis.setImmediate ?? ((fn) => setTimeout(fn, 0));
  return new Promise((resolve) => {
    later(resolve);
  });
}
