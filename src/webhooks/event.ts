// Parses a verified body into a typed event. Hand-written rather than the zod EventSchema: it keeps the
// receiver library free of dependencies (edge bundles) and costs a fraction of the HMAC it follows.
// test/webhooks/event.test.ts checks that it accepts exactly what EventSchema accepts.
// definitions.ts loads nothing, so the lists and id shapes come from their one home at no cost.
import {EVENT_BODY_ID_PATTERNS, EVENT_TYPES} from '../definitions.js';
import type {EventType, SvcEvent} from '../definitions.js';
import {invalidEventError} from './errors.js';
import type {WebhookPayload} from './options.js';

export type WebhookEvent = SvcEvent;
export type {EventType};

/** The event types a delivery can carry (EVENT_TYPES of src/definitions.ts). */
export const WEBHOOK_EVENT_TYPES: readonly EventType[] = EVENT_TYPES;
const EVENT_TYPE_SET: ReadonlySet<unknown> = new Set(EVENT_TYPES);

// fatal: a body that is not UTF-8 was not written by svc, and replacing bytes would hide that.
const utf8 = new TextDecoder('utf-8', {fatal: true});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// The same shapes as EventSchema's (any length of base62 after the prefix). A regex test is a native
// scan, several times faster here than a charCodeAt loop.
const EVENT_ID = EVENT_BODY_ID_PATTERNS.event;
const ORG_ID = EVENT_BODY_ID_PATTERNS.org;

function matches(pattern: RegExp, value: unknown): boolean {
  return typeof value === 'string' && pattern.test(value);
}

export function isWebhookEventType(value: unknown): value is EventType {
  return EVENT_TYPE_SET.has(value);
}

function isOptionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

/**
 * Returns the first problem with `value` as an event, or undefined when it is one. It runs on every
 * delivery, so the checks are written out: no arrays to loop over, no strings built unless one fails.
 */
export function describeEventProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'the JSON is not an object';
  if (!matches(EVENT_ID, value.id)) return '"id" must be a string like "evt_…"';
  // Any type, not only those this version lists: a later service may add types (docs/webhooks.md, "What a later
  // service may send"), and refusing one would fail every attempt of it. isWebhookEventType tells them apart.
  if (typeof value.type !== 'string' || value.type === '') {
    return `"type" must be a string naming the event type (${WEBHOOK_EVENT_TYPES.join(', ')}, or one added later)`;
  }
  if (typeof value.created_at !== 'string') return '"created_at" must be a string';
  if (!matches(ORG_ID, value.org_id)) return '"org_id" must be a string like "org_…"';
  const data = value.data;
  if (!isRecord(data)) return '"data" must be an object';
  const sandbox = data.sandbox;
  if (!isRecord(sandbox)) return '"data.sandbox" must be an object';
  if (typeof sandbox.id !== 'string') return '"data.sandbox.id" must be a string';
  if (typeof sandbox.name !== 'string') return '"data.sandbox.name" must be a string';
  if (typeof sandbox.status !== 'string') return '"data.sandbox.status" must be a string';
  if (typeof sandbox.desired_state !== 'string') return '"data.sandbox.desired_state" must be a string';
  if (!isOptionalString(sandbox.last_error)) return '"data.sandbox.last_error" must be a string when present';
  if (!isOptionalString(sandbox.expires_at)) return '"data.sandbox.expires_at" must be a string when present';
  return undefined;
}

/** Parses and validates an already verified body. Throws WebhookVerificationError('invalid_payload'). */
export function parseWebhookEvent(payload: WebhookPayload): WebhookEvent {
  let text: string;
  try {
    text = typeof payload === 'string' ? payload : utf8.decode(payload);
  } catch (err) {
    throw invalidEventError('it is not valid UTF-8', err);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalidEventError('it is not valid JSON', err);
  }
  const problem = describeEventProblem(value);
  if (problem !== undefined) throw invalidEventError(problem);
  return value as WebhookEvent;
}
