/** @jsxImportSource hono/jsx */
// The form that adds a webhook endpoint, each rule beside its field.
import {EVENT_TYPES, MAX_ENDPOINT_DESCRIPTION_LENGTH, MAX_ENDPOINT_URL_LENGTH} from '../../../definitions.js';
import {
  type Assets,
  CsrfField,
  describedBy,
  ErrorSummary,
  FieldHelp,
  type FormErrors,
  Notice,
  Page,
  type Viewer,
} from './layout.js';

const EVENT_HELP: Record<(typeof EVENT_TYPES)[number], string> = {
  'sandbox.ready': 'a sandbox is running after create, resume or fork',
  'sandbox.stopped': 'a sandbox stopped (asked to, out of quota, or by itself)',
  'sandbox.error': 'a sandbox failed',
  'sandbox.expired': 'a sandbox passed its expiry and is being deleted',
};

export function NewEndpointPage(p: {
  assets: Assets;
  viewer: Viewer;
  allowLocal: boolean;
  form?: {url: string; events: string[]; description: string};
  errors?: FormErrors;
  wayOut?: boolean;
}) {
  const errors = p.errors ?? {};
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
        {p.wayOut ? <LocalWayOut svc={p.viewer.svc} /> : null}
        <form method="post" action="/account/webhooks" novalidate>
          <CsrfField token={p.viewer.csrf} />
          <UrlField allowLocal={p.allowLocal} value={p.form?.url ?? ''} error={errors.url} />
          <EventsField picked={new Set(p.form?.events ?? [])} error={errors.events} />
          <DescriptionField value={p.form?.description ?? ''} error={errors.description} />
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

/** Beside a refused local address: the ways to receive events on this machine. */
function LocalWayOut({svc}: {svc: string}) {
  return (
    <Notice kind="info">
      To receive events on this machine, run{' '}
      <code>{`${svc} listen --forward-to http://localhost:3000/webhooks`}</code> (it relays events to a local
      server, no public URL needed), or restart the emulator with <code>--allow-local-endpoints</code>.
    </Notice>
  );
}

function UrlField(p: {allowLocal: boolean; value: string; error?: string}) {
  return (
    <div class={`field${p.error ? ' has-error' : ''}`}>
      <label for="url">URL</label>
      <FieldHelp
        id="url"
        rule={
          p.allowLocal
            ? `At most ${MAX_ENDPOINT_URL_LENGTH.toLocaleString('en')} characters, no user name, password or #fragment. This emulator also accepts http:// and local addresses (--allow-local-endpoints).`
            : `https:// only, a public host, at most ${MAX_ENDPOINT_URL_LENGTH.toLocaleString('en')} characters, no user name, password or #fragment.`
        }
        error={p.error}
      />
      <input
        id="url"
        name="url"
        type="url"
        inputmode="url"
        autocomplete="off"
        spellcheck={false}
        placeholder="https://example.com/webhooks"
        value={p.value}
        required
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={describedBy('url', true, p.error)}
      />
    </div>
  );
}

function EventsField(p: {picked: ReadonlySet<string>; error?: string}) {
  return (
    <fieldset
      id="events"
      class={`field${p.error ? ' has-error' : ''}`}
      aria-describedby={describedBy('events', true, p.error)}
    >
      <legend>Events</legend>
      <FieldHelp id="events" rule="Pick at least one; the endpoint receives only these." error={p.error} />
      <div class="choices stacked">
        {EVENT_TYPES.map((t) => (
          <label class="choice" key={t}>
            <input type="checkbox" name="events" value={t} checked={p.picked.has(t)} />
            <span>
              <code>{t}</code> <span class="muted">{EVENT_HELP[t]}</span>
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function DescriptionField(p: {value: string; error?: string}) {
  return (
    <div class={`field${p.error ? ' has-error' : ''}`}>
      <label for="description">
        Description <span class="muted">(optional)</span>
      </label>
      <FieldHelp
        id="description"
        rule={`One line, at most ${MAX_ENDPOINT_DESCRIPTION_LENGTH} characters.`}
        error={p.error}
      />
      {/* One line, as every list shows it: a box that takes Enter would invite a line break the rules refuse. */}
      <input
        type="text"
        id="description"
        name="description"
        maxlength={MAX_ENDPOINT_DESCRIPTION_LENGTH}
        value={p.value}
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={describedBy('description', true, p.error)}
      />
    </div>
  );
}
