// The battery `svc webhooks test-receiver` runs: one check per duty the service puts on a receiver (verify
// the HMAC over the raw body in constant time, refuse timestamps more than 300 s away either way, handle each
// event id once, answer 2xx within 10 s without redirects). Every delivery is signed with the receiver
// library's signPayload; the wrong ones are made from right signatures, never by a second HMAC.
import {randomBytes} from 'node:crypto';
import {
  DELIVERY_HEADERS,
  DELIVERY_TIMEOUT_MS,
  type EventType,
  RECEIVER_CHECK_LARGE_BODY_BYTES,
  SIGNATURE_TOLERANCE_SECONDS,
  SIGNING_SECRET_PREFIX,
} from '../../definitions.js';
import {newId} from '../../ids.js';
import type {SvcEvent} from '../../schemas/index.js';
import {signPayload} from '@svc/webhooks';
import {deliveryHeaders, type PostedAnswer} from './post-delivery.js';
import {sampleEvent} from '../../schemas/sample-event.js';
import {type FutureDelivery, futureDeliveries} from './future-deliveries.js';

export type CheckStatus = 'pass' | 'fail' | 'skip';

/**
 * What a check is about: the signature and its header, the timestamp's tolerance, the delivery's own duties
 * (answer in time, repeats, order, size), and what a later service may send (`--future`).
 */
export const RECEIVER_CHECK_GROUPS = ['signature', 'timestamp', 'delivery', 'future'] as const;
export type CheckGroup = (typeof RECEIVER_CHECK_GROUPS)[number];

export interface CheckVerdict {
  id: string;
  group: CheckGroup;
  title: string;
  status: CheckStatus;
  expected: string;
  got: string;
  /** What to change in the receiver, in one sentence; empty when the check passed. */
  fix: string;
}

export interface OutgoingRequest {
  headers: Record<string, string>;
  body: string;
}

export interface CheckContext {
  secret: string;
  post(request: OutgoingRequest): Promise<PostedAnswer>;
  /** This machine's clock, in Unix seconds. */
  nowSeconds(): number;
  /** Resolves at the start of a second, so a check 1 s from the tolerance's edge cannot cross it in transit. */
  startOfSecond(): Promise<void>;
}

export interface ReceiverCheck {
  id: string;
  group: CheckGroup;
  title: string;
  /** What a `future` check sends that today's service does not, quoted with a failure. */
  change?: string;
  /** accept: every delivery of the check must get a 2xx within 10 s; refuse: none may. */
  expect: 'accept' | 'refuse';
  fix: string;
  run(ctx: CheckContext): Promise<PostedAnswer[]>;
}

const TOLERANCE = SIGNATURE_TOLERANCE_SECONDS;
const SIGNATURE = DELIVERY_HEADERS.signature;
/** The signature header as deliveryHeaders keys it (lowercase, as Node sends it). */
const SIGNATURE_HEADER = SIGNATURE.toLowerCase();
const TIMEOUT_S = DELIVERY_TIMEOUT_MS / 1000;

interface Signed {
  event: SvcEvent;
  body: string;
}

function fresh(type: EventType = 'sandbox.ready', options: Parameters<typeof sampleEvent>[1] = {}): Signed {
  const event = sampleEvent(type, options);
  return {event, body: JSON.stringify(event)};
}

/** A delivery of `signed` at `t`; `signature` replaces the Svc-Signature header (null leaves it out). */
function request(
  ctx: CheckContext,
  signed: Signed,
  o: {t?: number; body?: string; signature?: string | null; attempt?: number; deliveryId?: string} = {},
): OutgoingRequest {
  const headers = deliveryHeaders({
    secret: ctx.secret,
    body: signed.body,
    timestamp: o.t ?? ctx.nowSeconds(),
    eventId: signed.event.id,
    eventType: signed.event.type,
    deliveryId: o.deliveryId ?? newId('delivery'),
    attempt: o.attempt,
  });
  if (o.signature === null) delete headers[SIGNATURE_HEADER];
  else if (o.signature !== undefined) headers[SIGNATURE_HEADER] = o.signature;
  return {headers, body: o.body ?? signed.body};
}

/** The right v1 for `body` at `t` (or for another secret), as the library's signer writes it. */
function v1Of(secret: string, t: number, body: string): string {
  return signPayload({secret, payload: body, timestamp: t}).split(',v1=')[1] as string;
}

function otherSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The same value with every object's keys sorted: the same JSON, other bytes. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
  );
}

/** One signed delivery whose Svc-Signature is built from the right parts by `header(t, v1)`. */
function withHeader(header: (t: number, v1: string) => string) {
  return async (ctx: CheckContext) => {
    const signed = fresh();
    const t = ctx.nowSeconds();
    return [await ctx.post(request(ctx, signed, {signature: header(t, v1Of(ctx.secret, t, signed.body))}))];
  };
}

/** One correctly signed delivery whose `t` is `offset` seconds from now (negative: in the past). */
function atOffset(offset: number) {
  return async (ctx: CheckContext) => {
    await ctx.startOfSecond();
    return [await ctx.post(request(ctx, fresh(), {t: ctx.nowSeconds() + offset}))];
  };
}

