#!/usr/bin/env node
// Writes fixtures/webhooks/vectors.json: cross-language test vectors for the Svc-Signature rule
// (the signing rule). Headers are built here with plain node:crypto, never with the library under test, and
// every expected result is stated by hand. Deterministic: running it again gives the same file.
import {createHash, createHmac} from 'node:crypto';
import {writeFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';

const OUT = fileURLToPath(new URL('../fixtures/webhooks/vectors.json', import.meta.url));

// Secrets in the contract's shape (whsec_ + base64 of 32 bytes), derived from fixed labels.
const secret = (label) => `whsec_${createHash('sha256').update(label).digest('base64')}`;
const S1 = secret('svc vector secret 1');
const S2 = secret('svc vector secret 2');
const S3 = secret('svc vector secret 3');

const T = 1767225600; // 2026-01-01T00:00:00Z

const event = {
  id: 'evt_4Vx9QmT2kLp8RsWn3YbZc7Hd',
  type: 'sandbox.stopped',
  created_at: '2026-01-01T00:00:00.000Z',
  org_id: 'org_7Gh2Jk4Lm6Np8Qr0St2Uv4Wx',
  data: {
    sandbox: {
      id: 'sbx_1Ab3Cd5Ef7Gh9Ij1Kl3Mn5Op',
      name: 'ci-runner',
      status: 'stopped',
      desired_state: 'running',
      last_error: 'The VM stopped by itself',
    },
  },
};
const BODY = JSON.stringify(event);
const PRETTY_BODY = JSON.stringify(event, null, 2);
const UNICODE_BODY = JSON.stringify({
  ...event,
  data: {sandbox: {...event.data.sandbox, name: 'café-测试-🚀', last_error: 'naïve “quotes” — ünïcödé'}},
});
// Bytes that are not UTF-8 at all: a verifier must hash them as they are.
const BINARY_BODY = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x7b, 0x22, 0xc3, 0x28, 0x0a, 0x0d, 0xe2, 0x82]);

