// `svc webhooks test-receiver` (and the MCP tool test_receiver): runs the receiver checks against a running
// receiver, one after another, and grades each answer the way the service would treat it. A cause the verdicts
// share (a receiver that cannot be reached, one that verifies with another secret) is said once, as a diagnosis.
import {setTimeout as sleep} from 'node:timers/promises';
import {isLoopbackHost} from '@svc/client';
import {DELIVERY_TIMEOUT_MS, FIRST_RETRY_S} from '../../definitions.js';
import {usageError} from '../../lib/errors.js';
import {currentSvcCommand} from '../../lib/invocation.js';
import {
  parseReceiverUrl,
  type PostedAnswer,
  type PostOptions,
  postDelivery,
  senderSecret,
} from './post-delivery.js';
import {
  type CheckContext,
  type CheckVerdict,
  FUTURE_CHECK_IDS,
  RECEIVER_CHECK_IDS,
  RECEIVER_CHECKS,
  type ReceiverCheck,
} from './receiver-checks.js';
import {refusalNamesItsCause} from './diagnosis.js';
import {type LoadCheckOptions, type LoadReport, planLoadChecks, runLoadChecks} from './load-checks.js';

export type {CheckVerdict} from './receiver-checks.js';
export {FUTURE_CHECK_IDS, RECEIVER_CHECK_IDS} from './receiver-checks.js';

/** The checks post with the service's timeout, so that a verdict is the service's. */
export interface TestReceiverOptions extends Omit<PostOptions, 'timeoutMs'>, LoadCheckOptions {
  url: string;
  /** From --secret; SVC_WEBHOOK_SECRET in `env` otherwise. */
  secret?: string;
  env: NodeJS.ProcessEnv;
  /** Check ids to run; `valid` always runs first, since every other verdict is read against it. */
  only?: string[];
  /** Run the `future` group (what a later service may send); with `only`, those checks as well. */
  future?: boolean;
  /** false: only receivers on this machine (localhost, 127.0.0.1, [::1]); the MCP tool's default. */
  allowRemote?: boolean;
  /** Told of each verdict as soon as it is known. */
  onVerdict?: (verdict: CheckVerdict) => void;
}

/**
 * What the verdicts add up to when they share one cause, said once instead of under every check:
 * `unreachable`, nothing answered the valid delivery; `secret_mismatch`, every correctly signed delivery was
 * refused with a 4xx, which is what a receiver verifying with another secret does.
 */
export interface ReceiverDiagnosis {
  code: 'unreachable' | 'secret_mismatch';
  message: string;
  /** The one next step. */
  next: string;
}

export interface ReceiverReport extends LoadReport {
  url: string;
  checks: CheckVerdict[];
  passed: number;
  failed: number;
  skipped: number;
  diagnosis?: ReceiverDiagnosis;
}

const BASELINE = 'valid';
const SNIPPET = 120;
const SAME_SECRET =
  'Check that the receiver verifies with the same signing secret as svc was given (--secret or SVC_WEBHOOK_SECRET): the secret of the endpoint it serves, shown once when the endpoint was added.';
const UNREACHABLE_NEXT =
  'Start the receiver (or correct the host, port and path of the URL), then run this again.';

/** A refusal of the kind a receiver gives a delivery whose signature it cannot verify (not a missing route). */
function refusedAsUnsigned(a: PostedAnswer): boolean {
  return (
    a.status_code !== null &&
    a.status_code >= 400 &&
    a.status_code < 500 &&
    ![404, 405].includes(a.status_code) &&
    // A 413, or a refusal that speaks of the timestamp, refuses everything for a reason other than the secret.
    !refusalNamesItsCause(a.status_code, a.response_body)
  );
}

/** `--only a,b --only c` → ids, each known; a usage error lists the known ones. */
export function parseOnly(values: string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  const ids = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (ids.length === 0)
    throw usageError('--only needs at least one check id', [`Checks: ${RECEIVER_CHECK_IDS.join(', ')}`]);
  for (const id of ids) {
    if (!RECEIVER_CHECK_IDS.includes(id)) {
      throw usageError(`unknown check ${JSON.stringify(id)}`, [`Checks: ${RECEIVER_CHECK_IDS.join(', ')}`]);
    }
  }
  return [...new Set(ids)];
}

