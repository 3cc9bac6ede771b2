/** @jsxImportSource hono/jsx */
// The frame of every account page and the small pieces forms share: fields with their rule and error, notices, times.
import type {Child} from 'hono/jsx';

export interface Assets {
  css: string;
  js: string;
}

export interface Viewer {
  email: string;
  orgName: string;
  orgId: string;
  role: string;
  csrf: string;
  /** How the CLI is spelled in the commands the page suggests (as the emulator was started: see EmulatorContext). */
  svc: string;
  orgs?: {orgId: string; orgName: string}[];
}

export type Section = 'home' | 'keys' | 'webhooks' | 'team' | 'mailbox' | 'none';

export interface PageProps {
  title: string;
  assets: Assets;
  viewer?: Viewer;
  section?: Section;
  children?: Child;
}

const NAV: {section: Section; href: string; label: string}[] = [
  {section: 'home', href: '/account', label: 'Overview'},
  {section: 'keys', href: '/account/keys', label: 'API keys'},
  {section: 'webhooks', href: '/account/webhooks', label: 'Webhooks'},
  {section: 'team', href: '/account/team', label: 'Team'},
];

export function Page({title, assets, viewer, section = 'none', children}: PageProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · svc account`}</title>
        <link rel="icon" href="/favicon.ico" type="image/svg+xml" />
        <link rel="stylesheet" href={assets.css} />
        <script src={assets.js} defer />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <div class="wrap top-row">
            <a class="brand" href="/account">
              svc <span class="muted">account</span>
            </a>
            {viewer ? (
              <div class="who">
                <span class="who-email">{viewer.email}</span>
                <form method="post" action="/account/logout" class="inline">
                  <input type="hidden" name="csrf" value={viewer.csrf} />
                  <button type="submit" class="link-button">
                    Sign out
                  </button>
                </form>
              </div>
            ) : (
              <a href="/account/mailbox">Mailbox</a>
            )}
          </div>
          {viewer ? (
            <nav class="wrap tabs" aria-label="Account">
              {NAV.map((n) => (
                <a key={n.href} href={n.href} aria-current={n.section === section ? 'page' : undefined}>
                  {n.label}
                </a>
              ))}
            </nav>
          ) : null}
        </header>
        <main id="main" class="wrap" tabindex={-1}>
          {viewer ? <OrgLine viewer={viewer} /> : null}
          {children}
        </main>
        <footer class="wrap foot muted">
          This is the svc emulator: everything here stays on this machine.{' '}
          <a href="/account/mailbox">Mailbox</a>
        </footer>
      </body>
    </html>
  );
}

function OrgLine({viewer}: {viewer: Viewer}) {
  const orgs = viewer.orgs ?? [];
  return (
    <div class="org-line">
      <span>
        <span class="muted">Org</span>{' '}
        <strong>
          <Name text={viewer.orgName} />
        </strong>{' '}
        <code class="muted">{viewer.orgId}</code> <span class="badge">{viewer.role}</span>
      </span>
      {orgs.length > 1 ? (
        <form method="post" action="/account/org" class="inline org-switch">
          <input type="hidden" name="csrf" value={viewer.csrf} />
          <label for="switch-org">Switch org</label>
          <select id="switch-org" name="org_id">
            {orgs.map((o) => (
              <option key={o.orgId} value={o.orgId} selected={o.orgId === viewer.orgId}>
                {o.orgName}
              </option>
            ))}
          </select>
          <button type="submit" class="secondary">
            Switch
          </button>
        </form>
      ) : null}
    </div>
  );
}

/** The longest word a name keeps whole; a longer one may break anywhere rather than run off a phone's screen. */
const WHOLE_WORD_MAX = 24;

/**
 * A name (a key's, an org's, an address) that breaks only between its words: `agent-7` never reads `agent-` above
 * `7`, as browsers otherwise break after a hyphen when a column is narrow.
 */
export function Name({text}: {text: string}) {
  return (
    <>
      {text.split(/(\s+)/).map((part, i) =>
        part === '' || /\s/.test(part) || Array.from(part).length > WHOLE_WORD_MAX ? (
          part
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: the words of one text, in order
          <span class="whole" key={i}>
            {part}
          </span>
        ),
      )}
    </>
  );
}

/** The event types an endpoint receives, one tag each. */
export function EventTags({events}: {events: readonly string[]}) {
  return (
    <p class="tags">
      {events.map((t) => (
        <span class="tag" key={t}>
          {t}
        </span>
      ))}
    </p>
  );
}

export type FormErrors = Record<string, string>;

/** The list of what is wrong, first on the page, each linking to its field; the script moves focus here. */
export function ErrorSummary({errors, labels}: {errors: FormErrors; labels: Record<string, string>}) {
  const entries = Object.entries(errors);
  if (entries.length === 0) return null;
  return (
    <div class="error-summary" role="alert" tabindex={-1} data-focus="">
      <h2>{entries.length === 1 ? 'There is a problem' : `There are ${entries.length} problems`}</h2>
      <ul>
        {entries.map(([field, message]) => (
          <li key={field}>
            {field === 'form' ? message : <a href={`#${field}`}>{withLabel(labels[field], message)}</a>}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** "Label: message", unless the message already starts by naming its field. */
const withLabel = (label: string | undefined, message: string) =>
  !label || message.toLowerCase().startsWith(label.toLowerCase()) ? message : `${label}: ${message}`;

/** The rule of a field under its label, and its error when it has one; ids let the input point at both. */
export function FieldHelp({id, rule, error}: {id: string; rule?: Child; error?: string}) {
  return (
    <>
      {rule ? (
        <p class="hint" id={`${id}-rule`}>
          {rule}
        </p>
      ) : null}
      {error ? (
        <p class="field-error" id={`${id}-error`}>
          <span class="sr-only">Error: </span>
          {error}
        </p>
      ) : null}
    </>
  );
}

export const describedBy = (id: string, hasRule: boolean, error?: string) =>
  [hasRule ? `${id}-rule` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;

export function Notice({kind = 'info', children}: {kind?: 'info' | 'success' | 'warning'; children?: Child}) {
  return (
    <div class={`notice notice-${kind}`} role={kind === 'warning' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/** A time as people read it, in UTC (the emulator's clock may not be the wall clock). */
export function Time({
  at,
  empty = 'never',
  seconds = false,
}: {
  at: Date | string | null | undefined;
  empty?: string;
  /** Where retries 30 s apart must be told apart (deliveries and attempts). */
  seconds?: boolean;
}) {
  if (at == null) return <span class="muted">{empty}</span>;
  const d = typeof at === 'string' ? new Date(at) : at;
  const iso = d.toISOString();
  return <time datetime={iso}>{`${iso.slice(0, 10)} ${iso.slice(11, seconds ? 19 : 16)} UTC`}</time>;
}

export function CsrfField({token}: {token: string}) {
  return <input type="hidden" name="csrf" value={token} />;
}

/**
 * A new secret shown this once (an API key, a signing secret): the heading, what the page says about it,
 * the secret in a read-only field with its copy button and copy status, then anything the page adds.
 */
export function SecretShownOnce({
  heading,
  lead,
  warning,
  label,
  secret,
  children,
}: {
  heading: Child;
  lead?: Child;
  warning: Child;
  /** The field's name for screen readers. */
  label: string;
  secret: string;
  children?: Child;
}) {
  return (
    <section class="secret-once" aria-labelledby="secret-title" tabindex={-1} data-focus="">
      <h2 id="secret-title">{heading}</h2>
      {lead}
      <p class="warning-text">{warning}</p>
      <div class="secret-row">
        <label for="new-secret" class="sr-only">
          {label}
        </label>
        <input id="new-secret" class="secret" type="text" readonly value={secret} spellcheck={false} />
        <button type="button" class="copy" data-copy="new-secret" hidden>
          Copy
        </button>
      </div>
      <p class="copy-status muted" aria-live="polite" />
      {children}
    </section>
  );
}
