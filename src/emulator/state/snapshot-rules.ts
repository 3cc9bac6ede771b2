// The rules a snapshot's content must keep, the same rules every other way in enforces (the account page and
// the control routes through ops/, seed files, /v1's shapes): limits per org, the endpoint URL policy, one org
// owning a link's key and sandbox, ports, attempts within the retry schedule, text lengths and characters.
// Each rule is read from its one home and only applied here; every problem is named by its path in the file.
import {
  API_KEY_PREFIX_LENGTH,
  API_KEY_SECRET_PREFIX,
  MAX_ACTIVE_KEYS_PER_ORG,
  MAX_DELIVERY_ATTEMPTS,
  MAX_EMAIL_LENGTH,
  MAX_ENDPOINT_DESCRIPTION_LENGTH,
  MAX_ENDPOINTS_PER_ORG,
  MAX_LAST_ERROR_LENGTH,
  MAX_NAME_LENGTH,
  MAX_RELAYS_PER_ORG,
  MAX_SANDBOX_PORT,
  MIN_SANDBOX_PORT,
  RELAY_NAME_PATTERN,
  RELAY_NAME_RULE,
  RESPONSE_BODY_LIMIT_BYTES,
} from '../../definitions.js';
import type {Snapshot} from '../../schemas/snapshot.js';
import {checkEndpointHost, checkEndpointUrl, type Resolver} from '../net/address-policy.js';
import type {Problem} from '../operation-error.js';
import {eventTypes, Problems, text} from '../ops/validate.js';
import {parseEmail} from '../web/accounts.js';

export interface SnapshotRuleOptions {
  /** The emulator's `--allow-local-endpoints`: local endpoint URLs pass, as they do at registration. */
  allowLocalEndpoints: boolean;
  /** The registration-time DNS check of endpoint hosts (without local endpoints); none when absent. */
  lookup?: Resolver;
}

const KEY_PREFIX = new RegExp(
  `^${API_KEY_SECRET_PREFIX}[0-9A-Za-z]{${API_KEY_PREFIX_LENGTH - API_KEY_SECRET_PREFIX.length}}$`,
);

/** Every rule a checked-shape snapshot breaks; empty when it keeps them all. */
export function snapshotRuleProblems(snap: Snapshot, options: SnapshotRuleOptions): Problem[] {
  const problems = new Problems();
  textRules(snap, problems);
  keyRules(snap, problems);
  endpointRules(snap, options, problems);
  peopleRules(snap, problems);
  linkRules(snap, problems);
  deliveryRules(snap, problems);
  return problems.list;
}

const name = (problems: Problems, field: string, value: string) =>
  text(problems, field, value, {max: MAX_NAME_LENGTH});

function textRules(snap: Snapshot, problems: Problems): void {
  for (const [i, o] of snap.orgs.entries()) name(problems, `orgs[${i}].name`, o.name);
  snap.sandboxes.forEach((s, i) => {
    name(problems, `sandboxes[${i}].name`, s.name);
    text(problems, `sandboxes[${i}].last_error`, s.last_error, {
      max: MAX_LAST_ERROR_LENGTH,
      optional: true,
      multiline: true,
    });
  });
  snap.events.forEach((e, i) => {
    if (!isJsonObject(e.body)) problems.add(`events[${i}].body`, 'must be the JSON object the event carried');
  });
  snap.delivery_attempts.forEach((a, i) => {
    if (a.response_body !== null && a.response_body.length > RESPONSE_BODY_LIMIT_BYTES) {
      problems.add(
        `delivery_attempts[${i}].response_body`,
        `must be at most ${RESPONSE_BODY_LIMIT_BYTES} characters, as much of an answer as an attempt keeps`,
      );
    }
    statusCode(problems, `delivery_attempts[${i}].status_code`, a.status_code);
  });
}

