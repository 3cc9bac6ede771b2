// Loads a seed file (src/schemas/seed.ts) into the emulator's state: every rule is checked first and every
// problem reported at once, each named by the file, its path in the file and the rule; then everything is
// written in one transaction, or nothing. No event is fired and no delivery made: the seed is the state the
// suite starts from, not a history.
import {
  API_KEY_PREFIX_LENGTH,
  API_KEY_SECRET_BODY_LENGTH,
  API_KEY_SECRET_PATTERN,
  API_KEY_SECRET_PREFIX,
  ID_BODY_LENGTH,
  ID_PREFIXES,
  isId,
  KEY_EXPIRY_CHOICES,
  type KeyExpiryChoice,
  MAX_ACTIVE_KEYS_PER_ORG,
  MAX_EMAIL_LENGTH,
  MAX_ENDPOINT_DESCRIPTION_LENGTH,
  MAX_ENDPOINTS_PER_ORG,
  MAX_NAME_LENGTH,
  SIGNING_SECRET_PATTERN,
  SIGNING_SECRET_RULE,
} from '../../definitions.js';
import {
  SEED_FORMAT_KEY,
  SEED_FORMAT_VERSION,
  SEEDABLE_SANDBOX_STATUSES,
  type Seed,
} from '../../schemas/seed.js';
import {hashSecret} from '../hash.js';
import type {EmulatorContext} from '../context.js';
import type {Queryable} from '../db/database.js';
import {newApiKeySecret, newSigningSecret} from '../ids.js';
import {newId} from '../../ids.js';
import {checkEndpointHost, checkEndpointUrl} from '../net/address-policy.js';
import {eventTypes, oneOf, Problems, text} from '../ops/validate.js';
import {parseEmail} from '../web/accounts.js';
import {checkSeedShape} from './seed-shape.js';
import {StateFileError} from './state-file-error.js';

export interface SeededKey {
  id: string;
  name: string;
  prefix: string;
  expires_at: string | null;
  /** Only for a key the seed gave no secret: made here, shown this once. */
  secret?: string;
}
export interface SeededWebhook {
  id: string;
  url: string;
  /** Only for an endpoint the seed gave no secret: made here, shown this once. */
  secret?: string;
}
export interface SeedResult {
  orgs: {
    id: string;
    name: string;
    keys: SeededKey[];
    webhooks: SeededWebhook[];
    sandboxes: {id: string; name: string; status: string}[];
    people: {email: string; role: string}[];
  }[];
  /** Accepted, but worth saying (an endpoint host DNS could not resolve now). */
  warnings: string[];
}

/** Sandbox status → the desired state a sandbox in it has (as the state machine leaves it). */
const DESIRED_STATE: Record<string, string> = {
  running: 'running',
  stopped: 'stopped',
  error: 'running',
  standby: 'standby',
};

interface PlannedOrg {
  id: string;
  name: string;
  keys: {
    id: string;
    name: string;
    secret: string;
    generated: boolean;
    createdBy: string | null;
    expires: KeyExpiryChoice;
  }[];
  webhooks: {
    id: string;
    url: string;
    events: string[];
    description: string | null;
    secret: string;
    generated: boolean;
  }[];
  sandboxes: {id: string; name: string; status: string; lastError: string | null}[];
  people: {email: string; role: 'owner' | 'admin'}[];
}

type SeedOrg = NonNullable<Seed['orgs']>[number];

/** What the checks of one seed share: the problems found, the warnings, and the ids and secrets seen so far. */
interface Planning {
  ctx: EmulatorContext;
  source: string;
  /** Ids and secrets are checked against what the emulator holds (false when it is about to be replaced). */
  existing: boolean;
  problems: Problems;
  warnings: string[];
  orgIds: Set<string>;
  secretHashes: Set<string>;
  sandboxIds: Set<string>;
}

