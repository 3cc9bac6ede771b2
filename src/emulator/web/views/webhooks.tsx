/** @jsxImportSource hono/jsx */
// Webhook pages: endpoints, the add form with each rule beside its field, deliveries and their attempts.
import {
  EVENT_TYPES,
  MAX_DELIVERIES_LISTED,
  MAX_DELIVERY_ATTEMPTS,
  MAX_ENDPOINT_DESCRIPTION_LENGTH,
  MAX_ENDPOINT_URL_LENGTH,
  MAX_ENDPOINTS_PER_ORG,
  RESPONSE_BODY_LIMIT_BYTES,
} from '../../../definitions.js';
import type {DeliveryAttempt} from '../../../schemas/emulator.js';
import type {Delivery, WebhookEndpoint} from '../../../schemas/index.js';
import {isRelayUrl} from '../../delivery/relay-registry.js';
import {
  type Assets,
  CsrfField,
  describedBy,
  ErrorSummary,
  FieldHelp,
  type FormErrors,
  Notice,
  Page,
  SecretShownOnce,
  Time,
  type Viewer,
} from './layout.js';

const EVENT_HELP: Record<(typeof EVENT_TYPES)[number], string> = {
  'sandbox.ready': 'a sandbox is running after create, resume or fork',
  'sandbox.stopped': 'a sandbox stopped (asked to, out of quota, or by itself)',
  'sandbox.error': 'a sandbox failed',
  'sandbox.expired': 'a sandbox passed its expiry and is being deleted',
};

/** One delivery as its page shows it; its attempts are the records every reader of attempts uses. */
export interface DeliveryView {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  createdAt: Date;
  nextAttemptAt: Date | null;
  eventBody: string;
  attemptList: DeliveryAttempt[];
}

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
              <p class="tags">
                {e.events.map((t) => (
                  <span class="tag" key={t}>
                    {t}
                  </span>
                ))}
              </p>
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

