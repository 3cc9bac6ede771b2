/** @jsxImportSource hono/jsx */
// The API keys page: the list, the create form, the secret shown once, and the revoke confirmation.
import {
  DEFAULT_KEY_EXPIRY,
  KEY_EXPIRY_CHOICES,
  MAX_ACTIVE_KEYS_PER_ORG,
  MAX_NAME_LENGTH,
} from '../../../definitions.js';
import type {ApiKey} from '../../../schemas/index.js';
import {
  type Assets,
  CsrfField,
  describedBy,
  ErrorSummary,
  FieldHelp,
  type FormErrors,
  Name,
  Notice,
  Page,
  SecretShownOnce,
  Time,
  type Viewer,
} from './layout.js';

const EXPIRY_LABELS: Record<(typeof KEY_EXPIRY_CHOICES)[number], string> = {
  '30': '30 days',
  '90': '90 days',
  '365': '365 days',
  never: 'Never',
};

/** What each key has opened onto sandboxes: links that work now, and links waiting on a stopped sandbox. */
export interface KeyLinks {
  /** "2 port sessions and 1 desktop link", or undefined. */
  live?: string;
  idle?: string;
}

export interface NewSecret {
  name: string;
  secret: string;
  expiresAt: string | null;
}

export function KeysPage(p: {
  assets: Assets;
  viewer: Viewer;
  keys: ApiKey[];
  links: ReadonlyMap<string, KeyLinks>;
  created?: NewSecret;
  notice?: string;
  form?: {name: string; expires: string};
  errors?: FormErrors;
  apiUrl: string;
}) {
  const active = p.keys.filter((k) => k.status === 'active').length;
  return (
    <Page title="API keys" assets={p.assets} viewer={p.viewer} section="keys">
      <h1>API keys</h1>
      <p class="lead">
        Every call to the API carries a key of this org. Use one key per machine, CI system or agent, and let
        keys expire where you can.
      </p>
      {p.created ? <SecretOnce created={p.created} apiUrl={p.apiUrl} svc={p.viewer.svc} /> : null}
      {p.notice ? <Notice kind="success">{p.notice}</Notice> : null}

      <CreateKeyPanel active={active} csrf={p.viewer.csrf} form={p.form} errors={p.errors ?? {}} />

      <h2>Keys</h2>
      <KeysTable keys={p.keys} links={p.links} />
    </Page>
  );
}

/** The form that makes a key, or why none can be made now. */
function CreateKeyPanel(p: {
  active: number;
  csrf: string;
  form?: {name: string; expires: string};
  errors: FormErrors;
}) {
  const {active, errors} = p;
  const full = active >= MAX_ACTIVE_KEYS_PER_ORG;
  const expires = p.form?.expires ?? DEFAULT_KEY_EXPIRY;
  return (
    <section class="panel" aria-labelledby="create-title">
      <h2 id="create-title">Create a key</h2>
      <p class="muted" id="key-count">
        {active} of {MAX_ACTIVE_KEYS_PER_ORG} active keys in use. Revoked and expired keys do not count.
      </p>
      {full ? (
        <Notice kind="warning">
          This org has {MAX_ACTIVE_KEYS_PER_ORG} active keys, the most it can hold. Revoke a key you no longer
          use to make room for a new one.
        </Notice>
      ) : (
        <>
          <ErrorSummary errors={errors} labels={{name: 'Name', expires: 'Expires', form: ''}} />
          <form method="post" action="/account/keys" novalidate class="form-grid">
            <CsrfField token={p.csrf} />
            <div class={`field${errors.name ? ' has-error' : ''}`}>
              <label for="name">Name</label>
              <FieldHelp
                id="name"
                rule={`Where the key will live, e.g. "laptop" or "ci". At most ${MAX_NAME_LENGTH} characters.`}
                error={errors.name}
              />
              <input
                id="name"
                name="name"
                type="text"
                autocomplete="off"
                maxlength={MAX_NAME_LENGTH}
                value={p.form?.name ?? ''}
                required
                aria-invalid={errors.name ? 'true' : undefined}
                aria-describedby={describedBy('name', true, errors.name)}
              />
            </div>
            <fieldset
              class={`field${errors.expires ? ' has-error' : ''}`}
              id="expires"
              aria-describedby={describedBy('expires', true, errors.expires)}
            >
              <legend>Expires</legend>
              <FieldHelp
                id="expires"
                rule="After this many days the key stops working (401)."
                error={errors.expires}
              />
              <div class="choices">
                {KEY_EXPIRY_CHOICES.map((choice) => (
                  <label class="choice" key={choice}>
                    <input type="radio" name="expires" value={choice} checked={expires === choice} />{' '}
                    {EXPIRY_LABELS[choice]}
                  </label>
                ))}
              </div>
            </fieldset>
            <div>
              <button type="submit">Create key</button>
            </div>
          </form>
        </>
      )}
    </section>
  );
}

