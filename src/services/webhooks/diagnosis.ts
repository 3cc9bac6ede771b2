// Why an endpoint's deliveries fail, inferred from the attempts svc holds: each failed attempt is given the
// receiver-side cause its evidence points to (status, answer excerpt, timing, event type, the redirect's target),
// the attempts of one cause make one issue, and each issue names the `svc webhooks test-receiver` check that
// reproduces it. Pure: it reads what it is given and nothing else, so `svc webhooks diagnose`, the TUI's panel and
// the tests all get the same answer from the same attempts.
import {DELIVERY_TIMEOUT_MS, isSuccessStatus, SIGNATURE_TOLERANCE_SECONDS} from '../../definitions.js';

/** One attempt as diagnosis reads it: the emulator's attempt record, or what a listed delivery says of its last. */
export interface AttemptEvidence {
  deliveryId: string;
  eventType: string;
  attempt: number;
  /** The receiver's status; null when it never answered. */
  statusCode: number | null;
  /** Network error, timeout or refused redirect; null when the receiver answered plainly, or when unknown. */
  error: string | null;
  /** null when unknown (a listed delivery, not its attempts). */
  durationMs: number | null;
  /** The start of the answer; null when there was none, or it is unknown. */
  body: string | null;
  startedAt: string | null;
}

export const DIAGNOSIS_CAUSES = [
  'receiver-down',
  'slow-answer',
  'redirect',
  'body-limit',
  'clock-skew',
  'signature-rejected',
  'body-reserialized',
  'unknown-event-type',
  'refused',
  'server-error',
  'network-error',
] as const;
export type DiagnosisCause = (typeof DIAGNOSIS_CAUSES)[number];

export interface DiagnosisIssue {
  cause: DiagnosisCause;
  /** The receiver-side cause, in one line. */
  title: string;
  /** What in the attempts points to it. */
  evidence: string;
  fix: string;
  /** The `svc webhooks test-receiver` check that reproduces it. */
  check: string;
  /** The command that reproduces it against the endpoint's URL (the secret comes from SVC_WEBHOOK_SECRET). */
  reproduce: string;
  attempts: number;
  deliveries: number;
  event_types: string[];
  /** What came back: status codes, `timeout`, `no answer`, sorted. */
  answers: string[];
  /** Up to three of the deliveries, in the order given (newest first). */
  examples: string[];
  first_at: string | null;
  last_at: string | null;
}

export interface DiagnosisInput {
  /** The endpoint's URL: redirects are compared with it, and reproduce commands name it. */
  url: string;
  attempts: readonly AttemptEvidence[];
  /** The delivery timeout the attempts were made under (default: the service's). */
  timeoutMs?: number;
}

export interface Diagnosis {
  attempts: number;
  failed: number;
  /** Most attempts first: the first is the top cause. Empty when every attempt succeeded. */
  issues: DiagnosisIssue[];
}

/** An answer this close to the timeout was cut short by the receiver's own work (or a proxy's timeout). */
const SLOW_SHARE = 0.9;
const EXAMPLES = 3;
/** Answers are matched on their start: a 4 kB HTML page says what it is about early. */
const BODY_SCAN = 1024;

const DOWN = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|no relay listener/i;
const TIMED_OUT = /timed? ?out|ETIMEDOUT|UND_ERR_(HEADERS|BODY)_TIMEOUT/i;
const REDIRECT = /^redirect \((\d{3})(?: to (.*))?\) not followed$/;
const CLOCK_WORDS =
  /timestamp|tolerance|clock|too old|(?<![.\w])expired|stale|in the past|in the future|skew|replay|outside.{0,20}window/;
/** A refused signature, or a body that reached the check parsed (the receiver library's invalid_payload). */
const SIGNATURE_WORDS = /signature|hmac|signed|digest|\bv1\b|secret|raw body|parsed|invalid_payload/;
const UNKNOWN_TYPE_WORDS =
  /(unknown|unsupported|unexpected|unhandled|not handled|unrecognized|unrecognised|invalid|no handler)[^.]{0,40}(event|type)/;
const AGE = /(\d+)\s*(?:s\b|sec\b|secs\b|seconds?\b)/;

const TOLERANCE = SIGNATURE_TOLERANCE_SECONDS;

export interface CauseText {
  title: string;
  fix: string;
  check: string;
}

