// Parses a verified body into a typed event. Hand-written rather than the zod EventSchema: it keeps the
// receiver library free of dependencies (edge bundles) and costs a fraction of the HMAC it follows.
// test/webhooks/event.test.ts checks that it accepts exactly what EventSchema accepts.
import type {EventType, SvcEvent} from '../schemas/index.js';
import {invalidEventError} from './errors.js';
import type {WebhookPayload} from './options.js';

export type WebhookEvent = SvcEvent;
export type {EventType};

/** Same list as EVENT_TYPES in src/schemas, repeated so that importing this module never loads zod. */
export const WEBHOOK_EVENT_TYPES = [
  'sandbox.ready',
  'sandbox.stopped',
  'sandbox.error',
  'sandbox.expired',
] as const satisfies readonly EventType[];

// fatal: a body that is not UTF-8 was not written by svc, and replacing bytes would hide that.
const utf8 = new TextDecoder('utf-8', {fatal: true});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPrefixedId(value: unknown, prefix: string): boolean {
  if (typeof value !== 'string' || value.length <= prefix.length || !value.startsWith(prefix)) return false;
  for (let i = prefix.length; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (!alnum) return false;
  }
  return true;
}

export function isWebhookEventType(value: unknown): value is EventType {
  return (
    value === 'sandbox.ready' ||
    value === 'sandbox.stopped' ||
    value === 'sandbox.error' ||
    value === 'sandbox.expired'
  );
}

/** Returns the first problem with `value` as an event, or undefined when it is one. */
export function describeEventProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'the JSON is not an object';
  if (!isPrefixedId(value.id, 'evt_')) return '"id" must be a string like "evt_…"';
  if (!isWebhookEventType(value.type)) return `"type" must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`;
  if (typeof value.created_at !== 'string') return '"created_at" must be a string';
  if (!isPrefixedId(value.org_id, 'org_')) return '"org_id" must be a string like "org_…"';
  const data = value.data;
  if (!isRecord(data)) return '"data" must be an object';
  const sandbox = data.sandbox;
  if (!isRecord(sandbox)) return '"data.sandbox" must be an object';
  for (const field of ['id', 'name', 'status', 'desired_state'] as const) {
    if (typeof sandbox[field] !== 'string') return `"data.sandbox.${field}" must be a string`;
  }
  for (const field of ['last_error', 'expires_at'] as const) {
    const v = sandbox[field];
    if (v !== undefined && typeof v !== 'string')
      return `"data.sandbox.${field}" must be a string when present`;
  }
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
