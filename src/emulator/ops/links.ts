// Sandbox links: port sessions, desktop links and browser URLs made on behalf of a key, as a client holding that key
// would make them on the service. Whether a link works is decided on every request from its key and its sandbox
// (db/sandbox-links.ts), so revoking the key or stopping the sandbox stops it at once.
import {
  idShapeText,
  isId,
  MAX_SANDBOX_PORT,
  MIN_SANDBOX_PORT,
  SANDBOX_LINK_KINDS,
  SANDBOX_LINK_NOUNS,
  type SandboxLinkKind,
} from '../../definitions.js';
import type {CreatedSandboxLink, SandboxLink} from '../../schemas/index.js';
import {hashSecret} from '../hash.js';
import {type EmulatorContext, orgNow} from '../context.js';
import {keyStatus} from '../db/api-keys.js';
import {type LinkView, linkRecord, linkState, sandboxRuns} from '../db/sandbox-links.js';
import {newLinkToken} from '../ids.js';
import {newId} from '../../ids.js';
import {LINK_PATH_PREFIX} from '../net/link-host.js';
import {conflict, OperationError} from '../operation-error.js';
import {oneOf, Problems} from './validate.js';

export {LINK_PATH_PREFIX};

const unknownSandbox = () =>
  new OperationError('not_found', 'sandbox_id names no sandbox', [
    {field: 'sandbox_id', message: 'names no sandbox'},
  ]);

export interface CreateLinkInput {
  sandboxId: string;
  kind: unknown;
  keyId: unknown;
  port?: unknown;
  /** Where this emulator is reached (scheme, host and port): a desktop link's or browser URL's URL starts with it. */
  origin: string;
  /** The port this emulator listens on, which a port session may not forward to (it would come back in). */
  emulatorPort: number;
  /**
   * The origin a port session is served at, of its own (net/link-host.ts); undefined where browsers cannot reach
   * such names (an emulator listening on an address other than loopback), and then no port session is made.
   */
  portSessionOrigin?: (token: string) => string;
}

/** Opens a link onto a running sandbox for an active key of its org. Its URL (with the token) is in this answer only. */
export async function createLink(ctx: EmulatorContext, input: CreateLinkInput): Promise<CreatedSandboxLink> {
  if (!isId('sandbox', input.sandboxId)) throw unknownSandbox();
  const problems = new Problems();
  const kind = oneOf<SandboxLinkKind>(problems, 'kind', input.kind, SANDBOX_LINK_KINDS);
  const port = portOf(problems, kind, input.port);
  if (port === input.emulatorPort)
    problems.add('port', "is this emulator's own port: a port session forwards to your app's port");
  if (!isId('apiKey', input.keyId))
    problems.add('key_id', `must be an API key id (${idShapeText('apiKey')})`);
  problems.throwIfAny();
  const keyId = input.keyId as string;
  if (kind === 'port' && !input.portSessionOrigin) {
    throw conflict(
      'a port session is served at a name of its own under .localhost, which browsers reach on loopback only; ' +
        'start the emulator on 127.0.0.1 (the default), ::1 or 0.0.0.0 to make one',
    );
  }

  const now = ctx.clock.now();
  const token = newLinkToken();
  const link = {
    id: newId('sandboxLink'),
    orgId: '',
    sandboxId: input.sandboxId,
    keyId,
    kind: kind as SandboxLinkKind,
    port: port ?? null,
    createdAt: now,
    tokenHash: hashSecret(token),
  };
  await ctx.db.transaction(async (tx) => {
    const {sandbox, key} = await ctx.repos.links.lockParents(tx, {sandboxId: input.sandboxId, keyId});
    if (!sandbox) throw unknownSandbox();
    const keyProblems = new Problems();
    if (!key) keyProblems.add('key_id', 'names no API key');
    else if (key.orgId !== sandbox.orgId)
      keyProblems.add('key_id', "is a key of another org than the sandbox's");
    else {
      const status = keyStatus(key, now);
      if (status !== 'active') keyProblems.add('key_id', `is ${status}: only an active key opens a link`);
    }
    keyProblems.throwIfAny();
    if (!sandboxRuns(sandbox, now)) {
      throw conflict(
        `the sandbox is ${sandbox.status === 'running' ? 'expired' : sandbox.status}: links open onto a running sandbox only; resume it first`,
      );
    }
    link.orgId = sandbox.orgId;
    await ctx.repos.links.insert(tx, link);
  });
  return {
    id: link.id,
    kind: link.kind,
    sandbox_id: link.sandboxId,
    key_id: link.keyId,
    port: link.port,
    url: `${link.kind === 'port' && input.portSessionOrigin ? input.portSessionOrigin(token) : input.origin}${LINK_PATH_PREFIX}/${token}/`,
    created_at: now.toISOString(),
  };
}