export function NewEndpointPage(p: {
  assets: Assets;
  viewer: Viewer;
  allowLocal: boolean;
  form?: {url: string; events: string[]; description: string};
  errors?: FormErrors;
  wayOut?: boolean;
}) {
  const errors = p.errors ?? {};
  const picked = new Set(p.form?.events ?? []);
  return (
    <Page title="Add endpoint" assets={p.assets} viewer={p.viewer} section="webhooks">
      <div class="narrow">
        <p>
          <a href="/account/webhooks">← Webhook endpoints</a>
        </p>
        <h1>Add an endpoint</h1>
        <ErrorSummary
          errors={errors}
          labels={{url: 'URL', events: 'Events', description: 'Description', form: ''}}
        />
        {p.wayOut ? (
          <Notice kind="info">
            To receive events on this machine, run{' '}
            <code>{`${p.viewer.svc} listen --forward-to http://localhost:3000/webhooks`}</code> (it relays
            events to a local server, no public URL needed), or restart the emulator with{' '}
            <code>--allow-local-endpoints</code>.
          </Notice>
        ) : null}
        <form method="post" action="/account/webhooks" novalidate>
          <CsrfField token={p.viewer.csrf} />
          <div class={`field${errors.url ? ' has-error' : ''}`}>
            <label for="url">URL</label>
            <FieldHelp
              id="url"
              rule={
                p.allowLocal
                  ? `At most ${MAX_ENDPOINT_URL_LENGTH.toLocaleString('en')} characters, no user name, password or #fragment. This emulator also accepts http:// and local addresses (--allow-local-endpoints).`
                  : `https:// only, a public host, at most ${MAX_ENDPOINT_URL_LENGTH.toLocaleString('en')} characters, no user name, password or #fragment.`
              }
              error={errors.url}
            />
            <input
              id="url"
              name="url"
              type="url"
              inputmode="url"
              autocomplete="off"
              spellcheck={false}
              placeholder="https://example.com/webhooks"
              value={p.form?.url ?? ''}
              required
              aria-invalid={errors.url ? 'true' : undefined}
              aria-describedby={describedBy('url', true, errors.url)}
            />
          </div>
          <fieldset
            id="events"
            class={`field${errors.events ? ' has-error' : ''}`}
            aria-describedby={describedBy('events', true, errors.events)}
          >
            <legend>Events</legend>
            <FieldHelp
              id="events"
              rule="Pick at least one; the endpoint receives only these."
              error={errors.events}
            />
            <div class="choices stacked">
              {EVENT_TYPES.map((t) => (
                <label class="choice" key={t}>
                  <input type="checkbox" name="events" value={t} checked={picked.has(t)} />
                  <span>
                    <code>{t}</code> <span class="muted">{EVENT_HELP[t]}</span>
                  </span>
                </label>
              ))}
            </div>
          </fieldset>
          <div class={`field${errors.description ? ' has-error' : ''}`}>
            <label for="description">
              Description <span class="muted">(optional)</span>
            </label>
            <FieldHelp
              id="description"
              rule={`One line, at most ${MAX_ENDPOINT_DESCRIPTION_LENGTH} characters.`}
              error={errors.description}
            />
            {/* One line, as every list shows it: a box that takes Enter would invite a line break the rules refuse. */}
            <input
              type="text"
              id="description"
              name="description"
              maxlength={MAX_ENDPOINT_DESCRIPTION_LENGTH}
              value={p.form?.description ?? ''}
              aria-invalid={errors.description ? 'true' : undefined}
              aria-describedby={describedBy('description', true, errors.description)}
            />
          </div>
          <p class="button-row">
            <button type="submit">Add endpoint</button>
            <a class="button secondary" href="/account/webhooks">
              Cancel
            </a>
          </p>
        </form>
      </div>
    </Page>
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

export function DeliveriesPage(p: {
  assets: Assets;
  viewer: Viewer;
  endpoint: WebhookEndpoint;
  deliveries: Delivery[];
}) {
  const e = p.endpoint;
  return (
    <Page title="Deliveries" assets={p.assets} viewer={p.viewer} section="webhooks">
      <p>
        <a href="/account/webhooks">← Webhook endpoints</a>
      </p>
      <h1 class="endpoint-url endpoint-title">{e.url}</h1>
      <p class="tags">
        {e.events.map((t) => (
          <span class="tag" key={t}>
            {t}
          </span>
        ))}
      </p>
      {e.description ? <p>{e.description}</p> : null}
      <div class="bar">
        <h2>Deliveries</h2>
        <p class="button-row">
          {/* Shown by the script, which then keeps the list current; without it, Refresh does the same. */}
          <label class="choice live-toggle" hidden>
            <input type="checkbox" data-live-toggle="" checked /> Update every 5 seconds
          </label>
          <a class="button secondary" href={`/account/webhooks/${e.id}`}>
            Refresh
          </a>
        </p>
      </div>
      <p class="muted">The {MAX_DELIVERIES_LISTED} most recent of the last 30 days, newest first.</p>
      <p class="sr-only" aria-live="polite" data-live-status="" />
      <div id="deliveries" data-live="5000">
        {p.deliveries.length === 0 ? (
          <p class="empty">
            No deliveries yet. Emit an event with <code>{`${p.viewer.svc} trigger sandbox.ready`}</code>, then
            refresh.
          </p>
        ) : (
          <table class="table">
            <caption class="sr-only">Deliveries to this endpoint, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Created</th>
                <th scope="col">Next attempt</th>
              </tr>
            </thead>
            <tbody>
              {p.deliveries.map((d) => (
                <tr key={d.id}>
                  <td data-label="Event">
                    <a href={`/account/webhooks/${e.id}/deliveries/${d.id}`}>
                      <code>{d.event_type}</code>
                      <span class="sr-only"> delivery {d.id}</span>
                    </a>
                  </td>
                  <td data-label="Status">
                    <span class={`badge badge-${d.status}`}>{d.status}</span>
                  </td>
                  <td data-label="Attempts">
                    <span>
                      <AttemptCount attempts={d.attempts} />
                    </span>
                  </td>
                  <td data-label="Last answer">{d.last_status_code ?? <span class="muted">—</span>}</td>
                  <td data-label="Created">
                    <Time at={d.created_at} seconds />
                  </td>
                  <td data-label="Next attempt">
                    <Time at={d.next_attempt_at} empty="—" seconds />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </Page>
  );
}

/** The page shows as much of an answer as is kept, as the CLI and the TUI do. */
const BODY_KEPT_KB = RESPONSE_BODY_LIMIT_BYTES / 1024;

export function DeliveryPage(p: {
  assets: Assets;
  viewer: Viewer;
  endpoint: WebhookEndpoint;
  delivery: DeliveryView;
  notice?: string;
}) {
  const d = p.delivery;
  return (
    <Page title="Delivery" assets={p.assets} viewer={p.viewer} section="webhooks">
      <p>
        <a href={`/account/webhooks/${p.endpoint.id}`}>← Deliveries to {p.endpoint.url}</a>
      </p>
      <h1>
        <code>{d.eventType}</code> delivery
      </h1>
      {p.notice ? <Notice kind="success">{p.notice}</Notice> : null}
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <span class={`badge badge-${d.status}`}>{d.status}</span>
          </dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd>
            <AttemptCount attempts={d.attempts} />
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <Time at={d.createdAt} seconds />
          </dd>
        </div>
        <div>
          <dt>Next attempt</dt>
          <dd>
            <Time at={d.nextAttemptAt} empty="none" seconds />
          </dd>
        </div>
        <div>
          <dt>Delivery</dt>
          <dd>
            <code>{d.id}</code>
          </dd>
        </div>
        <div>
          <dt>Event</dt>
          <dd>
            <code>{d.eventId}</code>
          </dd>
        </div>
      </dl>
      <form
        method="post"
        action={`/account/webhooks/${p.endpoint.id}/deliveries/${d.id}/resend`}
        class="button-row"
      >
        <CsrfField token={p.viewer.csrf} />
        <button type="submit" class="secondary">
          Resend now
        </button>
        <span class="muted">
          A new attempt with the same body and a fresh signature, outside the retry schedule.
        </span>
      </form>
      <h2>Attempts</h2>
      {d.attemptList.length === 0 ? (
        <p class="empty">No attempt yet: the first one is on its way.</p>
      ) : (
        <ol class="attempts">
          {d.attemptList.map((a) => (
            <li class="card" key={a.attempt}>
              <p class="attempt-head">
                <strong>Attempt {a.attempt}</strong>
                {a.status_code != null ? (
                  <span
                    class={`badge ${a.status_code >= 200 && a.status_code < 300 ? 'badge-succeeded' : 'badge-failed'}`}
                  >
                    HTTP {a.status_code}
                  </span>
                ) : (
                  <span class="badge badge-failed">network error</span>
                )}
                {a.trigger === 'manual' ? <span class="badge">resent</span> : null}
                {a.trigger === 'chaos' ? <span class="badge">chaos</span> : null}
              </p>
              <p class="muted">
                <Time at={new Date(a.started_at)} seconds /> · {a.duration_ms} ms
              </p>
              {a.error ? <p class="field-error">{a.error}</p> : null}
              {a.response_body ? (
                <details>
                  <summary>Response body (the first {BODY_KEPT_KB} kB, as kept)</summary>
                  <pre class="code">{a.response_body}</pre>
                </details>
              ) : (
                <p class="muted">Empty response body.</p>
              )}
            </li>
          ))}
        </ol>
      )}
      <h2>Event body</h2>
      <pre class="code" tabindex={0}>
        {prettyJson(d.eventBody)}
      </pre>
    </Page>
  );
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * "3 of 9" while the schedule runs; past it (resends add attempts of their own) the count alone, with why:
 * never "10 of 9".
 */
function AttemptCount({attempts}: {attempts: number}) {
  if (attempts <= MAX_DELIVERY_ATTEMPTS) {
    return (
      <>
        {attempts} <span class="muted">of {MAX_DELIVERY_ATTEMPTS}</span>
      </>
    );
  }
  return (
    <>
      {attempts}{' '}
      <span class="muted">
        ({MAX_DELIVERY_ATTEMPTS} scheduled, {attempts - MAX_DELIVERY_ATTEMPTS} resent)
      </span>
    </>
  );
}