/** What came back, in a few words: "200 {"received":true}", "no answer within 10000 ms". */
export function describeAnswer(a: PostedAnswer): string {
  if (a.timed_out) return `no answer within ${DELIVERY_TIMEOUT_MS} ms`;
  if (a.status_code === null) return a.error ?? 'no answer';
  const body = (a.response_body ?? '').replace(/\s+/g, ' ').trim();
  const shown = body.length > SNIPPET ? `${body.slice(0, SNIPPET)}…` : body;
  const parts = [String(a.status_code)];
  if (a.error) parts.push(`(${a.error})`);
  if (shown) parts.push(shown);
  return parts.join(' ');
}

function expectedText(check: ReceiverCheck, count: number): string {
  const each = count > 1 ? `${count} answers, each ` : '';
  const to = check.change ? ` to a delivery with ${check.change}` : '';
  return check.expect === 'accept'
    ? `${each}2xx within ${DELIVERY_TIMEOUT_MS / 1000} s${to}`
    : `${each}not 2xx (a 4xx naming the reason)`;
}

/** The fix for an accept-check that failed, when the answer shows a cause of its own (slow, redirected). */
function fixFor(check: ReceiverCheck, answers: PostedAnswer[]): string {
  if (check.expect === 'accept') {
    if (answers.some((a) => a.timed_out)) {
      return `Answer within ${DELIVERY_TIMEOUT_MS / 1000} s: acknowledge at once and do slow work afterwards (a queue); the service counts a late answer as a failure and retries after ${FIRST_RETRY_S} s.`;
    }
    const redirect = answers.find(
      (a) => a.status_code !== null && a.status_code >= 300 && a.status_code < 400,
    );
    if (redirect) {
      return 'Register the final URL: the service does not follow redirects (often http→https or a trailing slash) and retries instead.';
    }
    if (answers.some((a) => a.status_code === 404 || a.status_code === 405)) {
      return 'Nothing takes a POST at this path: check the URL, or route POST requests on it to your webhook handler.';
    }
    if (check.id === BASELINE && answers.some(refusedAsUnsigned)) {
      return `${SAME_SECRET} If it is, verify with the whole whsec_ string as the HMAC key, over the raw body.`;
    }
    if (check.id === BASELINE && answers.some((a) => a.status_code === null && !a.timed_out)) {
      return UNREACHABLE_NEXT;
    }
  }
  return check.fix;
}

function judge(check: ReceiverCheck, answers: PostedAnswer[]): CheckVerdict {
  const ok = check.expect === 'accept' ? answers.every((a) => a.accepted) : answers.every((a) => !a.accepted);
  return {
    id: check.id,
    group: check.group,
    title: check.title,
    status: ok ? 'pass' : 'fail',
    expected: expectedText(check, answers.length),
    got: answers.map(describeAnswer).join(', then '),
    fix: ok ? '' : fixFor(check, answers),
  };
}

function skipped(check: ReceiverCheck, why: string): CheckVerdict {
  return {
    id: check.id,
    group: check.group,
    title: check.title,
    status: 'skip',
    expected: expectedText(check, 1),
    got: why,
    fix: '',
  };
}

