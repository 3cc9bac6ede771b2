// The inference rules of `svc webhooks diagnose`, one story each: given the attempts an endpoint's deliveries
// made, the cause on the receiver's side comes first, with the check that reproduces it. Each rule has a case that
// fails when the rule is taken out (the attempts then land under another cause, or under none).
import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {RECEIVER_CHECK_IDS} from '../../../src/services/webhooks/receiver-checks.js';
import {
  type AttemptEvidence,
  CAUSES,
  DIAGNOSIS_CAUSES,
  diagnose,
} from '../../../src/services/webhooks/diagnosis.js';

const URL_ = 'http://127.0.0.1:3000/webhooks';

let n = 0;
/** One attempt; a fresh delivery unless one is named. */
function attempt(over: Partial<AttemptEvidence> = {}): AttemptEvidence {
  n++;
  return {
    deliveryId: `dlv_${String(n).padStart(24, '0')}`,
    eventType: 'sandbox.ready',
    attempt: 1,
    statusCode: 200,
    error: null,
    durationMs: 12,
    body: '{"received":true}',
    startedAt: `2026-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`,
    ...over,
  };
}

/** `count` attempts of one delivery, all alike. */
function retries(count: number, over: Partial<AttemptEvidence>): AttemptEvidence[] {
  const first = attempt(over);
  return Array.from({length: count}, (_, i) => ({...first, attempt: i + 1}));
}

const top = (attempts: AttemptEvidence[], url = URL_) => diagnose({url, attempts}).issues[0];

describe('a healthy endpoint', () => {
  it('gives no issue, however many attempts', () => {
    const d = diagnose({url: URL_, attempts: Array.from({length: 50}, () => attempt())});
    expect(d).toEqual({attempts: 50, failed: 0, issues: []});
  });

  it('gives no issue when a slow answer was still a 2xx in time', () => {
    expect(diagnose({url: URL_, attempts: [attempt({durationMs: 9_800})]}).issues).toEqual([]);
  });
});

