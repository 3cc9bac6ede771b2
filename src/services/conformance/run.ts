// `svc conformance`: calls each /v1 read of a deployment with the stored (or given) key, the 401 of a wrong key,
// the 403 of each write, and the 429 of repeated failures, and checks every answer (status, headers, body)
// against the OpenAPI document svc ships. It only reads: the writes it sends are the ones every key is refused.
import {randomBytes} from 'node:crypto';
import {API_KEY_SECRET_PREFIX, ID_BODY_LENGTH} from '../../definitions.js';
import {errorEnvelopeOf, type FetchLike} from '@svc/client';
import {buildOpenApiDocument} from '../../schemas/openapi.js';
import {type Answer, DocumentChecker} from './document.js';

export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface ConformanceCheck {
  id: string;
  title: string;
  status: CheckStatus;
  /** What the document asks for. */
  expected: string;
  /** What the deployment answered, or why the check was skipped. */
  got: string;
}

export interface ConformanceReport {
  api_url: string;
  checks: ConformanceCheck[];
  passed: number;
  failed: number;
  /** The 429 check met the limit: this address is locked out, for Retry-After seconds when it said. */
  locked_out?: {retry_after: string | null};
}

export interface ConformanceOptions {
  apiUrl: string;
  apiKey: string;
  fetch: FetchLike;
  /** Provoke the 429 of repeated failed authentications (it locks this address out for up to a minute). */
  rateLimit: boolean;
  /** Most wrong keys sent while waiting for the 429. */
  maxFailedAttempts?: number;
}

/** A key of the right shape that no deployment has issued. */
const wrongKey = () =>
  `${API_KEY_SECRET_PREFIX}${randomBytes(30).toString('base64url').replace(/[-_]/g, 'x').slice(0, 40)}`;
const unknownId = (prefix: string) => `${prefix}_${'0'.repeat(ID_BODY_LENGTH)}`;

interface Probe {
  id: string;
  title: string;
  method: string;
  /** As the document writes it. */
  template: string;
  path: string;
  key?: string;
  body?: string;
  /** The statuses this probe expects; the first names it in the report. */
  expect: number[];
}

type Send = (probe: Pick<Probe, 'method' | 'path' | 'key' | 'body'>) => Promise<Answer>;

/** How probes are sent to the deployment and each answer judged against the document into `checks`. */
function prober(fetchImpl: FetchLike, base: string, checker: DocumentChecker, checks: ConformanceCheck[]) {
  const send: Send = async (probe) => {
    const headers: Record<string, string> = {accept: 'application/json'};
    if (probe.key !== undefined) headers.authorization = `Bearer ${probe.key}`;
    if (probe.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetchImpl(`${base}${probe.path}`, {method: probe.method, headers, body: probe.body});
    return {status: res.status, headers: res.headers, body: await res.text()};
  };
  const run = async (probe: Probe): Promise<Answer | undefined> => {
    const expected = `${probe.expect.join(' or ')} as documented for ${probe.method} ${probe.template}`;
    const verdict = {id: probe.id, title: probe.title, expected};
    let answer: Answer;
    try {
      answer = await send(probe);
    } catch (err) {
      checks.push({...verdict, status: 'fail', got: `no answer: ${(err as Error).message}`});
      return undefined;
    }
    const problems = probe.expect.includes(answer.status)
      ? checker.problems(probe.method, probe.template, answer)
      : [`status ${answer.status}${errorCode(answer)}`];
    checks.push({
      ...verdict,
      status: problems.length === 0 ? 'pass' : 'fail',
      got: problems.length === 0 ? `${answer.status}, as documented` : problems.join('; '),
    });
    return answer;
  };
  return {send, run};
}

/** The reads a key may make; the endpoints listed name the endpoint whose deliveries are read next. */
function readProbes(key: string): Probe[] {
  const read = (id: string, title: string, path: string): Probe => ({
    id,
    title,
    method: 'GET',
    template: path,
    path,
    key,
    expect: [200],
  });
  return [
    read('org.read', 'GET /v1/org answers the org', '/v1/org'),
    read('api-keys.read', 'GET /v1/api-keys lists the keys', '/v1/api-keys'),
    read('webhooks.read', 'GET /v1/webhooks lists the endpoints', '/v1/webhooks'),
  ];
}

const DELIVERIES_TEMPLATE = '/v1/webhooks/{webhook}/deliveries';
const DELIVERIES_TITLE = "GET /v1/webhooks/{webhook}/deliveries lists an endpoint's deliveries";

function deliveriesProbe(endpointId: string, key: string): Probe {
  return {
    id: 'deliveries.read',
    title: DELIVERIES_TITLE,
    method: 'GET',
    template: DELIVERIES_TEMPLATE,
    path: `/v1/webhooks/${encodeURIComponent(endpointId)}/deliveries`,
    key,
    // 503 is the documented answer of a deployment without a vault key.
    expect: [200, 503],
  };
}

/** What every deployment refuses: an unknown endpoint, a missing or wrong key, and each write. */
function refusalProbes(key: string): Probe[] {
  return [
    {
      id: 'deliveries.unknown-endpoint',
      title: 'An unknown endpoint is 404 not_found',
      method: 'GET',
      template: DELIVERIES_TEMPLATE,
      path: `/v1/webhooks/${unknownId('we')}/deliveries`,
      key,
      expect: [404],
    },
    {
      id: 'auth.missing-key',
      title: 'No key is 401 unauthorized',
      method: 'GET',
      template: '/v1/org',
      path: '/v1/org',
      expect: [401],
    },
    {
      id: 'auth.wrong-key',
      title: 'A wrong key is 401 unauthorized',
      method: 'GET',
      template: '/v1/org',
      path: '/v1/org',
      key: wrongKey(),
      expect: [401],
    },
    {
      id: 'api-keys.create-refused',
      title: 'POST /v1/api-keys is 403 forbidden for any key',
      method: 'POST',
      template: '/v1/api-keys',
      path: '/v1/api-keys',
      key,
      body: '{"name":"svc conformance"}',
      expect: [403],
    },
    {
      id: 'api-keys.revoke-refused',
      title: 'DELETE /v1/api-keys/{key} is 403 forbidden for any key',
      method: 'DELETE',
      template: '/v1/api-keys/{key}',
      path: `/v1/api-keys/${unknownId('key')}`,
      key,
      expect: [403],
    },
    {
      id: 'webhooks.create-refused',
      title: 'POST /v1/webhooks is 403 forbidden, with Deprecation',
      method: 'POST',
      template: '/v1/webhooks',
      path: '/v1/webhooks',
      key,
      body: '{"url":"https://example.com/hooks","events":["sandbox.ready"]}',
      expect: [403],
    },
  ];
}

export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const base = options.apiUrl.replace(/\/+$/, '');
  const checker = new DocumentChecker(buildOpenApiDocument({serverUrl: base}));
  const checks: ConformanceCheck[] = [];
  const {send, run} = prober(options.fetch, base, checker, checks);
  const key = options.apiKey;

  let webhooks: Answer | undefined;
  for (const probe of readProbes(key)) {
    const answer = await run(probe);
    if (probe.id === 'webhooks.read') webhooks = answer;
  }
  const firstEndpoint = firstId(webhooks);
  if (firstEndpoint) await run(deliveriesProbe(firstEndpoint, key));
  else {
    checks.push({
      id: 'deliveries.read',
      title: DELIVERIES_TITLE,
      status: 'skip',
      expected: `200 as documented for GET ${DELIVERIES_TEMPLATE}`,
      got: 'the org has no webhook endpoint to list deliveries of',
    });
  }
  for (const probe of refusalProbes(key)) await run(probe);

  const lockedOut = options.rateLimit ? await rateLimitCheck(options, send, checker, checks) : undefined;
  if (!options.rateLimit) {
    checks.push({
      id: 'auth.rate-limited',
      title: 'Repeated failed authentication is 429 rate_limited, with Retry-After',
      status: 'skip',
      expected: '429 with Retry-After',
      got: 'skipped (--skip-rate-limit)',
    });
  }
  return {
    api_url: base,
    checks,
    passed: checks.filter((c) => c.status === 'pass').length,
    failed: checks.filter((c) => c.status === 'fail').length,
    ...(lockedOut ? {locked_out: lockedOut} : {}),
  };
}