/** Checks a parsed seed document against every rule; throws StateFileError naming each problem. */
export async function planSeed(
  ctx: EmulatorContext,
  document: unknown,
  source: string,
  options: {againstEmpty?: boolean} = {},
): Promise<{orgs: PlannedOrg[]; warnings: string[]}> {
  refuseNewerFormat(document, source);
  // Shape problems first, in svc's words; the rules are then checked on everything well shaped, so a file's
  // every problem is reported at once.
  const shape = checkSeedShape(document);
  const seed = shape.usable as Partial<Seed> | null;
  const p: Planning = {
    ctx,
    source,
    // Replacing the state checks ids and secrets against the file alone: what the emulator holds is going.
    existing: !options.againstEmpty,
    problems: new Problems(),
    warnings: [],
    orgIds: new Set(),
    secretHashes: new Set(),
    sandboxIds: new Set(),
  };
  const orgs: PlannedOrg[] = [];
  for (const [o, org] of items(seed?.orgs)) orgs.push(await planOrg(p, `orgs[${o}]`, org));
  const all = [...shape.problems, ...p.problems.list.filter((problem) => !shape.reported.has(problem.field))];
  if (all.length > 0) throw new StateFileError(source, all);
  return {orgs, warnings: p.warnings};
}

function refuseNewerFormat(document: unknown, source: string): void {
  const version = (document as Record<string, unknown> | null)?.[SEED_FORMAT_KEY];
  if (typeof version === 'number' && version > SEED_FORMAT_VERSION) {
    throw new StateFileError(source, [
      {
        field: SEED_FORMAT_KEY,
        message: `is ${version}, a seed format newer than this svc reads (${SEED_FORMAT_VERSION}); upgrade svc to load it`,
      },
    ]);
  }
}

/** One org: its id and name, then each of its keys, endpoints, sandboxes and people. */
async function planOrg(p: Planning, at: string, org: SeedOrg): Promise<PlannedOrg> {
  let orgId = org.id;
  if (orgId === undefined) orgId = newId('org');
  else if (!isId('org', orgId)) {
    p.problems.add(`${at}.id`, `must be ${ID_PREFIXES.org}_ and ${ID_BODY_LENGTH} letters or digits`);
  } else if (p.orgIds.has(orgId)) p.problems.add(`${at}.id`, 'names an org listed earlier in the file');
  else if (p.existing && (await p.ctx.repos.orgs.get(orgId)))
    p.problems.add(`${at}.id`, 'is an org the emulator already has');
  p.orgIds.add(orgId);
  const name = text(p.problems, `${at}.name`, org.name, {max: MAX_NAME_LENGTH}) ?? '';
  const planned: PlannedOrg = {id: orgId, name, keys: [], webhooks: [], sandboxes: [], people: []};
  for (const [k, key] of items(org.keys)) planned.keys.push(await planKey(p, `${at}.keys[${k}]`, k, key));
  for (const [w, hook] of items(org.webhooks))
    planned.webhooks.push(await planWebhook(p, `${at}.webhooks[${w}]`, w, hook));
  for (const [s, sandbox] of items(org.sandboxes))
    planned.sandboxes.push(await planSandbox(p, `${at}.sandboxes[${s}]`, sandbox));
  planned.people = planPeople(p, at, org.people);
  return planned;
}

async function planKey(
  p: Planning,
  at: string,
  index: number,
  key: NonNullable<SeedOrg['keys']>[number],
): Promise<PlannedOrg['keys'][number]> {
  if (index === MAX_ACTIVE_KEYS_PER_ORG) {
    p.problems.add(
      at,
      `is active key ${index + 1}; an org may have at most ${MAX_ACTIVE_KEYS_PER_ORG} active keys`,
    );
  }
  const name = text(p.problems, `${at}.name`, key.name, {max: MAX_NAME_LENGTH}) ?? '';
  const expires =
    key.expires === undefined
      ? 'never'
      : oneOf<KeyExpiryChoice>(p.problems, `${at}.expires`, String(key.expires), KEY_EXPIRY_CHOICES);
  const createdBy = text(p.problems, `${at}.created_by`, key.created_by, {
    max: MAX_EMAIL_LENGTH,
    optional: true,
  });
  let secret = key.secret;
  if (secret === undefined) secret = newApiKeySecret();
  else if (!API_KEY_SECRET_PATTERN.test(secret)) {
    p.problems.add(
      `${at}.secret`,
      `must be ${API_KEY_SECRET_PREFIX} and ${API_KEY_SECRET_BODY_LENGTH} letters or digits (base62)`,
    );
  } else {
    const hash = hashSecret(secret);
    if (p.secretHashes.has(hash)) p.problems.add(`${at}.secret`, 'is the secret of a key listed earlier');
    else if (p.existing && (await p.ctx.repos.keys.findByHash(hash))) {
      p.problems.add(`${at}.secret`, 'is the secret of a key the emulator already has');
    }
    p.secretHashes.add(hash);
  }
  return {
    id: newId('apiKey'),
    name,
    secret,
    generated: key.secret === undefined,
    createdBy: createdBy ?? null,
    expires: expires ?? 'never',
  };
}

