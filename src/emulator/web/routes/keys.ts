// API keys: list, create (the secret shown once), revoke after a confirmation; one named handler per route.
import type {Context} from 'hono';
import {isId} from '../../../definitions.js';
import {createKey, listKeys, revokeKey} from '../../ops/keys.js';
import {describeLinkCounts, linkCountsByKey} from '../../ops/links.js';
import {OperationError} from '../../operation-error.js';
import {clip, formErrors, statusOf} from '../kit/forms.js';
import {render} from '../kit/response.js';
import {type PageKit, type RegisterRoutes, type SignedIn, serverOrigin} from '../page-kit.js';
import {type KeyLinks, KeysPage, RevokeKeyPage} from '../views/keys.js';
import type {FormErrors} from '../views/layout.js';

export const registerKeyRoutes: RegisterRoutes = (app, kit) => {
  app.get(
    '/account/keys',
    kit.signedIn((c, s) => keysPage(kit, c, s)),
  );
  app.post(
    '/account/keys',
    kit.signedInPost((c, form, s) => createKeyPost(kit, c, form, s)),
  );
  app.get(
    '/account/keys/:id/revoke',
    kit.signedIn((c, s) => revokeKeyPage(kit, c, s)),
  );
  app.post(
    '/account/keys/:id/revoke',
    kit.signedInPost((c, _form, s) => revokeKeyPost(kit, c, s)),
  );
};

/** Each key's port sessions, desktop links and browser URLs, in words. */
async function keyLinks(kit: PageKit, orgId: string): Promise<Map<string, KeyLinks>> {
  const described = new Map<string, KeyLinks>();
  for (const [keyId, counts] of await linkCountsByKey(kit.ctx, orgId)) {
    described.set(keyId, {live: describeLinkCounts(counts.live), idle: describeLinkCounts(counts.idle)});
  }
  return described;
}

/** GET /account/keys: the org's keys, with a secret just made shown once; also the form again with problems. */
async function keysPage(
  kit: PageKit,
  c: Context,
  s: SignedIn,
  extra: {form?: {name: string; expires: string}; errors?: FormErrors} = {},
  status = 200,
): Promise<Response> {
  const flash = status === 200 ? kit.flashes.take(s, 'keys') : undefined;
  return render(
    c,
    KeysPage({
      assets: kit.assets,
      viewer: s.viewer,
      keys: await listKeys(kit.ctx, s.session.orgId),
      links: await keyLinks(kit, s.session.orgId),
      created: flash?.kind === 'key' ? flash.created : undefined,
      notice: flash?.kind === 'notice' ? flash.text : undefined,
      apiUrl: serverOrigin(c),
      ...extra,
    }),
    status,
  );
}

/** POST /account/keys: makes a key (its secret shown once on the next page). */
async function createKeyPost(
  kit: PageKit,
  c: Context,
  form: URLSearchParams,
  s: SignedIn,
): Promise<Response> {
  const name = clip(form.get('name'));
  const expires = clip(form.get('expires'));
  try {
    const {key, secret} = await createKey(kit.ctx, {
      orgId: s.session.orgId,
      name,
      expires,
      createdBy: s.session.email,
    });
    kit.flashes.put(s, 'keys', {kind: 'key', created: {name: key.name, secret, expiresAt: key.expires_at}});
    return c.redirect('/account/keys', 303);
  } catch (err) {
    const errors = formErrors(err, ['name', 'expires']);
    return keysPage(kit, c, s, {form: {name, expires}, errors}, statusOf(err));
  }
}

const noSuchKey = (kit: PageKit, c: Context, s: SignedIn) =>
  kit.notFoundPage(c, s.viewer, 'This org has no such API key.', '/account/keys');

/** GET /account/keys/:id/revoke: asks before revoking, saying which links stop with the key. */
async function revokeKeyPage(kit: PageKit, c: Context, s: SignedIn): Promise<Response> {
  const id = c.req.param('id') as string;
  const key = isId('apiKey', id)
    ? (await listKeys(kit.ctx, s.session.orgId)).find((k) => k.id === id)
    : undefined;
  if (!key) return noSuchKey(kit, c, s);
  if (key.status !== 'active') return c.redirect('/account/keys', 303);
  const links = (await keyLinks(kit, s.session.orgId)).get(key.id);
  return render(c, RevokeKeyPage({assets: kit.assets, viewer: s.viewer, keyRecord: key, links}));
}

/** POST /account/keys/:id/revoke */
async function revokeKeyPost(kit: PageKit, c: Context, s: SignedIn): Promise<Response> {
  const id = c.req.param('id') as string;
  if (!isId('apiKey', id)) return noSuchKey(kit, c, s);
  try {
    // Counted before the revocation, which stops them.
    const live = (await keyLinks(kit, s.session.orgId)).get(id)?.live;
    const key = await revokeKey(kit.ctx, {orgId: s.session.orgId, keyId: id});
    const stopped = live ? `, and its ${live} stopped working` : '';
    kit.flashes.put(s, 'keys', {
      kind: 'notice',
      text: key.already_revoked
        ? `Key "${key.name}" (${key.prefix}…) was already revoked; nothing changed.`
        : `Key "${key.name}" (${key.prefix}…) is revoked: requests with it now get 401${stopped}.`,
    });
    return c.redirect('/account/keys', 303);
  } catch (err) {
    if (err instanceof OperationError && err.code === 'not_found') return noSuchKey(kit, c, s);
    throw err;
  }
}