function portOf(problems: Problems, kind: SandboxLinkKind | undefined, value: unknown): number | undefined {
  const given = value !== undefined && value !== null;
  if (kind !== undefined && kind !== 'port') {
    if (given) problems.add('port', 'is only for a port session (kind port)');
    return undefined;
  }
  if (!given) {
    if (kind === 'port') problems.add('port', 'is required for a port session');
    return undefined;
  }
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < MIN_SANDBOX_PORT ||
    value > MAX_SANDBOX_PORT
  ) {
    problems.add('port', `must be a whole number from ${MIN_SANDBOX_PORT} to ${MAX_SANDBOX_PORT}`);
    return undefined;
  }
  return value;
}

/** An org's links (or one sandbox's), newest first, each with its status now. */
export async function listLinks(
  ctx: EmulatorContext,
  filter: {orgId: string; sandboxId?: string},
): Promise<SandboxLink[]> {
  let links: LinkView[];
  if (filter.sandboxId !== undefined) {
    if (!isId('sandbox', filter.sandboxId) || !(await ctx.repos.links.sandboxExists(filter.sandboxId))) {
      throw unknownSandbox();
    }
    links = await ctx.repos.links.list({sandboxId: filter.sandboxId});
  } else {
    if (!isId('org', filter.orgId)) throw new OperationError('not_found', 'no org with this id');
    links = await ctx.repos.links.list({orgId: filter.orgId});
  }
  return links.map((l) => linkRecord(l, orgNow(ctx, l.orgId)));
}

/** What a request to a link's URL meets: the link and its state now, or undefined for any token that names none. */
export async function openLink(
  ctx: EmulatorContext,
  token: string,
): Promise<{link: LinkView; state: ReturnType<typeof linkState>} | undefined> {
  const link = await ctx.repos.links.findByTokenHash(hashSecret(token));
  if (!link) return undefined;
  return {link, state: linkState(link, orgNow(ctx, link.orgId))};
}

export type LinkCounts = Record<SandboxLinkKind, number>;

/**
 * For the account page: per key of the org, its links that work now (`live`) and those waiting on a stopped
 * sandbox (`idle`), which revoking the key would keep from ever working again.
 */
export async function linkCountsByKey(
  ctx: EmulatorContext,
  orgId: string,
): Promise<Map<string, {live: LinkCounts; idle: LinkCounts}>> {
  const now = orgNow(ctx, orgId);
  const counts = new Map<string, {live: LinkCounts; idle: LinkCounts}>();
  for (const link of await ctx.repos.links.list({orgId})) {
    const {status} = linkState(link, now);
    if (status === 'revoked' || link.sandbox.status === 'deleting') continue;
    let entry = counts.get(link.keyId);
    if (!entry) {
      entry = {live: emptyCounts(), idle: emptyCounts()};
      counts.set(link.keyId, entry);
    }
    entry[status === 'active' ? 'live' : 'idle'][link.kind]++;
  }
  return counts;
}

const emptyCounts = (): LinkCounts => ({port: 0, desktop: 0, browser: 0});

/** "port session", "desktop link" or "browser URL". */
export const linkNoun = (kind: SandboxLinkKind): string => SANDBOX_LINK_NOUNS[kind][0];

/** "2 port sessions and 1 desktop link"; undefined when there are none. */
export function describeLinkCounts(counts: LinkCounts | undefined): string | undefined {
  if (!counts) return undefined;
  const parts = SANDBOX_LINK_KINDS.filter((k) => counts[k] > 0).map(
    (k) => `${counts[k]} ${SANDBOX_LINK_NOUNS[k][counts[k] === 1 ? 0 : 1]}`,
  );
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}