async function planWebhook(
  p: Planning,
  at: string,
  index: number,
  hook: NonNullable<SeedOrg['webhooks']>[number],
): Promise<PlannedOrg['webhooks'][number]> {
  if (index === MAX_ENDPOINTS_PER_ORG) {
    p.problems.add(
      at,
      `is endpoint ${index + 1}; an org may have at most ${MAX_ENDPOINTS_PER_ORG} webhook endpoints`,
    );
  }
  if (!p.ctx.vault.available) {
    p.problems.add(
      at,
      'cannot be loaded: this emulator runs without a vault key, which signing secrets need',
    );
  }
  const url = await planWebhookUrl(p, `${at}.url`, hook.url);
  const events = eventTypes(p.problems, `${at}.events`, hook.events) ?? [];
  const description = text(p.problems, `${at}.description`, hook.description, {
    max: MAX_ENDPOINT_DESCRIPTION_LENGTH,
    optional: true,
  });
  let secret = hook.secret;
  if (secret === undefined) secret = newSigningSecret();
  else if (!SIGNING_SECRET_PATTERN.test(secret))
    p.problems.add(`${at}.secret`, `must be ${SIGNING_SECRET_RULE}`);
  return {
    id: newId('webhookEndpoint'),
    url,
    events,
    description: description ?? null,
    secret,
    generated: hook.secret === undefined,
  };
}

/** An endpoint's URL, normalized, by the rules of registration (its host resolved unless local ones are allowed). */
async function planWebhookUrl(p: Planning, at: string, given: string | undefined): Promise<string> {
  if (given === undefined) {
    p.problems.add(at, 'is required');
    return '';
  }
  const check = checkEndpointUrl(given, {allowLocal: p.ctx.allowLocalEndpoints});
  if (!check.ok) {
    p.problems.add(at, check.reason.replace(/^url /, ''));
    return given;
  }
  if (!p.ctx.allowLocalEndpoints) {
    const host = await checkEndpointHost(check.url.hostname, p.ctx.lookup);
    if (!host.ok) p.problems.add(at, host.reason);
    else if (host.warning) p.warnings.push(`${p.source}: ${at}: ${host.warning}`);
  }
  return check.normalized;
}

async function planSandbox(
  p: Planning,
  at: string,
  sandbox: NonNullable<SeedOrg['sandboxes']>[number],
): Promise<PlannedOrg['sandboxes'][number]> {
  let id = sandbox.id;
  if (id === undefined) id = newId('sandbox');
  else if (!isId('sandbox', id)) {
    p.problems.add(`${at}.id`, `must be ${ID_PREFIXES.sandbox}_ and ${ID_BODY_LENGTH} letters or digits`);
  } else if (p.sandboxIds.has(id)) p.problems.add(`${at}.id`, 'names a sandbox listed earlier in the file');
  else if (p.existing && (await sandboxExists(p.ctx.db, id)))
    p.problems.add(`${at}.id`, 'is a sandbox the emulator already has');
  p.sandboxIds.add(id);
  const name = text(p.problems, `${at}.name`, sandbox.name, {max: MAX_NAME_LENGTH}) ?? '';
  const status = oneOf(p.problems, `${at}.status`, sandbox.status, SEEDABLE_SANDBOX_STATUSES) ?? 'running';
  const lastError = text(p.problems, `${at}.last_error`, sandbox.last_error, {
    max: MAX_ENDPOINT_DESCRIPTION_LENGTH,
    optional: true,
    multiline: true,
  });
  return {id, name, status, lastError: lastError ?? null};
}

