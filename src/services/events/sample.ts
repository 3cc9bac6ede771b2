// `svc events sample TYPE`: a valid body of one event type, with fresh ids, as svc would post it.
import {newId} from '../../emulator/ids.js';
import type {EventType} from '../../definitions.js';
import {eventSchemaFor, type SvcEvent} from '../../schemas/index.js';

/** The sandbox each event type describes, as the emulator's state machine leaves it. */
const SANDBOX_STATE: Record<EventType, {status: string; desired_state: string; last_error?: string}> = {
  'sandbox.ready': {status: 'running', desired_state: 'running'},
  'sandbox.stopped': {status: 'stopped', desired_state: 'stopped'},
  'sandbox.error': {status: 'error', desired_state: 'running', last_error: 'the sandbox failed to start'},
  'sandbox.expired': {status: 'deleting', desired_state: 'deleted'},
};

export interface EventSampleOptions {
  type: EventType;
  now: Date;
}

export function eventSample(options: EventSampleOptions): SvcEvent {
  const createdAt = options.now.toISOString();
  const body = {
    id: newId('evt'),
    type: options.type,
    created_at: createdAt,
    org_id: newId('org'),
    data: {
      sandbox: {
        id: newId('sbx'),
        name: 'sample-sandbox',
        ...SANDBOX_STATE[options.type],
        // An expired sandbox has the expiry that passed.
        ...(options.type === 'sandbox.expired' ? {expires_at: createdAt} : {}),
      },
    },
  };
  // The sample is checked against the very schema `svc events schema` prints.
  return eventSchemaFor(options.type).parse(body);
}