export async function testReceiver(options: TestReceiverOptions): Promise<ReceiverReport> {
  const url = parseReceiverUrl(options.url);
  if (options.allowRemote === false && !isLoopbackHost(url.hostname)) {
    throw usageError(
      `${url.hostname} is not on this machine: test_receiver sends only to localhost, 127.0.0.1 and [::1].`,
      [
        `To grade a receiver elsewhere, start the server with \`${currentSvcCommand(options.env)} mcp --allow-remote-receivers\`.`,
      ],
    );
  }
  const secret = senderSecret(options.secret, options.env);
  const named = options.only === undefined ? undefined : parseOnly(options.only);
  const only = options.future ? [...new Set([...(named ?? []), ...FUTURE_CHECK_IDS])] : named;
  const load = planLoadChecks(options);
  const ctx: CheckContext = {
    secret,
    post: (request) => postDelivery(url, request, {maxResponseBytes: options.maxResponseBytes}),
    nowSeconds: () => Math.floor(Date.now() / 1000),
    startOfSecond: async () => {
      // Within the first 100 ms of a second, an answer a few ms away is judged in the same second it was signed.
      const into = Date.now() % 1000;
      if (into > 100) await sleep(1000 - into);
    },
  };
  const checks: CheckVerdict[] = [];
  const record = (verdict: CheckVerdict) => {
    checks.push(verdict);
    options.onVerdict?.(verdict);
  };

  const baselineCheck = RECEIVER_CHECKS.find((c) => c.id === BASELINE) as ReceiverCheck;
  const baselineAnswers = await baselineCheck.run(ctx);
  const others = RECEIVER_CHECKS.filter((c) => c.id !== BASELINE && (!only || only.includes(c.id)));
  let diagnosis: ReceiverDiagnosis | undefined;
  if (!baselineAnswers.every((a) => a.status_code !== null)) {
    diagnosis = unreachable(url, baselineAnswers);
    record(judge(baselineCheck, baselineAnswers));
    for (const check of others) record(skipped(check, diagnosis ? NOT_REACHED : NOT_SENT));
  } else if (baselineAnswers.every(refusedAsUnsigned)) {
    diagnosis = await gradeAfterRefusal(ctx, baselineCheck, baselineAnswers, others, record);
  } else {
    const baseline = judge(baselineCheck, baselineAnswers);
    record(baseline);
    for (const check of others) {
      if (check.expect === 'refuse' && baseline.status !== 'pass') record(skipped(check, NOT_JUDGED));
      else record(judge(check, await check.run(ctx)));
    }
  }
  const loaded = await runLoadChecks(
    load,
    {url, secret, describe: describeAnswer, baseline: checks.find((c) => c.id === BASELINE)},
    record,
  );
  return {
    url: url.href,
    checks,
    passed: checks.filter((c) => c.status === 'pass').length,
    failed: checks.filter((c) => c.status === 'fail').length,
    skipped: checks.filter((c) => c.status === 'skip').length,
    ...(diagnosis ? {diagnosis} : {}),
    ...loaded,
  };
}

const NOT_SENT = 'not sent: the receiver did not answer the valid delivery';
const NOT_REACHED = 'not sent: the receiver could not be reached';
const NOT_JUDGED = 'not judged: the valid delivery was refused too, so a refusal here proves nothing';
const REFUSED_LIKE_VALID =
  'not judged: refused like the valid delivery, as every delivery signed with this secret was';

/** Nothing answered: the network's words once, or none when the receiver took the connection and stayed silent. */
function unreachable(url: URL, answers: PostedAnswer[]): ReceiverDiagnosis | undefined {
  const failure = answers.find((a) => a.status_code === null && !a.timed_out);
  if (!failure) return undefined;
  return {
    code: 'unreachable',
    message: `The receiver at ${url.href} could not be reached: ${failure.error ?? 'no answer'}.`,
    next: UNREACHABLE_NEXT,
  };
}

/**
 * The valid delivery was refused with a 4xx. The deliveries a receiver must accept, each signed with the same
 * secret, are sent too: when every one of them is refused as well, the receiver most likely verifies with
 * another secret, so their refusals say nothing about its code and are not held against it. The deliveries it
 * must refuse are not judged either way: refusing everything proves nothing.
 */
async function gradeAfterRefusal(
  ctx: CheckContext,
  baselineCheck: ReceiverCheck,
  baselineAnswers: PostedAnswer[],
  others: readonly ReceiverCheck[],
  record: (verdict: CheckVerdict) => void,
): Promise<ReceiverDiagnosis | undefined> {
  const answers = new Map<string, PostedAnswer[]>();
  for (const check of others) if (check.expect === 'accept') answers.set(check.id, await check.run(ctx));
  const allRefused = [...answers.values()].every((a) => a.every(refusedAsUnsigned));
  record(judge(baselineCheck, baselineAnswers));
  for (const check of others) {
    const got = answers.get(check.id);
    if (!got) record(skipped(check, NOT_JUDGED));
    else if (allRefused) record(skipped(check, REFUSED_LIKE_VALID));
    else record(judge(check, got));
  }
  if (!allRefused) return undefined;
  const all = [baselineAnswers, ...answers.values()].flat();
  const codes = [...new Set(all.map((a) => a.status_code))];
  return {
    code: 'secret_mismatch',
    message: `The receiver refused every correctly signed delivery (${all.length} of ${all.length}, status ${codes.join(', ')}): it and svc may not share the signing secret.`,
    next: SAME_SECRET,
  };
}