describe('each cause, from its evidence', () => {
  it('a refused connection or an unknown host: the receiver is down', () => {
    const issue = top([
      ...retries(3, {statusCode: null, body: null, error: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9'}),
      ...retries(2, {statusCode: null, body: null, error: 'getaddrinfo ENOTFOUND hooks.invalid'}),
    ]);
    expect(issue?.cause).toBe('receiver-down');
    expect(issue?.attempts).toBe(5);
    expect(issue?.deliveries).toBe(2);
    expect(issue?.answers).toEqual(['no answer']);
    expect(top(retries(2, {statusCode: null, body: null, error: 'no relay listener attached'}))?.cause).toBe(
      'receiver-down',
    );
  });

  it('a timeout, an answer at the budget or a gateway timeout: work before the answer', () => {
    expect(top(retries(3, {statusCode: null, body: null, error: 'timed out after 10000 ms'}))).toMatchObject({
      cause: 'slow-answer',
      answers: ['timeout'],
      check: 'valid',
    });
    expect(top(retries(2, {statusCode: 500, durationMs: 9_500, body: 'oops'}))?.cause).toBe('slow-answer');
    expect(top(retries(2, {statusCode: 504, body: '<html>Gateway Timeout</html>'}))?.cause).toBe(
      'slow-answer',
    );
    // The budget the attempts were made under is the one compared with.
    expect(
      diagnose({url: URL_, timeoutMs: 500, attempts: retries(2, {statusCode: 500, durationMs: 480})})
        .issues[0]?.cause,
    ).toBe('slow-answer');
  });

  it('a redirect: named a trailing slash, or http to https, from its target', () => {
    const slash = top(
      retries(2, {statusCode: 308, body: '', error: `redirect (308 to ${URL_}/) not followed`}),
    );
    expect(slash).toMatchObject({cause: 'redirect', answers: ['308'], check: 'valid'});
    expect(slash?.evidence).toContain('trailing slash');
    const https = top(
      retries(1, {
        statusCode: 301,
        body: '',
        error: 'redirect (301 to https://127.0.0.1:3000/webhooks) not followed',
      }),
    );
    expect(https?.evidence).toContain('http→https');
    // A 3xx recorded without the emulator's words (a listed delivery) is a redirect too.
    expect(top([attempt({statusCode: 302, body: null, durationMs: null})])?.cause).toBe('redirect');
  });

  it('413: a body limit smaller than the events', () => {
    expect(
      top([
        ...retries(4, {statusCode: 413, body: 'request entity too large', eventType: 'sandbox.error'}),
        attempt(),
      ]),
    ).toMatchObject({cause: 'body-limit', check: 'large-body', event_types: ['sandbox.error']});
  });

  it('a refusal that speaks of the timestamp: the receiver’s clock or tolerance, with the age it names', () => {
    const issue = top(
      retries(3, {
        statusCode: 400,
        body: '{"error":{"code":"timestamp_outside_tolerance","message":"the signature timestamp is outside the tolerance"}}',
      }),
    );
    expect(issue).toMatchObject({cause: 'clock-skew', check: 'stale-299'});
    const aged = top(retries(2, {statusCode: 401, body: 'Timestamp is 412 seconds in the past'}));
    expect(aged?.cause).toBe('clock-skew');
    expect(aged?.evidence).toContain('412 s');
    // An event type named in an answer is no word about time.
    expect(top(retries(2, {statusCode: 401, body: 'bad signature for sandbox.expired'}))?.cause).toBe(
      'signature-rejected',
    );
  });

  it('every attempt refused with words about the signature, none accepted: another secret or a parsed body', () => {
    const issue = top([
      ...retries(3, {
        statusCode: 400,
        body: '{"error":{"code":"signature_mismatch","message":"no v1 signature matches this body"}}',
      }),
      ...retries(3, {statusCode: 400, body: 'Invalid signature', eventType: 'sandbox.stopped'}),
    ]);
    expect(issue).toMatchObject({cause: 'signature-rejected', check: 'valid', attempts: 6, deliveries: 2});
    // 401 or 403 alone is the signature too: it is a receiver's only credential.
    expect(top(retries(2, {statusCode: 401, body: 'Unauthorized'}))?.cause).toBe('signature-rejected');
    // The receiver library's answer to a body parsed before the check.
    expect(
      top(
        retries(2, {
          statusCode: 400,
          body: 'The payload is a parsed object, but the signature covers the raw bytes',
        }),
      )?.cause,
    ).toBe('signature-rejected');
  });

  it('signatures refused on some deliveries while others are accepted: a re-serialised body', () => {
    const issue = top([
      ...retries(3, {statusCode: 400, body: 'signature mismatch', eventType: 'sandbox.error'}),
      attempt(),
      attempt({eventType: 'sandbox.error'}),
    ]);
    expect(issue).toMatchObject({cause: 'body-reserialized', check: 'reserialized-key-order'});
  });

  it('a plain 4xx on one event type only, the others accepted: the receiver refuses a type it does not know', () => {
    const issue = top([
      ...retries(5, {statusCode: 400, body: 'Bad Request', eventType: 'sandbox.expired'}),
      attempt({eventType: 'sandbox.ready'}),
      attempt({eventType: 'sandbox.stopped'}),
    ]);
    // Reproduced by the future check that sends a type the receiver cannot know: the same refusal.
    expect(issue).toMatchObject({
      cause: 'unknown-event-type',
      check: 'later-event-type',
      event_types: ['sandbox.expired'],
    });
    expect(issue?.reproduce).toBe(`svc webhooks test-receiver ${URL_} --only later-event-type`);
    // With one type delivered at all, the answer's words decide.
    expect(
      top(
        retries(2, {
          statusCode: 422,
          body: 'unknown event type: sandbox.expired',
          eventType: 'sandbox.expired',
        }),
      )?.cause,
    ).toBe('unknown-event-type');
  });

  it('a plain 4xx across types: refused for a reason of the receiver’s own', () => {
    expect(
      top([
        ...retries(2, {statusCode: 400, body: 'Bad Request', eventType: 'sandbox.ready'}),
        ...retries(2, {statusCode: 400, body: 'Bad Request', eventType: 'sandbox.stopped'}),
        attempt({eventType: 'sandbox.error'}),
      ])?.cause,
    ).toBe('refused');
  });

  it('5xx: the handler fails', () => {
    expect(top(retries(2, {statusCode: 500, body: 'Internal Server Error'}))?.cause).toBe('server-error');
  });

  it('another network error, or a listed delivery that got no answer: the connection fails', () => {
    expect(top(retries(2, {statusCode: null, body: null, error: 'ECONNRESET: socket hang up'}))?.cause).toBe(
      'network-error',
    );
    expect(top([attempt({statusCode: null, body: null, durationMs: null})])?.cause).toBe('network-error');
  });
});

describe('issues', () => {
  it('come most attempts first, each attempt under one cause', () => {
    const d = diagnose({
      url: URL_,
      attempts: [
        ...retries(2, {statusCode: 500, body: 'x'}),
        ...retries(5, {statusCode: null, body: null, error: 'timed out after 10000 ms'}),
        attempt(),
      ],
    });
    expect(d.issues.map((i) => i.cause)).toEqual(['slow-answer', 'server-error']);
    expect(d.failed).toBe(7);
  });

  it('name only checks that test-receiver has', () => {
    for (const cause of DIAGNOSIS_CAUSES) {
      const check = CAUSES[cause].check;
      expect(RECEIVER_CHECK_IDS).toContain(check);
    }
  });

  it('count every failed attempt once, whatever the attempts', () => {
    const evidence = fc.record({
      deliveryId: fc.constantFrom('dlv_a', 'dlv_b', 'dlv_c'),
      eventType: fc.constantFrom('sandbox.ready', 'sandbox.stopped'),
      attempt: fc.integer({min: 1, max: 9}),
      statusCode: fc.option(fc.constantFrom(200, 204, 301, 400, 401, 413, 429, 500, 504)),
      error: fc.option(
        fc.constantFrom('timed out after 10000 ms', 'ECONNREFUSED', 'redirect (301) not followed'),
      ),
      durationMs: fc.option(fc.integer({min: 0, max: 10_000})),
      body: fc.option(fc.string({maxLength: 40})),
      startedAt: fc.option(fc.constant('2026-01-01T00:00:00.000Z')),
    });
    fc.assert(
      fc.property(fc.array(evidence, {maxLength: 40}), (attempts) => {
        const d = diagnose({url: URL_, attempts});
        expect(d.issues.reduce((sum, i) => sum + i.attempts, 0)).toBe(d.failed);
        expect(new Set(d.issues.map((i) => i.cause)).size).toBe(d.issues.length);
      }),
    );
  });
});
