// What a control token narrower than the admin token may reach (auth/control-token.ts), checked before any route
// runs: a token of one org reaches the routes that act on one org, and only on its own (the org a path names, the
// `org_id` of a body or query, the emulator's default org when none is named, and the org of every key, endpoint,
// sandbox, event or delivery the request names); a token that makes orgs reaches nothing but making one. Anything
// else (the emulator's clock, its state, its log, the limiter, the relay, routes added by plugins) takes the
// admin token. A refusal is 403 `forbidden`, saying which org the token reaches.
import type {Context} from 'hono';
import {createMiddleware} from 'hono/factory';
import type {AppEnv, EmulatorContext} from '../context.js';
import type {OwnedRecord} from '../db/record-owners.js';
import {HttpError} from '../http-error.js';
import {bodyText} from '../net/body-text.js';
import {orgOfRecord} from '../ops/control-tokens.js';

/** Where a route finds the org it acts on. */
type Target = 'path' | 'body' | 'query' | OwnedRecord | 'named';

interface OrgRoute {
  methods: readonly string[];
  /** The path; its first group is the id the target reads (an org's for `path`, a record's for a record kind). */
  path: RegExp;
  target: Target;
}

/** Every route a token of one org reaches; any other path or method is refused. */
const ORG_ROUTES: readonly OrgRoute[] = [
  {methods: ['POST'], path: /^\/_emulator\/orgs\/([^/]+)\/(?:reset|clock)$/, target: 'path'},
  {methods: ['GET'], path: /^\/_emulator\/orgs\/([^/]+)\/clock$/, target: 'path'},
  {methods: ['DELETE'], path: /^\/_emulator\/orgs\/([^/]+)$/, target: 'path'},
  {methods: ['GET', 'POST'], path: /^\/_emulator\/orgs\/([^/]+)\/checkpoints$/, target: 'path'},
  {methods: ['POST'], path: /^\/_emulator\/orgs\/([^/]+)\/checkpoints\/[^/]+\/rewind$/, target: 'path'},
  {methods: ['DELETE'], path: /^\/_emulator\/orgs\/([^/]+)\/checkpoints\/[^/]+$/, target: 'path'},
  {
    methods: ['POST'],
    path: /^\/_emulator\/(?:keys|webhooks|sandboxes|trigger|failed-deliveries\/resend)$/,
    target: 'body',
  },
  {methods: ['GET'], path: /^\/_emulator\/(?:sandboxes|webhook-health|links)$/, target: 'query'},
  {methods: ['POST'], path: /^\/_emulator\/keys\/([^/]+)\/revoke$/, target: 'key'},
  {methods: ['DELETE'], path: /^\/_emulator\/webhooks\/([^/]+)$/, target: 'endpoint'},
  {methods: ['GET', 'PUT', 'DELETE'], path: /^\/_emulator\/webhooks\/([^/]+)\/chaos$/, target: 'endpoint'},
  {methods: ['GET'], path: /^\/_emulator\/sandboxes\/([^/]+)$/, target: 'sandbox'},
  {methods: ['POST'], path: /^\/_emulator\/sandboxes\/([^/]+)\/[^/]+$/, target: 'sandbox'},
  {methods: ['GET'], path: /^\/_emulator\/deliveries\/([^/]+)$/, target: 'delivery'},
  {methods: ['POST'], path: /^\/_emulator\/deliveries\/([^/]+)\/resend$/, target: 'delivery'},
  // Names its delivery or event in the body: held to the org of what it names.
  {methods: ['POST'], path: /^\/_emulator\/delivery-wait$/, target: 'named'},
];

/** The path of the one request a token that makes orgs may send, with `{"new_org": NAME}`. */
export const CONTROL_TOKENS_PATH = '/_emulator/control-tokens';