/** The org's keys, newest first, each with its links and a way to revoke it. */
function KeysTable(p: {keys: ApiKey[]; links: ReadonlyMap<string, KeyLinks>}) {
  return (
    <>
      {p.keys.length === 0 ? (
        <p class="empty">No keys yet.</p>
      ) : (
        <table class="table">
          <caption class="sr-only">API keys of this org, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Created by</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">Status</th>
              <th scope="col">Live links</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {p.keys.map((k) => (
              <tr key={k.id}>
                <td data-label="Name" class="strong">
                  <Name text={k.name} />
                </td>
                <td data-label="Prefix">
                  <code>{k.prefix}…</code>
                </td>
                <td data-label="Created by">{k.created_by ?? <span class="muted">—</span>}</td>
                <td data-label="Created">
                  <Time at={k.created_at} />
                </td>
                <td data-label="Last used">
                  <Time at={k.last_used_at} />
                </td>
                <td data-label="Expires">
                  <Time at={k.expires_at} />
                </td>
                <td data-label="Status">
                  <span class={`badge badge-${k.status}`}>{k.status}</span>
                </td>
                <td data-label="Live links">
                  {(k.status === 'active' && p.links.get(k.id)?.live) || <span class="muted">—</span>}
                </td>
                <td data-label="Actions" class="actions">
                  {k.status === 'active' ? (
                    <a href={`/account/keys/${k.id}/revoke`} class="danger-link">
                      Revoke<span class="sr-only"> {k.name}</span>
                    </a>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function SecretOnce({created, apiUrl, svc}: {created: NewSecret; apiUrl: string; svc: string}) {
  return (
    <SecretShownOnce
      heading={<>Key "{created.name}" created</>}
      warning={
        <>
          <strong>Copy this key now. It is shown only this once:</strong> only a hash is kept, so it cannot be
          shown again. If you lose it, create a new key and revoke this one.
        </>
      }
      label="The new API key"
      secret={created.secret}
    >
      <p class="muted">
        Expires: <Time at={created.expiresAt} />. Try it:{' '}
        <code>{`SVC_API_URL=${apiUrl} SVC_API_KEY=<the key> ${svc} org`}</code>
      </p>
    </SecretShownOnce>
  );
}

export function RevokeKeyPage(p: {assets: Assets; viewer: Viewer; keyRecord: ApiKey; links?: KeyLinks}) {
  const k = p.keyRecord;
  return (
    <Page title="Revoke key" assets={p.assets} viewer={p.viewer} section="keys">
      <div class="narrow">
        <h1>Revoke key "{k.name}"?</h1>
        <p>
          Key <code>{k.prefix}…</code>, created <Time at={k.created_at} />
          {k.created_by ? ` by ${k.created_by}` : ''}, last used <Time at={k.last_used_at} />.
        </p>
        <Notice kind="warning">
          <p>Anything still using this key gets 401 on its very next request. This cannot be undone.</p>
          {p.links?.live ? (
            <p>
              Revoking {k.name} also stops {p.links.live}: their next request is refused.
            </p>
          ) : null}
          {p.links?.idle ? (
            <p>It also keeps {p.links.idle} of stopped sandboxes from working again when they resume.</p>
          ) : null}
        </Notice>
        <form method="post" action={`/account/keys/${k.id}/revoke`} class="button-row">
          <CsrfField token={p.viewer.csrf} />
          <button type="submit" class="danger" data-focus="">
            Revoke key
          </button>
          <a href="/account/keys" class="button secondary">
            Cancel
          </a>
        </form>
      </div>
    </Page>
  );
}
