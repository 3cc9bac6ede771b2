// `svc mcp`: the org's keys, webhook endpoints and deliveries as read-only MCP tools. The key comes from
// SVC_API_KEY or the stored login, resolved on every call (so a fresh `svc login` applies at once); no
// tool takes a key and no answer contains one. Failures are tool errors that say what to do next.
import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {z} from 'zod';
import type {Session} from '../../auth/session.js';
import {toUserError} from '../../lib/error-mapper.js';
import {currentSvcCommand, spellSvc} from '../../lib/invocation.js';
import {API_KEY_STATUSES, DELIVERY_STATUSES, ID_PATTERNS, MAX_DELIVERIES_LISTED} from '../../definitions.js';
import {
  ApiKeySchema,
  DeliverySchema,
  OrgSchema,
  SandboxSchema,
  WebhookEndpointSchema,
} from '../../schemas/index.js';
import type {DeliveryDetail} from './delivery-detail.js';

export interface McpDependencies {
  /** A client for the key and address in use, resolved afresh for each call. */
  openSession: () => Promise<Session>;
  /** Attempt detail for one delivery (the emulator's), for the org the session's key belongs to. */
  deliveryDetail: (session: Session, orgId: string, deliveryId: string) => Promise<DeliveryDetail>;
  version: string;
}

const AttemptSchema = z.object({
  attempt: z.number().int(),
  started_at: z.string(),
  signature_t: z.number().int().nullable(),
  trigger: z.string(),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number(),
  response_body: z.string().nullable(),
});

const EventBodySchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  created_at: z.string(),
  org_id: z.string(),
  data: z.looseObject({sandbox: SandboxSchema}),
});

/** What a failure tells the agent: the message, then each next step on its own line. */
export function toolError(err: unknown): CallToolResult {
  // The same message and next steps the CLI gives for this error (an unreachable API names the emulator to
  // start, a 401 the login to run), each command spelled as svc runs here.
  const e = toUserError(err);
  const svc = currentSvcCommand();
  const text = [e.message, ...e.suggestions.map((s) => `Next step: ${s}`)]
    .map((t) => spellSvc(t, svc))
    .join('\n');
  return {isError: true, content: [{type: 'text', text}]};
}

function result<T extends Record<string, unknown>>(structured: T): CallToolResult {
  return {
    structuredContent: structured,
    content: [{type: 'text', text: JSON.stringify(structured, null, 2)}],
  };
}

/** Runs a tool body; every failure (401, network, bad id, no emulator) becomes a tool error. */
async function settle(run: () => Promise<Record<string, unknown>>): Promise<CallToolResult> {
  try {
    return result(await run());
  } catch (err) {
    return toolError(err);
  }
}

export interface SvcMcpServer {
  server: McpServer;
  /** Resolves once every tool call under way has its answer (a client may close stdin right after asking). */
  drain(): Promise<void>;
}