/** Fields of a body or query that name a record, each held to the token's org. */
const NAMING_FIELDS: Readonly<Record<string, OwnedRecord>> = {
  key_id: 'key',
  webhook_id: 'endpoint',
  sandbox_id: 'sandbox',
  event_id: 'event',
  delivery_id: 'delivery',
};

export function controlTokenScope(ctx: EmulatorContext) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const scope = c.get('controlScope');
    if (scope.kind === 'admin') return next();
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    if (scope.kind === 'new_orgs') {
      const body = method === 'POST' && c.req.path === CONTROL_TOKENS_PATH ? await bodyOf(c) : undefined;
      const keys = body ? Object.keys(body) : [];
      if (keys.length !== 1 || keys[0] !== 'new_org') {
        refuse(
          c,
          `this control token only makes orgs (POST ${CONTROL_TOKENS_PATH} {"new_org": NAME} answers a new org with a token of its own); anything else takes the admin token of emulator.json`,
        );
      }
      return next();
    }
    const own = scope.orgId;
    const found = routeOf(method, c.req.path);
    if (!found) {
      refuse(
        c,
        `this control token reaches org ${own} only, and this route is not one org's (the emulator's clock, its state, its log and the like): it takes the admin token of emulator.json`,
      );
    }
    const {route, id} = found;
    const body = method === 'POST' || method === 'PUT' ? await bodyOf(c) : undefined;
    // A body the route cannot read is refused by the route (400) before it acts on anything.
    if (route.target === 'body' && !body) return next();
    const named: Record<string, unknown> = route.target === 'query' ? c.req.query() : (body ?? {});
    const orgs: {org: string; what: string}[] = [];
    if (route.target === 'path' && id !== undefined) orgs.push({org: id, what: 'this request is for'});
    if (route.target === 'body' || route.target === 'query') {
      const given = named.org_id;
      // An org_id that is no string is refused by the route; none means the emulator's default org.
      if (given === undefined || typeof given === 'string')
        orgs.push({org: (given as string | undefined) ?? ctx.current.orgId, what: 'this request is for'});
    }
    const records: [OwnedRecord, string][] = [];
    if (isRecordKind(route.target) && id !== undefined) records.push([route.target, id]);
    for (const [field, kind] of Object.entries(NAMING_FIELDS)) {
      const value = named[field];
      if (typeof value === 'string') records.push([kind, value]);
    }
    for (const [kind, recordId] of records) {
      const org = await orgOfRecord(ctx, kind, recordId);
      // A record there is not is the route's to answer (404), as for any token.
      if (org !== undefined) orgs.push({org, what: `the ${kind} ${recordId} belongs to`});
    }
    const other = orgs.find((o) => o.org !== own);
    if (other) {
      refuse(
        c,
        `this control token reaches org ${own} only; ${other.what} org ${other.org}, which takes a token of that org or the admin token of emulator.json`,
      );
    }
    return next();
  });
}

/** The route a token of one org reaches at this method and path, with the id its path names; undefined for none. */
function routeOf(method: string, path: string): {route: OrgRoute; id: string | undefined} | undefined {
  for (const route of ORG_ROUTES) {
    const match = route.methods.includes(method) ? route.path.exec(path) : null;
    if (match) return {route, id: decoded(match[1])};
  }
  return undefined;
}

function isRecordKind(target: Target): target is OwnedRecord {
  return target !== 'path' && target !== 'body' && target !== 'query' && target !== 'named';
}

function decoded(segment: string | undefined): string | undefined {
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The request's JSON object body (read once: the route gets the same text), or undefined. */
async function bodyOf(c: Context<AppEnv>): Promise<Record<string, unknown> | undefined> {
  const text = await bodyText(c);
  if (text.trim() === '') return {};
  try {
    const body: unknown = JSON.parse(text);
    return body !== null && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function refuse(c: Context<AppEnv>, message: string): never {
  c.set('refusal', {reason: 'forbidden', detail: message});
  throw new HttpError(403, 'forbidden', message);
}
