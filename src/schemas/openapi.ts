// The OpenAPI 3.1 document of /v1 and of the webhooks svc sends, generated from the zod schemas beside it
// and the rules in definitions.ts, so the document cannot say anything the code does not do.
// fixtures/openapi.json is this document as generated; test/schemas/openapi.test.ts fails when they differ.
import {z} from 'zod';
import {
  API_KEY_SECRET_BODY_LENGTH,
  API_KEY_SECRET_PREFIX,
  DELIVERY_HEADERS,
  DELIVERY_TIMEOUT_MS,
  DEPRECATION_HEADER_PATTERN,
  ERROR_STATUS,
  type ErrorCode,
  EVENT_TYPES,
  type EventType,
  MAX_ACTIVE_KEYS_PER_ORG,
  MAX_DELIVERIES_LISTED,
  MAX_DELIVERY_ATTEMPTS,
  RETENTION_MS,
  SIGNATURE_TOLERANCE_SECONDS,
  V1_ERROR_CODES,
  WEBHOOK_CREATE_DEPRECATION,
} from '../definitions.js';
import {
  ApiKeySchema,
  DeliverySchema,
  errorBodySchemaFor,
  eventSchemaFor,
  listOf,
  OrgSchema,
  ContractSandboxSchema,
  WebhookEndpointSchema,
} from './index.js';

export type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  webhooks: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
};

const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
/** Where the document says /v1 is served when no address is given: the emulator's default port. */
export const DEFAULT_OPENAPI_SERVER = 'http://127.0.0.1:4010';

/** The component name of each event type's body: `sandbox.ready` → `SandboxReadyEvent`. */
export function eventComponentName(type: EventType): string {
  const words = type.split(/[._-]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1));
  return `${words.join('')}Event`;
}

/** The JSON Schema (2020-12) of one event type's body, standing alone: what `svc events schema` prints. */
export function eventJsonSchema(type: EventType): JsonSchema {
  const schema = z.toJSONSchema(eventSchemaFor(type), {target: 'draft-2020-12', io: 'output'}) as JsonSchema;
  return {
    $schema: JSON_SCHEMA_DIALECT,
    title: `${type} event`,
    description: `The JSON body svc posts to a webhook endpoint for a ${type} event (${DELIVERY_HEADERS.eventType}: ${type}).`,
    ...withoutKeys(schema, ['$schema']),
  };
}

function withoutKeys(value: JsonSchema, keys: string[]): JsonSchema {
  return Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k)));
}

const ref = (name: string) => ({$ref: `#/components/schemas/${name}`});
const responseRef = (name: string) => ({$ref: `#/components/responses/${name}`});

/** Every schema the document names, by component name. */
function componentSchemas(): Record<string, JsonSchema> {
  const registry = z.registry<{id: string; description?: string}>();
  registry.add(OrgSchema, {id: 'Org', description: 'The org an API key belongs to.'});
  registry.add(ApiKeySchema, {
    id: 'ApiKey',
    description: `An API key of the org, never with its secret: \`prefix\` is the first characters of the \`${API_KEY_SECRET_PREFIX}…\` secret.`,
  });
  registry.add(WebhookEndpointSchema, {
    id: 'WebhookEndpoint',
    description: 'A webhook endpoint of the org, never with its signing secret.',
  });
  registry.add(DeliverySchema, {
    id: 'Delivery',
    description: 'One event sent to one endpoint, with the number of attempts made so far.',
  });
  registry.add(ContractSandboxSchema, {id: 'Sandbox', description: 'The sandbox an event is about.'});
  for (const type of EVENT_TYPES) {
    registry.add(eventSchemaFor(type), {
      id: eventComponentName(type),
      description: `The body of a ${type} event.`,
    });
  }
  registry.add(listOf(ApiKeySchema), {
    id: 'ApiKeyList',
    description: "The org's API keys.",
  });
  registry.add(listOf(WebhookEndpointSchema), {
    id: 'WebhookEndpointList',
    description: "The org's webhook endpoints.",
  });
  registry.add(listOf(DeliverySchema), {
    id: 'DeliveryList',
    description: `The ${MAX_DELIVERIES_LISTED} most recent deliveries to the endpoint, newest first.`,
  });
  for (const code of ERROR_CODES_USED) {
    registry.add(errorBodySchemaFor(code), {
      id: errorComponentName(code),
      description: `An error answer with code ${code}.`,
    });
  }
  registry.add(z.object({error: z.looseObject({code: z.enum(V1_ERROR_CODES), message: z.string()})}), {
    id: 'Error',
    description: `Any error answer of /v1: ${V1_ERROR_CODES.map((code) => `${code} (${ERROR_STATUS[code]})`).join(', ')}.`,
  });
  const out = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io: 'output',
    uri: (id) => `#/components/schemas/${id}`,
  }) as {schemas: Record<string, JsonSchema>};
  return Object.fromEntries(
    Object.entries(out.schemas).map(([name, schema]) => [name, withoutKeys(schema, ['$schema', '$id'])]),
  );
}

