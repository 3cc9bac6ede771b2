/** @jsxImportSource hono/jsx */
// An endpoint's deliveries, and one delivery with its attempts, a resend button and its event.
import {
  MAX_DELIVERIES_LISTED,
  MAX_DELIVERY_ATTEMPTS,
  RESPONSE_BODY_LIMIT_BYTES,
} from '../../../definitions.js';
import type {DeliveryAttempt} from '../../../schemas/emulator.js';
import type {Delivery, WebhookEndpoint} from '../../../schemas/index.js';
import {type Assets, CsrfField, EventTags, Notice, Page, Time, type Viewer} from './layout.js';

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
      <EventTags events={e.events} />
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
      <DeliveryFacts delivery={d} />
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
      <AttemptList attempts={d.attemptList} />
      <h2>Event body</h2>
      <pre class="code" tabindex={0}>
        {prettyJson(d.eventBody)}
      </pre>
    </Page>
  );
}

/** Where the delivery stands, and its ids. */
function DeliveryFacts({delivery: d}: {delivery: DeliveryView}) {
  return (
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
  );
}

/** Each attempt, oldest first: its answer, when and how long, and the response body as kept. */
function AttemptList({attempts}: {attempts: DeliveryAttempt[]}) {
  if (attempts.length === 0) return <p class="empty">No attempt yet: the first one is on its way.</p>;
  return (
    <ol class="attempts">
      {attempts.map((a) => (
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