/** Each cause's words and the check that reproduces it: one table, read by every surface. */
export const CAUSES: Readonly<Record<DiagnosisCause, CauseText>> = {
  'receiver-down': {
    title: 'Nothing answers at the URL: the receiver is down, or its host does not resolve',
    fix: 'Start the receiver (or correct the host and port in the URL) and keep it running; svc retries what failed.',
    check: 'valid',
  },
  'slow-answer': {
    title: `The receiver does its work before answering and misses the ${DELIVERY_TIMEOUT_MS / 1000} s budget`,
    fix: 'Answer 2xx as soon as the signature verifies and do the work afterwards (a queue or a background job).',
    check: 'valid',
  },
  redirect: {
    title: 'The URL answers with a redirect, which deliveries do not follow',
    fix: 'Register the URL the receiver answers at itself (the redirect’s target: a trailing slash, https).',
    check: 'valid',
  },
  'body-limit': {
    title: 'The receiver’s body size limit is smaller than the events (413)',
    fix: 'Let the webhook route read bodies of 1 MB (express.raw({type: "application/json", limit: "1mb"})).',
    check: 'large-body',
  },
  'clock-skew': {
    title: `The receiver refuses the signature’s timestamp: its clock is off, or its tolerance is not ${TOLERANCE} s`,
    fix: `Keep the receiver’s clock synchronised (NTP) and accept any t within ${TOLERANCE} s of it, both ways.`,
    check: 'stale-299',
  },
  'signature-rejected': {
    title:
      'The receiver refuses every signature: it verifies with another secret, or over a parsed and re-serialised body',
    fix: 'Verify with this endpoint’s signing secret (whsec_…, prefix included) over the raw body bytes as received, before any JSON parsing.',
    check: 'valid',
  },
  'body-reserialized': {
    title:
      'The receiver refuses the signature of some events only: it verifies a parsed and re-serialised body',
    fix: 'Compute the HMAC over the raw body bytes as received, before any JSON parsing or re-encoding.',
    check: 'reserialized-key-order',
  },
  'unknown-event-type': {
    title: 'The receiver refuses an event type it does not handle',
    fix: 'Answer 2xx to event types (and fields) the receiver does not know, and ignore them, instead of 4xx.',
    // A type the service adds later reaches the same refusal: the future check sends one.
    check: 'later-event-type',
  },
  refused: {
    title: 'The receiver refuses deliveries (4xx) for a reason of its own',
    fix: 'Read the answers below: a receiver answers 2xx to every delivery whose signature verifies.',
    check: 'valid',
  },
  'server-error': {
    title: 'The receiver’s handler fails (5xx)',
    fix: 'Look in the receiver’s logs for the error; answer 2xx once the event is safely taken in.',
    check: 'valid',
  },
  'network-error': {
    title: 'The connection fails before an answer',
    fix: 'Check what stands between svc and the receiver (TLS certificate, proxy, a process that drops connections).',
    check: 'valid',
  },
};

const ORDER = new Map(DIAGNOSIS_CAUSES.map((c, i) => [c, i]));

/** What one attempt is, before the rules that look at the whole endpoint. */
type Verdict =
  | {kind: 'ok'}
  | {kind: 'cause'; cause: DiagnosisCause; note?: string; age?: number}
  /** A refusal that mentions the signature: every attempt, or some deliveries only, decides which cause. */
  | {kind: 'signature'}
  /** A 4xx no words explain: one event type only, or a reason of the receiver's own. */
  | {kind: 'plain-4xx'};

interface Group {
  cause: DiagnosisCause;
  attempts: number;
  deliveries: Set<string>;
  types: Set<string>;
  answers: Set<string>;
  examples: string[];
  notes: Set<string>;
  /** clock-skew: the largest distance of t from its clock that the receiver's answers name. */
  maxAge: number | undefined;
  /** unknown-event-type: the type alone fails while other types pass (not only the answer's words). */
  typeSplit: boolean;
  firstAt: string | null;
  lastAt: string | null;
}