const VERIFY_RAW =
  'Compute the HMAC over the raw body bytes as received, before any JSON parsing, and compare it with each v1 in constant time.';
const BOTH_WAYS = `Refuse a t more than ${TOLERANCE} s from your clock in both directions: |now - t| > ${TOLERANCE}.`;

const CORE_CHECKS: readonly ReceiverCheck[] = [
  {
    id: 'valid',
    group: 'delivery',
    title: `A valid delivery is accepted (2xx within ${TIMEOUT_S} s)`,
    expect: 'accept',
    fix: `Answer 2xx within ${TIMEOUT_S} s to a delivery whose signature verifies with this secret.`,
    run: async (ctx) => [await ctx.post(request(ctx, fresh()))],
  },
  {
    id: 'body-changed',
    group: 'signature',
    title: 'The body changed by one byte is refused',
    expect: 'refuse',
    fix: VERIFY_RAW,
    run: async (ctx) => {
      const signed = fresh('sandbox.ready', {sandbox: {name: 'sample-sandbox'}});
      const body = signed.body.replace('"name":"sample-sandbox"', '"name":"Sample-sandbox"');
      return [await ctx.post(request(ctx, signed, {body}))];
    },
  },
  {
    id: 'reserialized-whitespace',
    group: 'signature',
    title: 'The same JSON re-serialised with other whitespace is refused',
    expect: 'refuse',
    fix: `${VERIFY_RAW} A body parsed and serialised again is not what was signed.`,
    run: async (ctx) => {
      const signed = fresh();
      return [await ctx.post(request(ctx, signed, {body: JSON.stringify(signed.event, null, 2)}))];
    },
  },
  {
    id: 'reserialized-key-order',
    group: 'signature',
    title: 'The same JSON with its keys in another order is refused',
    expect: 'refuse',
    fix: `${VERIFY_RAW} Do not canonicalise (sort keys) before verifying.`,
    run: async (ctx) => {
      const event = fresh().event;
      // Signed with the keys sorted, sent in the service's order: only a receiver that reorders before checking accepts it.
      const signed = {event, body: JSON.stringify(sortedKeys(event))};
      return [await ctx.post(request(ctx, signed, {body: JSON.stringify(event)}))];
    },
  },
  {
    id: 'wrong-secret',
    group: 'signature',
    title: 'A delivery signed with another secret is refused',
    expect: 'refuse',
    fix: "Verify with this endpoint's signing secret and refuse when no v1 matches.",
    run: async (ctx) => {
      const signed = fresh();
      const t = ctx.nowSeconds();
      return [
        await ctx.post(request(ctx, signed, {signature: `t=${t},v1=${v1Of(otherSecret(), t, signed.body)}`})),
      ];
    },
  },
  {
    id: 'truncated-signature',
    group: 'signature',
    title: 'A truncated v1 (its first 32 hex characters) is refused',
    expect: 'refuse',
    fix: 'Compare the whole 64-character v1 in constant time (crypto.timingSafeEqual); a length mismatch fails.',
    run: withHeader((t, v1) => `t=${t},v1=${v1.slice(0, 32)}`),
  },
  {
    id: 'no-timestamp',
    group: 'signature',
    title: 'A header with no t is refused',
    expect: 'refuse',
    fix: `Refuse a ${SIGNATURE} header without t: the signed message starts with it.`,
    run: withHeader((_t, v1) => `v1=${v1}`),
  },
  {
    id: 'no-signature',
    group: 'signature',
    title: 'A header with no v1 is refused',
    expect: 'refuse',
    fix: `Refuse a ${SIGNATURE} header that carries no v1 entry.`,
    run: withHeader((t) => `t=${t}`),
  },
  {
    id: 'unknown-scheme-only',
    group: 'signature',
    title: 'A header whose only signature is an unknown scheme (v0) is refused',
    expect: 'refuse',
    fix: 'Check only v1 entries and ignore other schemes; a header with no v1 is refused.',
    run: withHeader((t, v1) => `t=${t},v0=${v1}`),
  },
  {
    id: 'garbage-header',
    group: 'signature',
    title: `A ${SIGNATURE} header that cannot be parsed is refused`,
    expect: 'refuse',
    fix: 'Refuse a header that does not parse into t and v1 instead of letting it through.',
    run: withHeader(() => 'this is not a signature'),
  },
  {
    id: 'missing-header',
    group: 'signature',
    title: `A delivery without ${SIGNATURE} is refused`,
    expect: 'refuse',
    fix: `Refuse any request without a ${SIGNATURE} header: anyone can post to the URL.`,
    run: async (ctx) => [await ctx.post(request(ctx, fresh(), {signature: null}))],
  },
  {
    id: 'stale-301',
    group: 'timestamp',
    title: `A signature ${TOLERANCE + 1} s old is refused`,
    expect: 'refuse',
    fix: BOTH_WAYS,
    run: atOffset(-(TOLERANCE + 1)),
  },
  {
    id: 'future-301',
    group: 'timestamp',
    title: `A signature ${TOLERANCE + 1} s ahead is refused`,
    expect: 'refuse',
    fix: BOTH_WAYS,
    run: atOffset(TOLERANCE + 1),
  },
  {
    id: 'stale-299',
    group: 'timestamp',
    title: `A signature ${TOLERANCE - 1} s old is accepted`,
    expect: 'accept',
    fix: `Accept any t within ${TOLERANCE} s of your clock (and keep the clock synchronised with NTP).`,
    run: atOffset(-(TOLERANCE - 1)),
  },
  {
    id: 'future-299',
    group: 'timestamp',
    title: `A signature ${TOLERANCE - 1} s ahead is accepted`,
    expect: 'accept',
    fix: `Accept any t within ${TOLERANCE} s of your clock, ahead as well as behind (clocks drift both ways).`,
    run: atOffset(TOLERANCE - 1),
  },
  {
    id: 'rotation',
    group: 'signature',
    title: 'Two v1 entries of which only the second is right are accepted (secret rotation)',
    expect: 'accept',
    fix: 'Try every v1 entry of the header and accept when any one matches.',
    run: withHeader((t, v1) => `t=${t},v1=${v1Of(otherSecret(), t, 'another body')},v1=${v1}`),
  },
  {
    id: 'duplicate',
    group: 'delivery',
    title: 'The same event delivered twice is answered 2xx both times',
    expect: 'accept',
    fix: 'Keep handled event ids and answer 2xx to a repeat without handling it again (EventDeduplicator).',
    run: async (ctx) => {
      const signed = fresh();
      const deliveryId = newId('delivery');
      const first = await ctx.post(request(ctx, signed, {deliveryId, attempt: 1}));
      return [first, await ctx.post(request(ctx, signed, {deliveryId, attempt: 2}))];
    },
  },
  {
    id: 'out-of-order',
    group: 'delivery',
    title: 'Two events of one sandbox arriving out of order are both accepted',
    expect: 'accept',
    fix: 'Accept events in any order; compare created_at (or fetch the current state) instead of refusing an older one.',
    run: async (ctx) => {
      const now = Date.now();
      const sandbox = {id: newId('sandbox'), name: 'sample-sandbox'};
      const earlier = fresh('sandbox.ready', {now: new Date(now - 60_000), sandbox});
      const later = fresh('sandbox.stopped', {now: new Date(now), sandbox});
      return [await ctx.post(request(ctx, later)), await ctx.post(request(ctx, earlier))];
    },
  },
  {
    id: 'large-body',
    group: 'delivery',
    title: `A large legitimate event (${RECEIVER_CHECK_LARGE_BODY_BYTES / 1024} KiB) is accepted`,
    expect: 'accept',
    fix: `Let the webhook route read bodies of ${RECEIVER_CHECK_LARGE_BODY_BYTES / 1024} KiB and more (express.raw({limit: '1mb'})).`,
    run: async (ctx) => {
      const base = JSON.stringify(sampleEvent('sandbox.error')).length;
      const lastError = `the sandbox failed: ${'x'.repeat(RECEIVER_CHECK_LARGE_BODY_BYTES - base)}`;
      return [await ctx.post(request(ctx, fresh('sandbox.error', {sandbox: {last_error: lastError}})))];
    },
  },
];