const toBytes = (body) => (typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
const hmac = (key, t, body) => createHmac('sha256', key).update(`${t}.`).update(toBytes(body)).digest('hex');
const v1 = (s, t, body) => hmac(s, t, body);

const vectors = [];
function add(
  name,
  description,
  {secrets = [S1], t = T, now = T, tolerance = 300, body = BODY, header, expected, operation},
) {
  const binary = typeof body !== 'string';
  vectors.push({
    name,
    description,
    ...(operation ? {operation} : {}),
    secrets,
    t,
    now,
    tolerance_seconds: tolerance,
    body: binary ? body.toString('base64') : body,
    body_encoding: binary ? 'base64' : 'utf8',
    header,
    expected,
  });
}
const sig = (s = S1, t = T, body = BODY) => v1(s, t, body);
const std = (s = S1, t = T, body = BODY) => `t=${t},v1=${sig(s, t, body)}`;

// Valid deliveries.
add('valid-basic', 'An event signed with the only secret, checked at the moment it was signed.', {
  header: std(),
  expected: 'ok',
});
add('valid-pretty-json', 'Pretty-printed JSON: whatever bytes were sent are what is signed.', {
  body: PRETTY_BODY,
  header: std(S1, T, PRETTY_BODY),
  expected: 'ok',
});
add('valid-unicode-body', 'Non-ASCII text is signed as its UTF-8 bytes.', {
  body: UNICODE_BODY,
  header: std(S1, T, UNICODE_BODY),
  expected: 'ok',
});
add('valid-binary-body', 'A body that is not UTF-8 (base64 here) is signed byte for byte.', {
  body: BINARY_BODY,
  header: std(S1, T, BINARY_BODY),
  expected: 'ok',
});
add('valid-empty-body', 'An empty body still has a signature over "<t>.".', {
  body: '',
  header: std(S1, T, ''),
  expected: 'ok',
});
add('valid-trailing-newline', 'A trailing newline is part of the signed bytes.', {
  body: BODY + '\n',
  header: std(S1, T, BODY + '\n'),
  expected: 'ok',
});
add('valid-crlf-body', 'CRLF line ends are signed as sent.', {
  body: 'line one\r\nline two\r\n',
  header: std(S1, T, 'line one\r\nline two\r\n'),
  expected: 'ok',
});
add('valid-whitespace-around-entries', 'Spaces and tabs around entries are ignored.', {
  header: `  t=${T} ,\tv1=${sig()}  `,
  expected: 'ok',
});
add('valid-entries-reversed', 'Entry order does not matter.', {header: `v1=${sig()},t=${T}`, expected: 'ok'});
add('valid-unknown-schemes-ignored', 'v0= and v2= entries are ignored.', {
  header: `t=${T},v0=${'0'.repeat(64)},v1=${sig()},v2=somethingelse`,
  expected: 'ok',
});
add('valid-rotation-second-secret', 'Two secrets (rotation); the second one signed.', {
  secrets: [S1, S2],
  header: std(S2),
  expected: 'ok',
});
add('valid-rotation-second-v1', 'Two v1 entries; the second matches the secret.', {
  header: `t=${T},v1=${sig(S3)},v1=${sig(S1)}`,
  expected: 'ok',
});
add('valid-rotation-first-v1', 'Two v1 entries; the first matches the secret.', {
  header: `t=${T},v1=${sig(S1)},v1=${sig(S3)}`,
  expected: 'ok',
});
add('valid-rotation-both', 'Sender signs with old and new secret; receiver knows only the new one.', {
  secrets: [S2],
  header: `t=${T},v1=${sig(S1)},v1=${sig(S2)}`,
  expected: 'ok',
});
add('valid-bad-v1-beside-good-v1', 'A v1 of the wrong length is skipped when another v1 is good.', {
  header: `t=${T},v1=abc123,v1=${sig()}`,
  expected: 'ok',
});
add('valid-age-300-past', 'Exactly 300 s old: inside the tolerance.', {
  now: T + 300,
  header: std(),
  expected: 'ok',
});
add('valid-age-300-future', 'Exactly 300 s ahead of the receiver: inside the tolerance.', {
  now: T - 300,
  header: std(),
  expected: 'ok',
});
add('valid-custom-tolerance', 'A receiver with a 600 s tolerance accepts a 500 s old delivery.', {
  now: T + 500,
  tolerance: 600,
  header: std(),
  expected: 'ok',
});
add('valid-zero-tolerance-same-second', 'Tolerance 0 accepts only the same second.', {
  tolerance: 0,
  header: std(),
  expected: 'ok',
});

// Failures, one reason at a time.
add('missing-header-empty', 'An empty header value.', {header: '', expected: 'missing_header'});
add('missing-header-blank', 'A header of only whitespace.', {header: '   ', expected: 'missing_header'});
add('malformed-no-equals', 'An entry without "=".', {header: 'garbage', expected: 'malformed_header'});
add('malformed-empty-entry', 'Two commas in a row.', {
  header: `t=${T},,v1=${sig()}`,
  expected: 'malformed_header',
});
add('malformed-trailing-comma', 'A trailing comma leaves an empty entry.', {
  header: `${std()},`,
  expected: 'malformed_header',
});
add('malformed-empty-key', 'An entry with nothing before "=".', {
  header: `=1,${std()}`,
  expected: 'malformed_header',
});
add('malformed-duplicate-t', 'Two t= entries (for example two headers joined by a proxy).', {
  header: `${std()}, t=${T + 1},v1=${sig(S1, T + 1)}`,
  expected: 'malformed_header',
});
add('missing-timestamp', 'A v1 but no t.', {header: `v1=${sig()}`, expected: 'missing_timestamp'});
add('invalid-timestamp-letters', 't is not a number.', {
  header: `t=abc,v1=${sig()}`,
  expected: 'invalid_timestamp',
});
add('invalid-timestamp-negative', 't is negative.', {
  header: `t=-${T},v1=${sig()}`,
  expected: 'invalid_timestamp',
});
add('invalid-timestamp-fraction', 't has a fraction.', {
  header: `t=${T}.5,v1=${sig()}`,
  expected: 'invalid_timestamp',
});
add('invalid-timestamp-exponent', 't in exponent notation.', {
  header: `t=1.7e9,v1=${sig()}`,
  expected: 'invalid_timestamp',
});
add('invalid-timestamp-empty', 't= with no value.', {
  header: `t=,v1=${sig()}`,
  expected: 'invalid_timestamp',
});
add('no-signature-only-t', 'A t but no v1.', {header: `t=${T}`, expected: 'no_signature'});
add('no-signature-only-other-schemes', 'Only schemes the receiver does not know.', {
  header: `t=${T},v0=${sig()},v2=${sig()}`,
  expected: 'no_signature',
});
add('no-signature-short-v1', 'v1 one character short: a length mismatch.', {
  header: `t=${T},v1=${sig().slice(0, 63)}`,
  expected: 'no_signature',
});
add('no-signature-long-v1', 'v1 one character too long.', {
  header: `t=${T},v1=${sig()}0`,
  expected: 'no_signature',
});
add('no-signature-uppercase-hex', 'v1 is lowercase hex by definition; uppercase is not a v1.', {
  header: `t=${T},v1=${sig().toUpperCase()}`,
  expected: 'no_signature',
});
add('no-signature-not-hex', 'v1 of the right length but not hex.', {
  header: `t=${T},v1=${'z'.repeat(64)}`,
  expected: 'no_signature',
});
add('mismatch-wrong-secret', 'Signed with another secret.', {
  header: std(S2),
  expected: 'signature_mismatch',
});
add('mismatch-body-changed', 'One byte of the body differs from what was signed.', {
  body: BODY.replace('stopped', 'stoppee'),
  header: std(),
  expected: 'signature_mismatch',
});
add('mismatch-reserialized-json', 'The body was parsed and re-serialised (pretty) after signing.', {
  body: PRETTY_BODY,
  header: std(),
  expected: 'signature_mismatch',
});
add('mismatch-timestamp-changed', 'The t in the header is not the t that was signed.', {
  header: `t=${T + 1},v1=${sig(S1, T)}`,
  now: T + 1,
  expected: 'signature_mismatch',
});
add(
  'mismatch-secret-without-prefix',
  'Signed with the secret minus "whsec_": the prefix is part of the key.',
  {
    header: `t=${T},v1=${v1(S1.slice('whsec_'.length), T, BODY)}`,
    expected: 'signature_mismatch',
  },
);
add('mismatch-decoded-secret', 'Signed with the base64-decoded secret bytes (another scheme): not svc.', {
  header: `t=${T},v1=${v1(Buffer.from(S1.slice('whsec_'.length), 'base64'), T, BODY)}`,
  expected: 'signature_mismatch',
});
add('mismatch-rotation-none', 'Two secrets, two v1 entries, no pair matches.', {
  secrets: [S1, S2],
  header: `t=${T},v1=${sig(S3)},v1=${sig(S3, T, '')}`,
  expected: 'signature_mismatch',
});
add('mismatch-checked-before-time', 'Wrong signature and stale time: the signature is judged first.', {
  now: T + 3600,
  header: std(S2),
  expected: 'signature_mismatch',
});
add('outside-tolerance-301-past', '301 s old.', {
  now: T + 301,
  header: std(),
  expected: 'timestamp_outside_tolerance',
});
add('outside-tolerance-301-future', '301 s ahead of the receiver.', {
  now: T - 301,
  header: std(),
  expected: 'timestamp_outside_tolerance',
});
add('outside-tolerance-replay-day-old', 'A valid delivery replayed a day later.', {
  now: T + 86400,
  header: std(),
  expected: 'timestamp_outside_tolerance',
});
add('outside-tolerance-zero', 'Tolerance 0 rejects a delivery one second old.', {
  now: T + 1,
  tolerance: 0,
  header: std(),
  expected: 'timestamp_outside_tolerance',
});

// constructEvent: the signature is fine, the body is judged as an event.
add('construct-valid-event', 'A valid signature over a valid event.', {
  operation: 'construct_event',
  header: std(),
  expected: 'ok',
});
add('construct-not-json', 'A valid signature over a body that is not JSON.', {
  operation: 'construct_event',
  body: 'not json',
  header: std(S1, T, 'not json'),
  expected: 'invalid_payload',
});
add('construct-not-an-event', 'A valid signature over JSON that is not an svc event.', {
  operation: 'construct_event',
  body: '{"id":"evt_1","type":"sandbox.deleted"}',
  header: std(S1, T, '{"id":"evt_1","type":"sandbox.deleted"}'),
  expected: 'invalid_payload',
});
add('construct-binary', 'A valid signature over bytes that are not UTF-8.', {
  operation: 'construct_event',
  body: BINARY_BODY,
  header: std(S1, T, BINARY_BODY),
  expected: 'invalid_payload',
});

const document = {
  description:
    'Test vectors for the Svc-Signature header. v1 = lowercase hex HMAC-SHA256, key = UTF-8 bytes of the whole ' +
    'secret string (whsec_ prefix included), message = "<t>" + "." + raw body bytes. A verifier given `secrets`, ' +
    '`header`, the body (decoded per `body_encoding`), `now` (Unix seconds) and `tolerance_seconds` must produce ' +
    '`expected`: "ok" or the failure reason. The signature is judged before the timestamp. `t` is the time ' +
    'the sender signed at; failure cases may carry a different or broken t in the header. `operation` ' +
    '"construct_event" also parses the body as an svc event; otherwise only the signature is verified.',
  reasons: [
    'missing_header',
    'malformed_header',
    'missing_timestamp',
    'invalid_timestamp',
    'no_signature',
    'signature_mismatch',
    'timestamp_outside_tolerance',
    'invalid_payload',
  ],
  vectors,
};
writeFileSync(OUT, JSON.stringify(document, null, 2) + '\n');
process.stdout.write(`wrote ${vectors.length} vectors to fixtures/webhooks/vectors.json\n`);