/** Last, since it locks this address out: wrong keys until the deployment answers 429, within a bound. */
async function rateLimitCheck(
  options: ConformanceOptions,
  send: Send,
  checker: DocumentChecker,
  checks: ConformanceCheck[],
): Promise<ConformanceReport['locked_out']> {
  const max = options.maxFailedAttempts ?? 40;
  const check = {
    id: 'auth.rate-limited',
    title: 'Repeated failed authentication is 429 rate_limited, with Retry-After',
    expected: `429 with Retry-After, as documented for GET /v1/org, within ${max} wrong keys`,
  };
  for (let i = 0; i < max; i++) {
    let answer: Answer;
    try {
      answer = await send({method: 'GET', path: '/v1/org', key: wrongKey()});
    } catch (err) {
      checks.push({...check, status: 'fail', got: `no answer: ${(err as Error).message}`});
      return undefined;
    }
    if (answer.status === 401) continue;
    const problems =
      answer.status === 429
        ? checker.problems('GET', '/v1/org', answer)
        : [`status ${answer.status}${errorCode(answer)}`];
    checks.push({
      ...check,
      status: problems.length === 0 ? 'pass' : 'fail',
      got:
        problems.length === 0
          ? `429 after ${i + 1} wrong keys, Retry-After ${answer.headers.get('retry-after')}`
          : problems.join('; '),
    });
    return answer.status === 429 ? {retry_after: answer.headers.get('retry-after')} : undefined;
  }
  checks.push({...check, status: 'fail', got: `still 401 after ${max} wrong keys`});
  return undefined;
}

function errorCode(answer: Answer): string {
  const found = errorEnvelopeOf(jsonOf(answer.body))?.code;
  const code = found === undefined ? '' : ` ${found}`;
  if (answer.status !== 429) return code;
  // Most likely this address's own doing: the 429 check of an earlier run locks it out for a while.
  const wait = answer.headers.get('retry-after');
  return `${code}: this address is locked out${wait ? ` for ${wait} s` : ''} (an earlier run's rate-limit check?); wait, or pass --skip-rate-limit`;
}

function firstId(answer: Answer | undefined): string | undefined {
  if (answer?.status !== 200) return undefined;
  const first = (jsonOf(answer.body) as {data?: {id?: unknown}[]} | undefined)?.data?.[0]?.id;
  return typeof first === 'string' ? first : undefined;
}

/** The parsed body, or undefined when it is no JSON (then the status says enough). */
function jsonOf(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}
