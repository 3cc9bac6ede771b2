// The hand-written event validator must accept exactly what the shared zod EventSchema accepts, except that any
// event type is taken (a later service may add types; the receiver answers them without refusing).
import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {EVENT_TYPES, EventSchema} from '../../src/schemas/index.js';
import {describeEventProblem} from '../../src/webhooks/event.js';
import {parseWebhookEvent, WEBHOOK_EVENT_TYPES, WebhookVerificationError} from '../../src/webhooks/index.js';

const maybe = <T>(good: fc.Arbitrary<T>) =>
  fc.oneof(
    {weight: 15, arbitrary: good as fc.Arbitrary<unknown>},
    {weight: 1, arbitrary: fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer(), fc.string())},
  );
const id = (prefix: string) =>
  fc.oneof(
    {weight: 6, arbitrary: fc.stringMatching(/^[A-Za-z0-9]{1,24}$/).map((s) => `${prefix}_${s}`)},
    fc.constantFrom(`${prefix}_`, `${prefix}_a-b`, `${prefix}_é`, `x${prefix}_abc`, prefix),
  );
const sandboxArb = fc.record(
  {
    id: maybe(id('sbx')),
    name: maybe(fc.string()),
    status: maybe(fc.constantFrom('running', 'stopped', 'error')),
    desired_state: maybe(fc.constant('running')),
    last_error: maybe(fc.string()),
    expires_at: maybe(fc.constant('2026-01-01T00:00:00.000Z')),
  },
  {requiredKeys: ['id', 'name', 'status', 'desired_state']},
);
const eventArb = fc.record(
  {
    id: maybe(id('evt')),
    type: maybe(fc.constantFrom(...EVENT_TYPES, 'sandbox.deleted', 'SANDBOX.READY', '')),
    created_at: maybe(fc.constant('2026-01-01T00:00:00.000Z')),
    org_id: maybe(id('org')),
    data: maybe(fc.record({sandbox: maybe(sandboxArb), extra: fc.integer()}, {requiredKeys: ['sandbox']})),
  },
  {requiredKeys: ['id', 'type', 'created_at', 'org_id', 'data']},
);

describe('parseWebhookEvent', () => {
  it('knows the same event types as the shared schema', () => {
    expect([...WEBHOOK_EVENT_TYPES].sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('accepts exactly the objects EventSchema accepts, with any non-empty string as the type', () => {
    const seen = {accepted: 0, rejected: 0};
    fc.assert(
      fc.property(
        fc.oneof({weight: 9, arbitrary: eventArb}, {weight: 1, arbitrary: fc.anything()}),
        (value) => {
          const accepted = describeEventProblem(value) === undefined;
          const type = (value as {type?: unknown} | null)?.type;
          const asKnown =
            typeof type === 'string' && type !== '' ? {...(value as object), type: EVENT_TYPES[0]} : value;
          expect(accepted).toBe(EventSchema.safeParse(asKnown).success);
          seen[accepted ? 'accepted' : 'rejected']++;
        },
      ),
      {numRuns: 2000},
    );
    // The generator must reach both sides, or the agreement above says little.
    expect(seen.accepted).toBeGreaterThan(20);
    expect(seen.rejected).toBeGreaterThan(20);
  });

  it('parses strings and bytes, and keeps fields it does not know (forward compatible)', () => {
    const event = {
      id: 'evt_abc',
      type: 'sandbox.error',
      created_at: '2026-01-01T00:00:00.000Z',
      org_id: 'org_abc',
      data: {
        sandbox: {id: 'sbx_1', name: 'n', status: 'error', desired_state: 'running', last_error: 'boom'},
      },
      api_version: '2026-01',
    };
    const text = JSON.stringify(event);
    expect(parseWebhookEvent(text)).toEqual(event);
    expect(parseWebhookEvent(new TextEncoder().encode(text))).toEqual(event);
  });

  it('rejects bytes that are not UTF-8 and text that is not JSON with invalid_payload', () => {
    for (const payload of [Uint8Array.from([0xc3, 0x28]), '{', '']) {
      expect(() => parseWebhookEvent(payload)).toThrow(WebhookVerificationError);
      try {
        parseWebhookEvent(payload);
      } catch (err) {
        expect((err as WebhookVerificationError).reason).toBe('invalid_payload');
      }
    }
  });
});