/** The error codes /v1 answers with, each a response component. */
const ERROR_CODES_USED = [
  'unauthorized',
  'forbidden',
  'not_found',
  'rate_limited',
  'vault_unavailable',
] as const;

function errorComponentName(code: ErrorCode): string {
  return `${code
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Error`;
}

function jsonContent(schema: unknown) {
  return {'application/json': {schema}};
}

function errorResponse(code: ErrorCode, description: string, headers?: Record<string, unknown>) {
  return {description, ...(headers ? {headers} : {}), content: jsonContent(ref(errorComponentName(code)))};
}

const ERROR_RESPONSES = {
  Unauthorized: errorResponse(
    'unauthorized',
    'The API key is missing, malformed, unknown, revoked or expired. The answer is the same whatever the reason.',
  ),
  Forbidden: errorResponse(
    'forbidden',
    'API keys only read: keys and webhook endpoints are created and deleted on the account page.',
  ),
  NotFound: errorResponse('not_found', 'No webhook endpoint of the org has this id.'),
  RateLimited: errorResponse(
    'rate_limited',
    'Too many failed authentications from this address; wait the number of seconds in Retry-After.',
    {'Retry-After': {$ref: '#/components/headers/Retry-After'}},
  ),
  VaultUnavailable: errorResponse(
    'vault_unavailable',
    'The deployment has no vault key, so deliveries cannot be listed.',
  ),
  Error: {
    description:
      'Any other error answer, in the same shape: 405 method_not_allowed (with Allow naming the methods the path ' +
      'answers) for another method, 421 misdirected_request for a request addressed to a name the server does not ' +
      'answer to, 400 invalid_request for a request that could not be read, 500 internal.',
    content: jsonContent(ref('Error')),
  },
};

/** The answers every /v1 operation can give before it runs: authentication comes first. */
const AUTH_RESPONSES = {
  '401': responseRef('Unauthorized'),
  '429': responseRef('RateLimited'),
  default: responseRef('Error'),
};

function read(summary: string, operationId: string, tag: string, schema: string, description: string) {
  return {
    operationId,
    summary,
    description,
    tags: [tag],
    responses: {'200': {description: summary, content: jsonContent(ref(schema))}, ...AUTH_RESPONSES},
  };
}

/**
 * What a refused write takes: any body or none, of any type (it is refused whatever it carries), so a validating
 * proxy in front of a deployment passes it on to get the 403. JSON comes first: code generators take the first
 * media type (openapi-python-client skips an operation whose only body is the any-type range, and hey-api sends
 * that range as its Content-Type).
 */
const ANY_BODY = {
  required: false,
  description: 'Any body, or none: the write is refused whatever it carries (JSON, or any other media type).',
  content: {'application/json': {schema: {}}, '*/*': {schema: {}}},
};

function refusedWrite(summary: string, operationId: string, tag: string, description: string, extra = {}) {
  return {
    operationId,
    summary,
    description,
    tags: [tag],
    requestBody: ANY_BODY,
    responses: {'403': responseRef('Forbidden'), ...AUTH_RESPONSES},
    ...extra,
  };
}

function paths(): OpenApiDocument['paths'] {
  return {
    '/v1/org': {
      get: read('The org of the API key', 'getOrg', 'Org', 'Org', 'The org the calling key belongs to.'),
    },
    '/v1/api-keys': {
      get: read(
        "List the org's API keys",
        'listApiKeys',
        'API keys',
        'ApiKeyList',
        `Every key of the org, active, revoked and expired, never with a secret. An org holds at most ${MAX_ACTIVE_KEYS_PER_ORG} active keys.`,
      ),
      post: refusedWrite(
        'Create an API key (refused)',
        'createApiKey',
        'API keys',
        'Always 403: API keys are created on the account page, never with an API key.',
      ),
    },
    '/v1/api-keys/{key}': {
      parameters: [
        {
          name: 'key',
          in: 'path',
          required: true,
          description: 'The id of an API key.',
          schema: {type: 'string'},
        },
      ],
      delete: refusedWrite(
        'Revoke an API key (refused)',
        'revokeApiKey',
        'API keys',
        'Always 403: API keys are revoked on the account page, never with an API key.',
      ),
    },
    '/v1/webhooks': {
      get: read(
        "List the org's webhook endpoints",
        'listWebhookEndpoints',
        'Webhooks',
        'WebhookEndpointList',
        'Every webhook endpoint of the org, never with its signing secret.',
      ),
      post: {
        ...refusedWrite(
          'Create a webhook endpoint (refused, deprecated)',
          'createWebhookEndpoint',
          'Webhooks',
          'Always 403, with a Deprecation header: webhook endpoints are added on the account page by an owner or admin of the org.',
          {deprecated: true},
        ),
        responses: {
          '403': {
            ...ERROR_RESPONSES.Forbidden,
            headers: {Deprecation: {$ref: '#/components/headers/Deprecation'}},
          },
          ...AUTH_RESPONSES,
        },
      },
    },
    '/v1/webhooks/{webhook}/deliveries': {
      parameters: [
        {
          name: 'webhook',
          in: 'path',
          required: true,
          description: 'The id of a webhook endpoint of the org.',
          schema: {type: 'string'},
        },
      ],
      get: {
        ...read(
          'List the deliveries to a webhook endpoint',
          'listDeliveries',
          'Webhooks',
          'DeliveryList',
          `The ${MAX_DELIVERIES_LISTED} most recent deliveries to the endpoint, newest first; deliveries older than ${RETENTION_MS / 86_400_000} days are gone.`,
        ),
        responses: {
          '200': {
            description: 'The most recent deliveries, newest first',
            content: jsonContent(ref('DeliveryList')),
          },
          ...AUTH_RESPONSES,
          '404': responseRef('NotFound'),
          '503': responseRef('VaultUnavailable'),
        },
      },
    },
  };
}

