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
  isId,
  KEY_EXPIRY_CHOICES,
  type KeyExpiryChoice,
  MAX_ACTIVE_KEYS_PER_ORG,
  MAX_EMAIL_LENGTH,
  MAX_ENDPOINT_DESCRIPTION_LENGTH,
  MAX_ENDPOINTS_PER_ORG,
  MAX_NAME_LENGTH,
  SIGNING_SECRET_PATTERN,
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
import {newApiKeySecret, newId, newSigningSecret} from '../ids.js';
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

/** Checks a parsed seed document against every rule; throws StateFileError naming each problem. */
export async function planSeed(
  ctx: EmulatorContext,
  document: unknown,
  source: string,
  options: {againstEmpty?: boolean} = {},
): Promise<{orgs: PlannedOrg[]; warnings: string[]}> {
  // Replacing the state checks ids and secrets against the file alone: what the emulator holds is going.
  const existing = !options.againstEmpty;
  const version = (document as Record<string, unknown> | null)?.[SEED_FORMAT_KEY];
  if (typeof version === 'number' && version > SEED_FORMAT_VERSION) {
    throw new StateFileError(source, [
      {
        field: SEED_FORMAT_KEY,
        message: `is ${version}, a seed format newer than this svc reads (${SEED_FORMAT_VERSION}); upgrade svc to load it`,
      },
    ]);
  }
  // Shape problems first, in svc's words; the rules are then checked on everything well shaped, so a file's
  // every problem is reported at once.
  const shape = checkSeedShape(document);
  const seed = shape.usable as Partial<Seed> | null;
  const problems = new Problems();
  const warnings: string[] = [];
  const orgIds = new Set<string>();
  const secretHashes = new Set<string>();
  const sandboxIds = new Set<string>();
  const orgs: PlannedOrg[] = [];

  for (const [o, org] of items(seed?.orgs)) {
    const at = `orgs[${o}]`;
    let orgId = org.id;
    if (orgId === undefined) orgId = newId('org');
    else if (!isId('org', orgId)) {
      problems.add(`${at}.id`, `must be org_ and ${ID_BODY_LENGTH} letters or digits`);
    } else if (orgIds.has(orgId)) problems.add(`${at}.id`, 'names an org listed earlier in the file');
    else if (existing && (await ctx.repos.orgs.get(orgId)))
      problems.add(`${at}.id`, 'is an org the emulator already has');
    orgIds.add(orgId);
    const name = text(problems, `${at}.name`, org.name, {max: MAX_NAME_LENGTH}) ?? '';
    const planned: PlannedOrg = {id: orgId, name, keys: [], webhooks: [], sandboxes: [], people: []};

    const keys = org.keys ?? [];
    for (const [k, key] of items(keys)) {
      const kat = `${at}.keys[${k}]`;
      if (k === MAX_ACTIVE_KEYS_PER_ORG) {
        problems.add(
          kat,
          `is active key ${k + 1}; an org may have at most ${MAX_ACTIVE_KEYS_PER_ORG} active keys`,
        );
      }
      const keyName = text(problems, `${kat}.name`, key.name, {max: MAX_NAME_LENGTH}) ?? '';
      const expires =
        key.expires === undefined
          ? 'never'
          : oneOf<KeyExpiryChoice>(problems, `${kat}.expires`, String(key.expires), KEY_EXPIRY_CHOICES);
      const createdBy = text(problems, `${kat}.created_by`, key.created_by, {
        max: MAX_EMAIL_LENGTH,
        optional: true,
      });
      let secret = key.secret;
      if (secret === undefined) secret = newApiKeySecret();
      else if (!API_KEY_SECRET_PATTERN.test(secret)) {
        problems.add(
          `${kat}.secret`,
          `must be ${API_KEY_SECRET_PREFIX} and ${API_KEY_SECRET_BODY_LENGTH} letters or digits (base62)`,
        );
      } else {
        const hash = hashSecret(secret);
        if (secretHashes.has(hash)) problems.add(`${kat}.secret`, 'is the secret of a key listed earlier');
        else if (existing && (await ctx.repos.keys.findByHash(hash))) {
          problems.add(`${kat}.secret`, 'is the secret of a key the emulator already has');
        }
        secretHashes.add(hash);
      }
      planned.keys.push({
        id: newId('key'),
        name: keyName,
        secret,
        generated: key.secret === undefined,
        createdBy: createdBy ?? null,
        expires: expires ?? 'never',
      });
    }

    for (const [w, hook] of items(org.webhooks)) {
      const wat = `${at}.webhooks[${w}]`;
      if (w === MAX_ENDPOINTS_PER_ORG) {
        problems.add(
          wat,
          `is endpoint ${w + 1}; an org may have at most ${MAX_ENDPOINTS_PER_ORG} webhook endpoints`,
        );
      }
      if (!ctx.vault.available) {
        problems.add(
          wat,
          'cannot be loaded: this emulator runs without a vault key, which signing secrets need',
        );
      }
      const check = checkEndpointUrl(hook.url ?? '', {allowLocal: ctx.allowLocalEndpoints});
      let url = hook.url ?? '';
      if (hook.url === undefined) problems.add(`${wat}.url`, 'is required');
      else if (!check.ok) problems.add(`${wat}.url`, check.reason.replace(/^url /, ''));
      else {
        url = check.normalized;
        if (!ctx.allowLocalEndpoints) {
          const host = await checkEndpointHost(check.url.hostname, ctx.lookup);
          if (!host.ok) problems.add(`${wat}.url`, host.reason);
          else if (host.warning) warnings.push(`${source}: ${wat}.url: ${host.warning}`);
        }
      }
      const events = eventTypes(problems, `${wat}.events`, hook.events) ?? [];
      const description = text(problems, `${wat}.description`, hook.description, {
        max: MAX_ENDPOINT_DESCRIPTION_LENGTH,
        optional: true,
      });
      let secret = hook.secret;
      if (secret === undefined) secret = newSigningSecret();
      else if (!SIGNING_SECRET_PATTERN.test(secret)) {
        problems.add(
          `${wat}.secret`,
          'must be whsec_ and the base64 of 32 bytes (44 characters, ending in =)',
        );
      }
      planned.webhooks.push({
        id: newId('we'),
        url,
        events,
        description: description ?? null,
        secret,
        generated: hook.secret === undefined,
      });
    }

    for (const [s, sandbox] of items(org.sandboxes)) {
      const sat = `${at}.sandboxes[${s}]`;
      let id = sandbox.id;
      if (id === undefined) id = newId('sbx');
      else if (!isId('sandbox', id)) {
        problems.add(`${sat}.id`, `must be sbx_ and ${ID_BODY_LENGTH} letters or digits`);
      } else if (sandboxIds.has(id)) problems.add(`${sat}.id`, 'names a sandbox listed earlier in the file');
      else if (existing && (await sandboxExists(ctx.db, id)))
        problems.add(`${sat}.id`, 'is a sandbox the emulator already has');
      sandboxIds.add(id);
      const sandboxName = text(problems, `${sat}.name`, sandbox.name, {max: MAX_NAME_LENGTH}) ?? '';
      const status = oneOf(problems, `${sat}.status`, sandbox.status, SEEDABLE_SANDBOX_STATUSES) ?? 'running';
      const lastError = text(problems, `${sat}.last_error`, sandbox.last_error, {
        max: MAX_ENDPOINT_DESCRIPTION_LENGTH,
        optional: true,
        multiline: true,
      });
      planned.sandboxes.push({id, name: sandboxName, status, lastError: lastError ?? null});
    }

    const emails = new Set<string>();
    let owners = 0;
    for (const [p, person] of items(org.people)) {
      const pat = `${at}.people[${p}]`;
      if (typeof person.email !== 'string') continue;
      const email = parseEmail(person.email);
      if (!email.ok) {
        problems.add(`${pat}.email`, email.message.replace(/\.$/, '').replace(/^Enter/, 'must be'));
        continue;
      }
      if (emails.has(email.email)) problems.add(`${pat}.email`, 'is listed twice in this org');
      emails.add(email.email);
      if (person.role === 'owner' && ++owners > 1)
        problems.add(`${pat}.role`, 'an org has one owner at most');
      planned.people.push({email: email.email, role: person.role});
    }
    orgs.push(planned);
  }
  const all = [...shape.problems, ...problems.list.filter((p) => !shape.reported.has(p.field))];
  if (all.length > 0) throw new StateFileError(source, all);
  return {orgs, warnings};
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
        [newId('usr'), person.email, now],
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