/** An org's people: each email once, one owner at most. */
function planPeople(p: Planning, at: string, people: SeedOrg['people']): PlannedOrg['people'] {
  const planned: PlannedOrg['people'] = [];
  const emails = new Set<string>();
  let owners = 0;
  for (const [i, person] of items(people)) {
    const pat = `${at}.people[${i}]`;
    if (typeof person.email !== 'string') continue;
    const email = parseEmail(person.email);
    if (!email.ok) {
      p.problems.add(`${pat}.email`, email.message.replace(/\.$/, '').replace(/^Enter/, 'must be'));
      continue;
    }
    if (emails.has(email.email)) p.problems.add(`${pat}.email`, 'is listed twice in this org');
    emails.add(email.email);
    if (person.role === 'owner' && ++owners > 1)
      p.problems.add(`${pat}.role`, 'an org has one owner at most');
    planned.push({email: email.email, role: person.role});
  }
  return planned;
}

/** The items of a list with their places, past any the shape check took out. */
function items<T>(list: readonly (T | undefined)[] | undefined): [number, T][] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((item, i) =>
    item !== null && typeof item === 'object' ? [[i, item] as [number, T]] : [],
  );
}

async function sandboxExists(db: Queryable, id: string): Promise<boolean> {
  const {rows} = await db.query('SELECT 1 FROM sandboxes WHERE id = $1', [id]);
  return rows.length > 0;
}

/** Writes a checked seed in the caller's transaction; fires nothing. */
export async function writeSeed(
  ctx: EmulatorContext,
  tx: Queryable,
  plan: {orgs: PlannedOrg[]},
): Promise<Omit<SeedResult, 'warnings'>> {
  const now = ctx.clock.now();
  const result: SeedResult['orgs'] = [];
  for (const org of plan.orgs) {
    await tx.query('INSERT INTO orgs (id, name, created_at) VALUES ($1, $2, $3)', [org.id, org.name, now]);
    const keys: SeededKey[] = [];
    for (const key of org.keys) {
      const expiresAt =
        key.expires === 'never' ? null : new Date(now.getTime() + Number(key.expires) * 86_400_000);
      const prefix = key.secret.slice(0, API_KEY_PREFIX_LENGTH);
      await tx.query(
        `INSERT INTO api_keys (id, org_id, name, prefix, secret_hash, created_by, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [key.id, org.id, key.name, prefix, hashSecret(key.secret), key.createdBy, now, expiresAt],
      );
      keys.push({
        id: key.id,
        name: key.name,
        prefix,
        expires_at: expiresAt?.toISOString() ?? null,
        ...(key.generated ? {secret: key.secret} : {}),
      });
    }
    const webhooks: SeededWebhook[] = [];
    for (const hook of org.webhooks) {
      await tx.query(
        `INSERT INTO webhook_endpoints (id, org_id, url, events, description, secret_ciphertext, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [hook.id, org.id, hook.url, hook.events, hook.description, ctx.vault.encrypt(hook.secret), now],
      );
      webhooks.push({id: hook.id, url: hook.url, ...(hook.generated ? {secret: hook.secret} : {})});
    }
    for (const sandbox of org.sandboxes) {
      await tx.query(
        `INSERT INTO sandboxes (id, org_id, name, status, desired_state, last_error, expires_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, NULL, $7, $7)`,
        [
          sandbox.id,
          org.id,
          sandbox.name,
          sandbox.status,
          DESIRED_STATE[sandbox.status],
          sandbox.lastError,
          now,
        ],
      );
    }
    for (const person of org.people) {
      await tx.query(
        'INSERT INTO persons (id, email, created_at) VALUES ($1, $2, $3) ON CONFLICT (email) DO NOTHING',
        [newId('user'), person.email, now],
      );
      await tx.query(
        `INSERT INTO memberships (org_id, person_id, role, invited_by, created_at)
         SELECT $1, id, $2, NULL, $3 FROM persons WHERE email = $4`,
        [org.id, person.role, now, person.email],
      );
    }
    result.push({
      id: org.id,
      name: org.name,
      keys,
      webhooks,
      sandboxes: org.sandboxes.map((s) => ({id: s.id, name: s.name, status: s.status})),
      people: org.people,
    });
  }
  return {orgs: result};
}
