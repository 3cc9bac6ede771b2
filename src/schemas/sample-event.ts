// The one sample event of each type, shaped as the service sends it and checked against the wire schema: what
// `svc events sample` prints, what `svc webhooks send` posts when no body is given, and the legitimate
// deliveries of `svc webhooks test-receiver`. The sandbox in it is left as the emulator's state machine leaves
// it for that event (test/schemas/sample-event.test.ts holds the two together).
import type {EventType} from '../definitions.js';
import {newId} from '../ids.js';
import {EventSchema, type SandboxSnapshot, type SvcEvent} from './index.js';

export interface SampleEventOptions {
  now?: Date;
  /** The event's id (default: a fresh one). */
  id?: string;
  orgId?: string;
  /** The sandbox the event is about; fields given here replace the sample's. */
  sandbox?: Partial<SandboxSnapshot>;
}

const HOUR_MS = 3_600_000;

/**
 * What the sandbox looks like after the move each event reports: running (for an hour more) after `sandbox.ready`,
 * stopped after `sandbox.stopped`, failed with its last error (still meant to run) after `sandbox.error`, and being
 * deleted, expiring now, after `sandbox.expired`.
 */
export function sampleSandboxState(type: EventType, now: Date): Omit<SandboxSnapshot, 'id' | 'name'> {
  switch (type) {
    case 'sandbox.ready':
      return {
        status: 'running',
        desired_state: 'running',
        expires_at: new Date(now.getTime() + HOUR_MS).toISOString(),
      };
    case 'sandbox.stopped':
      return {status: 'stopped', desired_state: 'stopped'};
    case 'sandbox.error':
      return {
        status: 'error',
        desired_state: 'running',
        last_error: 'the sandbox failed to boot: out of memory',
      };
    case 'sandbox.expired':
      return {status: 'deleting', desired_state: 'deleted', expires_at: now.toISOString()};
  }
}

/** A complete event of `type`, valid by EventSchema, with fresh ids unless given. */
export function sampleEvent(type: EventType, options: SampleEventOptions = {}): SvcEvent {
  const now = options.now ?? new Date();
  const event = {
    id: options.id ?? newId('event'),
    type,
    created_at: now.toISOString(),
    org_id: options.orgId ?? newId('org'),
    data: {
      sandbox: {
        id: newId('sandbox'),
        name: 'sample-sandbox',
        ...sampleSandboxState(type, now),
        ...options.sandbox,
      },
    },
  };
  return EventSchema.parse(event);
}