/** The SDK loads here, with the command that needs it, never at the CLI's start. */
export async function createMcpServer(deps: McpDependencies): Promise<SvcMcpServer> {
  const {McpServer} = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const inFlight = new Set<Promise<CallToolResult>>();
  const guarded = (run: () => Promise<Record<string, unknown>>): Promise<CallToolResult> => {
    const call = settle(run);
    inFlight.add(call);
    void call.finally(() => inFlight.delete(call));
    return call;
  };
  const server = new McpServer(
    {name: 'svc', title: 'svc', version: deps.version},
    {
      instructions:
        'Read-only access to one svc org, the one the API key in use belongs to: the org, its API keys, its ' +
        'webhook endpoints and their deliveries. Keys and endpoints are created and revoked on the account ' +
        'page, never here. Start with list_webhook_endpoints to get endpoint ids, then list_deliveries.',
    },
  );
  const readOnly = {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false};

  server.registerTool(
    'get_org',
    {
      title: 'Show the org',
      description: 'The org the API key in use belongs to: its id (org_…), name and creation time.',
      outputSchema: OrgSchema.shape,
      annotations: readOnly,
    },
    () =>
      guarded(async () => {
        const {client} = await deps.openSession();
        return client.getOrg();
      }),
  );

  server.registerTool(
    'list_api_keys',
    {
      title: 'List API keys',
      description:
        "The org's API keys: name, prefix (first 8 characters, never the secret), creator, creation, last " +
        'use, expiry and status (active, revoked, expired). Filter with `status`.',
      inputSchema: {
        status: z.enum(API_KEY_STATUSES).optional().describe('only keys in this state'),
      },
      outputSchema: {keys: z.array(ApiKeySchema)},
      annotations: readOnly,
    },
    ({status}) =>
      guarded(async () => {
        const {client} = await deps.openSession();
        const keys = await client.listApiKeys();
        return {keys: status ? keys.filter((k) => k.status === status) : keys};
      }),
  );

  server.registerTool(
    'list_webhook_endpoints',
    {
      title: 'List webhook endpoints',
      description:
        "The org's webhook endpoints: id (we_…), URL, subscribed event types, description, creation time. " +
        'Signing secrets are never shown. Pass an id to list_deliveries.',
      outputSchema: {endpoints: z.array(WebhookEndpointSchema)},
      annotations: readOnly,
    },
    () =>
      guarded(async () => {
        const {client} = await deps.openSession();
        return {endpoints: await client.listWebhooks()};
      }),
  );

  server.registerTool(
    'list_deliveries',
    {
      title: 'List deliveries to an endpoint',
      description:
        `The ${MAX_DELIVERIES_LISTED} most recent deliveries to one webhook endpoint, newest first: delivery id ` +
        '(dlv_…), event id and type, status (pending, succeeded, failed), attempts made, last status code and ' +
        'when the next attempt is due. Use `status: "failed"` to find what a receiver never accepted.',
      inputSchema: {
        webhook_id: z
          .string()
          .regex(ID_PATTERNS.webhookEndpoint)
          .describe('endpoint id, we_ and 24 letters and digits, from list_webhook_endpoints'),
        status: z.enum(DELIVERY_STATUSES).optional().describe('only deliveries with this status'),
      },
      outputSchema: {webhook_id: z.string(), deliveries: z.array(DeliverySchema)},
      annotations: readOnly,
    },
    ({webhook_id, status}) =>
      guarded(async () => {
        const {client} = await deps.openSession();
        const deliveries = await client.listDeliveries(webhook_id);
        return {webhook_id, deliveries: status ? deliveries.filter((d) => d.status === status) : deliveries};
      }),
  );

  server.registerTool(
    'get_delivery_attempts',
    {
      title: 'Show a delivery’s attempts (emulator)',
      description:
        'One delivery with every attempt (number, start time, signature timestamp, scheduled or manual, the ' +
        "receiver's status code or network error, duration, first 4 kB of its answer) and the event sent. " +
        'Available when the API address is a running svc emulator; the hosted service reports only counts.',
      inputSchema: {
        delivery_id: z
          .string()
          .regex(ID_PATTERNS.delivery)
          .describe('delivery id, dlv_ and 24 letters and digits, from list_deliveries'),
      },
      outputSchema: {
        delivery: DeliverySchema,
        endpoint_id: z.string(),
        event: EventBodySchema,
        attempts: z.array(AttemptSchema),
      },
      annotations: readOnly,
    },
    ({delivery_id}) =>
      guarded(async () => {
        const session = await deps.openSession();
        // The key is checked first: a revoked key reads nothing, not even from the emulator.
        const org = await session.client.getOrg();
        const detail = await deps.deliveryDetail(session, org.id, delivery_id);
        return {
          delivery: detail.delivery,
          endpoint_id: detail.endpoint_id,
          event: detail.event as Record<string, unknown>,
          attempts: detail.attempts,
        };
      }),
  );

  return {
    server,
    drain: async () => {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
