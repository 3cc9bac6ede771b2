/** @jsxImportSource hono/jsx */
// Webhook pages: the org's endpoints (a signing secret shown once) and deleting one. The add form is
// endpoint-form.tsx; deliveries and their attempts, deliveries.tsx.
import {MAX_ENDPOINTS_PER_ORG} from '../../../definitions.js';
import type {WebhookEndpoint} from '../../../schemas/index.js';
import {isRelayUrl} from '../../delivery/relay-registry.js';
import {
  type Assets,
  CsrfField,
  EventTags,
  Notice,
  Page,
  SecretShownOnce,
  Time,
  type Viewer,
} from './layout.js';

export interface NewEndpointSecret {
  endpointId: string;
  url: string;
  secret: string;
  /** Accepted, but worth saying (e.g. a host DNS cannot answer for right now). */
  warnings: string[];
}

export function WebhooksPage(p: {
  assets: Assets;
  viewer: Viewer;
  endpoints: WebhookEndpoint[];
  created?: NewEndpointSecret;
  notice?: string;
}) {
  const relays = p.endpoints.filter((e) => isRelayUrl(e.url)).length;
  const counted = p.endpoints.length - relays;
  const full = counted >= MAX_ENDPOINTS_PER_ORG;
  return (
    <Page title="Webhooks" assets={p.assets} viewer={p.viewer} section="webhooks">
      <h1>Webhook endpoints</h1>
      <p class="lead">
        The service posts sandbox events, signed, to these URLs and retries failed attempts for about a day.
      </p>
      {p.created ? <SigningSecretOnce created={p.created} /> : null}
      {p.notice ? <Notice kind="success">{p.notice}</Notice> : null}
      <div class="bar">
        <p class="muted">
          {counted} of {MAX_ENDPOINTS_PER_ORG} endpoints
          {relays > 0
            ? relays === 1
              ? ', and the svc listen relay, which does not count'
              : `, and ${relays} svc listen relays, which do not count`
            : ''}
          .
        </p>
        {full ? null : (
          <a class="button" href="/account/webhooks/new">
            Add endpoint
          </a>
        )}
      </div>
      {full ? (
        <Notice kind="warning">
          This org has {MAX_ENDPOINTS_PER_ORG} webhook endpoints, the most it can hold. Delete one you no
          longer need to add another; one endpoint can receive several event types.
        </Notice>
      ) : null}
      {p.endpoints.length === 0 ? (
        <p class="empty">No endpoints yet. Add one to receive sandbox events.</p>
      ) : (
        <ul class="endpoint-list">
          {p.endpoints.map((e) => (
            <li class="card" key={e.id}>
              <h2 class="endpoint-url">
                <a href={`/account/webhooks/${e.id}`}>{e.url}</a>
              </h2>
              {e.description ? <p>{e.description}</p> : null}
              <EventTags events={e.events} />
              <p class="muted">
                <code>{e.id}</code> · added <Time at={e.created_at} />
              </p>
              <p class="button-row">
                <a href={`/account/webhooks/${e.id}`}>
                  Deliveries<span class="sr-only"> to {e.url}</span>
                </a>
                <a href={`/account/webhooks/${e.id}/delete`} class="danger-link">
                  Delete<span class="sr-only"> {e.url}</span>
                </a>
              </p>
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}

function SigningSecretOnce({created}: {created: NewEndpointSecret}) {
  return (
    <SecretShownOnce
      heading="Endpoint added"
      lead={
        <p>
          <code>{created.url}</code>
        </p>
      }
      warning={
        <>
          <strong>Copy the signing secret now. It is shown only this once.</strong> Your receiver checks each
          request's <code>Svc-Signature</code> with it.
        </>
      }
      label="The signing secret"
      secret={created.secret}
    >
      {created.warnings.map((w) => (
        <p class="warning-text" key={w}>
          Note: {w}
        </p>
      ))}
    </SecretShownOnce>
  );
}

export function DeleteEndpointPage(p: {assets: Assets; viewer: Viewer; endpoint: WebhookEndpoint}) {
  return (
    <Page title="Delete endpoint" assets={p.assets} viewer={p.viewer} section="webhooks">
      <div class="narrow">
        <h1>Delete this endpoint?</h1>
        <p>
          <code class="wrap-anywhere">{p.endpoint.url}</code>
        </p>
        <Notice kind="warning">
          It stops receiving events at once, and its deliveries and their attempts are deleted with it. This
          cannot be undone.
          {isRelayUrl(p.endpoint.url)
            ? ' This is the svc listen relay: a running svc listen stops, and the next run makes a new relay with a new signing secret.'
            : ''}
        </Notice>
        <form method="post" action={`/account/webhooks/${p.endpoint.id}/delete`} class="button-row">
          <CsrfField token={p.viewer.csrf} />
          <button type="submit" class="danger" data-focus="">
            Delete endpoint
          </button>
          <a href="/account/webhooks" class="button secondary">
            Cancel
          </a>
        </form>
      </div>
    </Page>
  );
}
