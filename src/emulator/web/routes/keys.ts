// API keys: list, create (the secret shown once), revoke after a confirmation.
import type {Context} from 'hono';
import {isId} from '../../../definitions.js';
import {OperationError} from '../../operation-error.js';
import {createKey, listKeys, revokeKey} from '../../ops/keys.js';
import {describeLinkCounts, linkCountsByKey} from '../../ops/links.js';
import type {SessionView} from '../db/sessions.js';
import {type KeyLinks, KeysPage, RevokeKeyPage} from '../views/keys.js';
import type {FormErrors, Viewer} from '../views/layout.js';
import {clip, formErrors, type RegisterRoutes, render, serverOrigin, statusOf} from '../page-kit.js';

export const registerKeyRoutes: RegisterRoutes = (app, kit) => {
  const {ctx, assets, signedIn, signedInPost, notFoundPage, takeFlash, putFlash} = kit;

  /** Each key's port sessions, desktop links and browser URLs, in words. */
  const keyLinks = async (orgId: string): Promise<Map<string, KeyLinks>> => {
    const described = new Map<string, KeyLinks>();
    for (const [keyId, counts] of await linkCountsByKey(ctx, orgId)) {
      described.set(keyId, {live: describeLinkCounts(counts.live), idle: describeLinkCounts(counts.idle)});
    }
    return described;
  };

  const keysPage = async (
    c: Context,
    s: {session: SessionView; viewer: Viewer},
    extra: {form?: {name: string; expires: string}; errors?: FormErrors} = {},
    status = 200,
  ) => {
    const flash = status === 200 ? takeFlash(s, 'keys') : undefined;
    return render(
      c,
      KeysPage({
        assets,
        viewer: s.viewer,
        keys: await listKeys(ctx, s.session.orgId),
        links: await keyLinks(s.session.orgId),
        created: flash?.kind === 'key' ? flash.created : undefined,
        notice: flash?.kind === 'notice' ? flash.text : undefined,
        apiUrl: serverOrigin(c),
        ...extra,
      }),
      status,
    );
  };

  app.get(
    '/account/keys',
    signedIn((c, s) => keysPage(c, s)),
  );

  app.post(
    '/account/keys',
    signedInPost(async (c, form, s) => {
      const name = clip(form.get('name'));
      const expires = clip(form.get('expires'));
      try {
        const {key, secret} = await createKey(ctx, {
          orgId: s.session.orgId,
          name,
          expires,
          createdBy: s.session.email,
        });
        putFlash(s, 'keys', {kind: 'key', created: {name: key.name, secret, expiresAt: key.expires_at}});
        return c.redirect('/account/keys', 303);
      } catch (err) {
        const errors = formErrors(err, ['name', 'expires']);
        return keysPage(c, s, {form: {name, expires}, errors}, statusOf(err));
      }
    }),
  );

  const keyOf = async (orgId: string, id: string) =>
    isId('apiKey', id) ? (await listKeys(ctx, orgId)).find((k) => k.id === id) : undefined;

  app.get(
    '/account/keys/:id/revoke',
    signedIn(async (c, s) => {
      const key = await keyOf(s.session.orgId, c.req.param('id') as string);
      if (!key) return notFoundPage(c, s.viewer, 'This org has no such API key.', '/account/keys');
      if (key.status !== 'active') return c.redirect('/account/keys', 303);
      const links = (await keyLinks(s.session.orgId)).get(key.id);
      return render(c, RevokeKeyPage({assets, viewer: s.viewer, keyRecord: key, links}));
    }),
  );

  app.post(
    '/account/keys/:id/revoke',
    signedInPost(async (c, _form, s) => {
      const id = c.req.param('id') as string;
      if (!isId('apiKey', id))
        return notFoundPage(c, s.viewer, 'This org has no such API key.', '/account/keys');
      try {
        // Counted before the revocation, which stops them.
        const live = (await keyLinks(s.session.orgId)).get(id)?.live;
        const key = await revokeKey(ctx, {orgId: s.session.orgId, keyId: id});
        const stopped = live ? `, and its ${live} stopped working` : '';
        putFlash(s, 'keys', {
          kind: 'notice',
          text: key.already_revoked
            ? `Key "${key.name}" (${key.prefix}…) was already revoked; nothing changed.`
            : `Key "${key.name}" (${key.prefix}…) is revoked: requests with it now get 401${stopped}.`,
        });
        return c.redirect('/account/keys', 303);
      } catch (err) {
        if (err instanceof OperationError && err.code === 'not_found')
          return notFoundPage(c, s.viewer, 'This org has no such API key.', '/account/keys');
        throw err;
      }
    }),
  );
};