const DELIVERY_HEADER_DESCRIPTIONS: Record<keyof typeof DELIVERY_HEADERS, string> = {
  signature: `\`t=<unix seconds of this attempt>,v1=<hex>\`: v1 is the lowercase hex HMAC-SHA256, keyed with the whole signing secret (\`whsec_…\`), of \`t\`, \`.\` and the raw body. Reject timestamps more than ${SIGNATURE_TOLERANCE_SECONDS} seconds from your clock.`,
  eventId: 'The event id (`evt_…`): handle each event once.',
  eventType: 'The event type.',
  deliveryId: 'The delivery id (`dlv_…`).',
  attempt: `The attempt number, 1 for the first; at most ${MAX_DELIVERY_ATTEMPTS}.`,
};

function webhooks(): OpenApiDocument['webhooks'] {
  const parameters = (Object.keys(DELIVERY_HEADERS) as (keyof typeof DELIVERY_HEADERS)[]).map((key) => ({
    name: DELIVERY_HEADERS[key],
    in: 'header',
    required: true,
    description: DELIVERY_HEADER_DESCRIPTIONS[key],
    schema: key === 'attempt' ? {type: 'string', pattern: '^[1-9][0-9]*$'} : {type: 'string'},
  }));
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `receive${eventComponentName(type)}`,
          summary: `A ${type} event`,
          description: `svc posts the event to every endpoint subscribed to ${type}. The same event can arrive more than once and out of order.`,
          tags: ['Events'],
          security: [],
          parameters,
          requestBody: {required: true, content: jsonContent(ref(eventComponentName(type)))},
          responses: {
            '2XX': {
              description: `Received: any 2xx answer within ${DELIVERY_TIMEOUT_MS / 1000} seconds. Anything else (a redirect included) is retried, up to ${MAX_DELIVERY_ATTEMPTS} attempts.`,
            },
          },
        },
      },
    ]),
  );
}

export interface OpenApiOptions {
  /** The address /v1 is served at; the emulator gives its own. */
  serverUrl?: string;
}

/** The whole document: every /v1 path with its answers, the bearer scheme, and one webhook per event type. */
export function buildOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const errorStatuses = V1_ERROR_CODES.map((code) => `${ERROR_STATUS[code]} ${code}`).join(', ');
  return {
    openapi: '3.1.1',
    jsonSchemaDialect: JSON_SCHEMA_DIALECT,
    info: {
      title: 'svc API',
      version: '1',
      summary: 'Org API keys, webhook endpoints and deliveries of the svc sandbox service.',
      description: `Every call carries \`Authorization: Bearer ${API_KEY_SECRET_PREFIX}…\`; an API key can only read. Errors are \`{"error": {"code", "message"}}\` (${errorStatuses}).`,
      license: {name: 'MIT', identifier: 'MIT'},
    },
    servers: [{url: options.serverUrl ?? DEFAULT_OPENAPI_SERVER}],
    security: [{bearer: []}],
    tags: [
      {name: 'Org', description: 'The org of the calling key.'},
      {name: 'API keys', description: 'Read-only: keys are made and revoked on the account page.'},
      {name: 'Webhooks', description: 'Webhook endpoints and their deliveries; read-only.'},
      {name: 'Events', description: 'What svc posts to webhook endpoints.'},
    ],
    paths: paths(),
    webhooks: webhooks(),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: `An org API key: \`${API_KEY_SECRET_PREFIX}\` and ${API_KEY_SECRET_BODY_LENGTH} base62 characters.`,
        },
      },
      headers: {
        'Retry-After': {
          description: 'Seconds to wait before trying again.',
          required: true,
          schema: {type: 'string', pattern: '^[0-9]+$'},
        },
        Deprecation: {
          description: `The route is deprecated, since the date it carries (RFC 9745: \`@\` and Unix seconds, e.g. \`${WEBHOOK_CREATE_DEPRECATION}\`).`,
          required: true,
          schema: {type: 'string', pattern: DEPRECATION_HEADER_PATTERN.source},
        },
      },
      responses: ERROR_RESPONSES,
      schemas: componentSchemas(),
    },
  };
}