export function diagnose(input: DiagnosisInput): Diagnosis {
  const timeoutMs = input.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  // Answers repeat (the same 401 body on every attempt): each distinct one is read once.
  const byAnswer = new Map<string, Verdict>();
  const verdicts: Verdict[] = new Array(input.attempts.length);
  const okTypes = new Set<string>();
  let anyOk = false;
  for (let i = 0; i < input.attempts.length; i++) {
    const a = input.attempts[i] as AttemptEvidence;
    let v: Verdict;
    if (a.error === null && a.statusCode !== null && isSuccessStatus(a.statusCode)) v = {kind: 'ok'};
    else if (a.error !== null || a.statusCode === null) v = errorVerdict(a.error, input.url);
    else if (a.durationMs !== null && a.durationMs >= timeoutMs * SLOW_SHARE)
      v = {kind: 'cause', cause: 'slow-answer'};
    else {
      const key = `${a.statusCode}\u0000${a.body ?? ''}`;
      let known = byAnswer.get(key);
      if (!known) {
        known = answerVerdict(a.statusCode, a.body);
        byAnswer.set(key, known);
      }
      v = known;
    }
    verdicts[i] = v;
    if (v.kind === 'ok') {
      anyOk = true;
      okTypes.add(a.eventType);
    }
  }

  // The rules that need the whole endpoint: do signatures fail everywhere, do plain 4xx hit one type only?
  const plainTypes = new Set<string>();
  for (let i = 0; i < verdicts.length; i++)
    if (verdicts[i]?.kind === 'plain-4xx') plainTypes.add((input.attempts[i] as AttemptEvidence).eventType);
  const oneTypeOnly = plainTypes.size === 1 && okTypes.size > 0 && !okTypes.has([...plainTypes][0] as string);

  const groups = new Map<DiagnosisCause, Group>();
  let failed = 0;
  for (let i = 0; i < verdicts.length; i++) {
    const v = verdicts[i] as Verdict;
    if (v.kind === 'ok') continue;
    failed++;
    const a = input.attempts[i] as AttemptEvidence;
    let cause: DiagnosisCause;
    if (v.kind === 'cause') cause = v.cause;
    else if (v.kind === 'signature') cause = anyOk ? 'body-reserialized' : 'signature-rejected';
    else cause = oneTypeOnly || mentionsUnknownType(a) ? 'unknown-event-type' : 'refused';
    const g = add(groups, cause, a, v.kind === 'cause' ? v.note : undefined);
    if (v.kind === 'cause' && v.age !== undefined) g.maxAge = Math.max(g.maxAge ?? 0, v.age);
    if (cause === 'unknown-event-type' && oneTypeOnly) g.typeSplit = true;
  }

  const issues = [...groups.values()]
    .sort(
      (x, y) =>
        y.attempts - x.attempts ||
        y.deliveries.size - x.deliveries.size ||
        (ORDER.get(x.cause) as number) - (ORDER.get(y.cause) as number),
    )
    .map((g) => issueOf(g, input.url, timeoutMs));
  return {attempts: input.attempts.length, failed, issues};
}

function errorVerdict(error: string | null, url: string): Verdict {
  if (error === null)
    return {kind: 'cause', cause: 'network-error', note: 'no answer (the list does not say why)'};
  const redirect = REDIRECT.exec(error);
  if (redirect) return {kind: 'cause', cause: 'redirect', note: redirectNote(url, redirect[2])};
  if (TIMED_OUT.test(error)) return {kind: 'cause', cause: 'slow-answer'};
  if (DOWN.test(error)) return {kind: 'cause', cause: 'receiver-down', note: clip(error, 120)};
  return {kind: 'cause', cause: 'network-error', note: clip(error, 120)};
}

/**
 * A refusal whose answer names a cause of its own (a body limit, the timestamp, a timeout): one that says the
 * receiver is not merely refusing the signature, whatever every delivery got.
 */
export function refusalNamesItsCause(status: number, body: string | null): boolean {
  return answerVerdict(status, body).kind === 'cause';
}

function answerVerdict(status: number, body: string | null): Verdict {
  if (status >= 300 && status < 400) return {kind: 'cause', cause: 'redirect'};
  if (status === 413) return {kind: 'cause', cause: 'body-limit'};
  if (status === 504 || status === 408) return {kind: 'cause', cause: 'slow-answer'};
  if (status >= 400 && status < 500) {
    const text = (body ?? '').slice(0, BODY_SCAN).toLowerCase();
    // A refused timestamp names the signature too ("the signature timestamp is outside the tolerance").
    if (CLOCK_WORDS.test(text)) {
      const age = AGE.exec(text);
      return {kind: 'cause', cause: 'clock-skew', age: age ? Number(age[1]) : undefined};
    }
    if (SIGNATURE_WORDS.test(text) || ((status === 401 || status === 403) && !UNKNOWN_TYPE_WORDS.test(text)))
      return {kind: 'signature'};
    return {kind: 'plain-4xx'};
  }
  return {kind: 'cause', cause: 'server-error'};
}

function mentionsUnknownType(a: AttemptEvidence): boolean {
  if (!a.body) return false;
  const text = a.body.slice(0, BODY_SCAN).toLowerCase();
  return UNKNOWN_TYPE_WORDS.test(text) || text.includes(a.eventType.toLowerCase());
}