/** One delivery of the `future` group, signed with the secret like any other, with its extra headers and entry. */
function futureRequest(ctx: CheckContext, delivery: FutureDelivery): OutgoingRequest {
  const headers = deliveryHeaders({
    secret: ctx.secret,
    body: delivery.body,
    timestamp: ctx.nowSeconds(),
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    deliveryId: delivery.deliveryId,
  });
  if (delivery.signatureEntry) {
    headers[SIGNATURE_HEADER] = `${headers[SIGNATURE_HEADER]},${delivery.signatureEntry}`;
  }
  for (const [name, value] of Object.entries(delivery.headers)) headers[name.toLowerCase()] = value;
  return {headers, body: delivery.body};
}

/** The `future` group: one check per delivery a later service may send (src/services/webhooks/future-deliveries.ts). */
const FUTURE_CHECKS: readonly ReceiverCheck[] = futureDeliveries({now: new Date(0)}).map(
  ({id, title, change, fix}): ReceiverCheck => ({
    id,
    group: 'future',
    title,
    change,
    expect: 'accept',
    fix,
    run: async (ctx) => {
      // Generated again for this run's time; the seed keeps the ids and the change the same.
      const now = new Date(ctx.nowSeconds() * 1000);
      const delivery = futureDeliveries({now}).find((d) => d.id === id) as FutureDelivery;
      return [await ctx.post(futureRequest(ctx, delivery))];
    },
  }),
);

export const RECEIVER_CHECKS: readonly ReceiverCheck[] = [...CORE_CHECKS, ...FUTURE_CHECKS];

export const RECEIVER_CHECK_IDS = RECEIVER_CHECKS.map((c) => c.id);
export const FUTURE_CHECK_IDS = FUTURE_CHECKS.map((c) => c.id);