function isJsonObject(body: string): boolean {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

function statusCode(problems: Problems, field: string, value: number | null): void {
  if (value !== null && (value < 100 || value > 599)) problems.add(field, 'must be an HTTP status (100-599)');
}

/** Counts rows per org and names the first one past the limit. */
function perOrgLimit<T extends {org_id: string}>(
  rows: readonly T[],
  table: string,
  max: number,
  what: string,
  counts: (row: T) => boolean,
  problems: Problems,
): void {
  const seen = new Map<string, number>();
  rows.forEach((row, i) => {
    if (!counts(row)) return;
    const n = (seen.get(row.org_id) ?? 0) + 1;
    seen.set(row.org_id, n);
    if (n === max + 1) {
      problems.add(
        `${table}[${i}]`,
        `is ${what} ${n} of org ${row.org_id}; an org may have at most ${max} ${what}s`,
      );
    }
  });
}

function keyRules(snap: Snapshot, problems: Problems): void {
  const now = Date.parse(snap.clock.now);
  const hashes = new Set<string>();
  snap.api_keys.forEach((k, i) => {
    const at = `api_keys[${i}]`;
    name(problems, `${at}.name`, k.name);
    text(problems, `${at}.created_by`, k.created_by, {max: MAX_EMAIL_LENGTH, optional: true});
    if (!KEY_PREFIX.test(k.prefix)) {
      problems.add(`${at}.prefix`, `must be the first ${API_KEY_PREFIX_LENGTH} characters of a key secret`);
    }
    if (hashes.has(k.secret_hash)) problems.add(`${at}.secret_hash`, 'is the hash of a key listed earlier');
    hashes.add(k.secret_hash);
  });
  const active = (k: Snapshot['api_keys'][number]) =>
    k.revoked_at === null && (k.expires_at === null || Date.parse(k.expires_at) > now);
  perOrgLimit(snap.api_keys, 'api_keys', MAX_ACTIVE_KEYS_PER_ORG, 'active key', active, problems);
}

function endpointRules(snap: Snapshot, options: SnapshotRuleOptions, problems: Problems): void {
  snap.webhook_endpoints.forEach((w, i) => {
    const at = `webhook_endpoints[${i}]`;
    const check = checkEndpointUrl(w.url, {allowLocal: options.allowLocalEndpoints});
    if (!check.ok)
      problems.add(`${at}.url`, check.reason.replace(/^url /, ''), check.local ? 'local_url' : undefined);
    eventTypes(problems, `${at}.events`, w.events);
    text(problems, `${at}.description`, w.description, {
      max: MAX_ENDPOINT_DESCRIPTION_LENGTH,
      optional: true,
    });
  });
  perOrgLimit(
    snap.webhook_endpoints,
    'webhook_endpoints',
    MAX_ENDPOINTS_PER_ORG,
    'webhook endpoint',
    () => true,
    problems,
  );
  const endpointOrg = new Map(snap.webhook_endpoints.map((w) => [w.id, w.org_id]));
  snap.relay_endpoints.forEach((r, i) => {
    if (!RELAY_NAME_PATTERN.test(r.name))
      problems.add(`relay_endpoints[${i}].name`, `must be ${RELAY_NAME_RULE}`);
    sameOrg(
      problems,
      `relay_endpoints[${i}].endpoint_id`,
      r.org_id,
      endpointOrg.get(r.endpoint_id),
      'its endpoint',
    );
  });
  perOrgLimit(
    snap.relay_endpoints,
    'relay_endpoints',
    MAX_RELAYS_PER_ORG,
    'relay endpoint',
    () => true,
    problems,
  );
}

/** A row's reference must stay inside its own org. */
function sameOrg(
  problems: Problems,
  field: string,
  own: string,
  other: string | undefined,
  what: string,
): void {
  if (other !== undefined && other !== own) {
    problems.add(field, `names ${what}, of org ${other}, from a row of org ${own}: nothing crosses orgs`);
  }
}

function peopleRules(snap: Snapshot, problems: Problems): void {
  const emails = new Set<string>();
  snap.persons.forEach((p, i) => {
    const email = parseEmail(p.email);
    if (!email.ok) {
      problems.add(`persons[${i}].email`, email.message.replace(/\.$/, '').replace(/^Enter/, 'must be'));
    } else if (emails.has(email.email))
      problems.add(`persons[${i}].email`, 'is the email of a person listed earlier');
    else emails.add(email.email);
  });
  const members = new Set<string>();
  const owners = new Map<string, number>();
  snap.memberships.forEach((m, i) => {
    const pair = `${m.org_id} ${m.person_id}`;
    if (members.has(pair)) problems.add(`memberships[${i}]`, 'lists a person of an org listed earlier');
    members.add(pair);
    if (m.role !== 'owner') return;
    const earlier = owners.get(m.org_id);
    if (earlier !== undefined) {
      problems.add(
        `memberships[${i}].role`,
        `makes a second owner of org ${m.org_id} (memberships[${earlier}] is its owner); an org has one owner at most`,
      );
    } else owners.set(m.org_id, i);
  });
  const invited = new Set<string>();
  snap.invitations.forEach((v, i) => {
    const pair = `${v.org_id} ${v.person_id}`;
    if (invited.has(pair)) problems.add(`invitations[${i}]`, 'invites a person to an org listed earlier');
    invited.add(pair);
  });
}

function linkRules(snap: Snapshot, problems: Problems): void {
  const sandboxOrg = new Map(snap.sandboxes.map((s) => [s.id, s.org_id]));
  const keyOrg = new Map(snap.api_keys.map((k) => [k.id, k.org_id]));
  const tokens = new Set<string>();
  snap.sandbox_links.forEach((l, i) => {
    const at = `sandbox_links[${i}]`;
    sameOrg(problems, `${at}.sandbox_id`, l.org_id, sandboxOrg.get(l.sandbox_id), 'its sandbox');
    sameOrg(problems, `${at}.key_id`, l.org_id, keyOrg.get(l.key_id), 'the key that made it');
    if (l.kind === 'port') {
      if (l.port === null || l.port < MIN_SANDBOX_PORT || l.port > MAX_SANDBOX_PORT) {
        problems.add(
          `${at}.port`,
          `must be a port from ${MIN_SANDBOX_PORT} to ${MAX_SANDBOX_PORT} for a port session`,
        );
      }
    } else if (l.port !== null)
      problems.add(`${at}.port`, `must be null: a ${l.kind} link forwards to no port`);
    if (tokens.has(l.token_hash))
      problems.add(`${at}.token_hash`, 'is the token hash of a link listed earlier');
    tokens.add(l.token_hash);
  });
}

function deliveryRules(snap: Snapshot, problems: Problems): void {
  const events = new Map(snap.events.map((e) => [e.id, e]));
  const endpointOrg = new Map(snap.webhook_endpoints.map((w) => [w.id, w.org_id]));
  const attemptsOf = new Map<string, number>();
  snap.deliveries.forEach((d, i) => {
    const at = `deliveries[${i}]`;
    const event = events.get(d.event_id);
    sameOrg(problems, `${at}.event_id`, d.org_id, event?.org_id, 'its event');
    sameOrg(problems, `${at}.endpoint_id`, d.org_id, endpointOrg.get(d.endpoint_id), 'its endpoint');
    if (event && event.type !== d.event_type)
      problems.add(`${at}.event_type`, `must be its event's type, ${event.type}`);
    statusCode(problems, `${at}.last_status_code`, d.last_status_code);
    attemptsOf.set(d.id, d.attempts);
    // Resends and chaos duplicates count in `manual_attempts`; the schedule makes the rest.
    const scheduled = d.attempts - d.manual_attempts;
    if (scheduled < 0)
      problems.add(`${at}.manual_attempts`, 'must be at most attempts, which counts them too');
    else if (scheduled > MAX_DELIVERY_ATTEMPTS) {
      problems.add(
        `${at}.attempts`,
        `counts ${scheduled} scheduled attempts; the retry schedule makes at most ${MAX_DELIVERY_ATTEMPTS}`,
      );
    } else if (d.status === 'pending' && scheduled === MAX_DELIVERY_ATTEMPTS) {
      problems.add(
        `${at}.status`,
        `is pending after all ${MAX_DELIVERY_ATTEMPTS} scheduled attempts; the last failed attempt makes it failed`,
      );
    }
  });
  snap.delivery_attempts.forEach((a, i) => {
    const made = attemptsOf.get(a.delivery_id);
    if (made !== undefined && a.attempt > made) {
      problems.add(
        `delivery_attempts[${i}].attempt`,
        `is ${a.attempt}, past its delivery's ${made} attempts`,
      );
    }
  });
}

/**
 * The DNS check registration makes: an endpoint whose host resolves to a private, loopback or reserved address
 * is refused (one lookup per host; a host DNS cannot answer for now passes, as it does at registration).
 */
export async function endpointHostProblems(snap: Snapshot, options: SnapshotRuleOptions): Promise<Problem[]> {
  const lookup = options.lookup;
  if (options.allowLocalEndpoints || !lookup) return [];
  const hosts = new Map<string, number[]>();
  snap.webhook_endpoints.forEach((w, i) => {
    const check = checkEndpointUrl(w.url, {allowLocal: false});
    if (!check.ok) return;
    hosts.set(check.url.hostname, [...(hosts.get(check.url.hostname) ?? []), i]);
  });
  const problems = new Problems();
  const checks = await Promise.all([...hosts.keys()].map((host) => checkEndpointHost(host, lookup)));
  [...hosts.values()].forEach((rows, h) => {
    const check = checks[h];
    if (check && !check.ok) {
      for (const i of rows)
        problems.add(`webhook_endpoints[${i}].url`, check.reason.replace(/^url /, ''), 'local_url');
    }
  });
  return problems.list;
}