/** What a redirect's target says of the URL: a trailing slash added or taken away, http to https, elsewhere. */
function redirectNote(url: string, location: string | undefined): string | undefined {
  if (!location) return undefined;
  let from: URL;
  let to: URL;
  try {
    from = new URL(url);
    to = new URL(location, url);
  } catch {
    return undefined;
  }
  if (from.protocol === 'http:' && to.protocol === 'https:') return 'http→https';
  if (from.host === to.host && from.search === to.search) {
    const a = from.pathname.replace(/\/+$/, '');
    const b = to.pathname.replace(/\/+$/, '');
    if (a === b && from.pathname !== to.pathname) return 'trailing slash';
  }
  return `to ${clip(to.href, 120)}`;
}

function add(
  groups: Map<DiagnosisCause, Group>,
  cause: DiagnosisCause,
  a: AttemptEvidence,
  note: string | undefined,
): Group {
  let g = groups.get(cause);
  if (!g) {
    g = {
      cause,
      attempts: 0,
      deliveries: new Set(),
      types: new Set(),
      answers: new Set(),
      examples: [],
      notes: new Set(),
      maxAge: undefined,
      typeSplit: false,
      firstAt: null,
      lastAt: null,
    };
    groups.set(cause, g);
  }
  g.attempts++;
  if (!g.deliveries.has(a.deliveryId)) {
    g.deliveries.add(a.deliveryId);
    if (g.examples.length < EXAMPLES) g.examples.push(a.deliveryId);
  }
  g.types.add(a.eventType);
  g.answers.add(answerOf(a));
  if (note !== undefined && g.notes.size < EXAMPLES) g.notes.add(note);
  if (a.startedAt !== null) {
    // ISO 8601 UTC strings of one shape order as text.
    if (g.firstAt === null || a.startedAt < g.firstAt) g.firstAt = a.startedAt;
    if (g.lastAt === null || a.startedAt > g.lastAt) g.lastAt = a.startedAt;
  }
  return g;
}

function answerOf(a: AttemptEvidence): string {
  if (a.error !== null && REDIRECT.test(a.error)) return String(a.statusCode ?? 'redirect');
  if (a.error !== null && TIMED_OUT.test(a.error)) return 'timeout';
  if (a.statusCode === null) return 'no answer';
  return String(a.statusCode);
}

function issueOf(g: Group, url: string, timeoutMs: number): DiagnosisIssue {
  const text = CAUSES[g.cause];
  const types = [...g.types].sort();
  const answers = [...g.answers].sort();
  const check = text.check;
  const reproduce = `svc webhooks test-receiver ${url} --only ${check}`;
  return {
    cause: g.cause,
    title: text.title,
    evidence: evidenceOf(g, types, answers, timeoutMs),
    fix: text.fix,
    check,
    reproduce,
    attempts: g.attempts,
    deliveries: g.deliveries.size,
    event_types: types,
    answers,
    examples: g.examples,
    first_at: g.firstAt,
    last_at: g.lastAt,
  };
}

function evidenceOf(g: Group, types: string[], answers: string[], timeoutMs: number): string {
  const n = `${g.attempts} attempt${g.attempts === 1 ? '' : 's'} of ${g.deliveries.size} deliver${g.deliveries.size === 1 ? 'y' : 'ies'}`;
  const what = answers.join(', ');
  const notes = [...g.notes];
  switch (g.cause) {
    case 'receiver-down':
      return `${n} got no connection${notes.length ? `: ${notes.join('; ')}` : ''}`;
    case 'slow-answer':
      return `${n} timed out or were answered at the ${timeoutMs / 1000} s budget (${what})`;
    case 'redirect':
      return `${n} were answered ${what}${notes.length ? ` (${notes.join('; ')})` : ''}`;
    case 'body-limit':
      return `${n} were answered 413 Payload Too Large (${types.join(', ')})`;
    case 'clock-skew':
      return `${n} were answered ${what} with words about the timestamp${g.maxAge === undefined ? '' : `; the receiver counts t up to ${g.maxAge} s away (tolerance ${TOLERANCE} s)`}`;
    case 'signature-rejected':
      return `every answered attempt (${n}) was refused (${what}) with words about the signature, and none was accepted`;
    case 'body-reserialized':
      return `${n} were refused (${what}) with words about the signature while other deliveries were accepted`;
    case 'unknown-event-type':
      return `${n} were refused (${what}), all of type ${types.join(', ')}${g.typeSplit ? ', while other types were accepted' : ', and the answers name the type'}`;
    case 'network-error':
      return `${n} failed without an answer${notes.length ? `: ${notes.join('; ')}` : ''}`;
    default:
      return `${n} were answered ${what}`;
  }
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
