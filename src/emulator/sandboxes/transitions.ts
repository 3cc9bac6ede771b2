// The sandbox state machine as a pure function: which actions are allowed from which status, what the
// sandbox looks like afterwards, and which event (if any) the move emits.
import type {EventType, SandboxAction, SandboxStatus} from '../../definitions.js';
import {OperationError} from '../operation-error.js';

export interface SandboxState {
  status: SandboxStatus;
  desired_state: string;
  last_error: string | null;
  expires_at: Date | null;
}

export interface Transition {
  state: SandboxState;
  event: EventType | null;
}

/** A move the sandbox's status does not allow: 409 conflict. */
export class TransitionError extends OperationError {
  constructor(message: string) {
    super('conflict', message);
    this.name = 'TransitionError';
  }
}

export const DEFAULT_CRASH_ERROR = 'the VM stopped by itself';

/** A sandbox that just finished being created, resumed or forked. */
export function readyState(expiresAt: Date | null): SandboxState {
  return {status: 'running', desired_state: 'running', last_error: null, expires_at: expiresAt};
}

export function applyAction(
  current: SandboxState,
  action: SandboxAction,
  options: {lastError?: string} = {},
): Transition {
  const {status} = current;
  if (status === 'deleting') throw new TransitionError('the sandbox expired and is being deleted');
  const refuse = (allowed: string): never => {
    throw new TransitionError(`cannot ${action} a sandbox that is ${status} (allowed from: ${allowed})`);
  };
  switch (action) {
    case 'resume':
      if (status !== 'stopped' && status !== 'error') refuse('stopped, error');
      return {state: readyState(current.expires_at), event: 'sandbox.ready'};
    case 'fork':
      // The source is untouched; the fork is a new sandbox that starts out ready.
      return {state: readyState(null), event: 'sandbox.ready'};
    case 'stop':
    case 'quota-exhausted':
    case 'disk-limit':
      if (status === 'stopped') refuse('running, standby, error');
      return {
        state: {...current, status: 'stopped', desired_state: 'stopped', last_error: null},
        event: 'sandbox.stopped',
      };
    case 'crash':
      // The VM stopped on its own: it still wants to run, and last_error says what happened.
      if (status !== 'running') refuse('running');
      return {
        state: {
          ...current,
          status: 'stopped',
          desired_state: 'running',
          last_error: options.lastError || DEFAULT_CRASH_ERROR,
        },
        event: 'sandbox.stopped',
      };
    case 'fail':
      return {
        state: {...current, status: 'error', last_error: options.lastError || current.last_error},
        event: 'sandbox.error',
      };
    case 'standby':
      if (status !== 'running') refuse('running');
      return {state: {...current, status: 'standby', desired_state: 'standby'}, event: null};
    case 'wake':
      if (status !== 'standby') refuse('standby');
      return {state: {...current, status: 'running', desired_state: 'running'}, event: null};
    case 'expire':
      if (!current.expires_at) throw new TransitionError('the sandbox has no expires_at');
      return {state: {...current, status: 'deleting', desired_state: 'deleted'}, event: 'sandbox.expired'};
  }
}

/**
 * `svc trigger`: whatever the sandbox's state, move it to the one the event implies and emit that event.
 * Only a sandbox already being deleted is beyond reach.
 */
export function forceForEvent(
  current: SandboxState,
  type: EventType,
  options: {lastError?: string; now: Date},
): SandboxState {
  if (current.status === 'deleting') throw new TransitionError('the sandbox expired and is being deleted');
  switch (type) {
    case 'sandbox.ready':
      return readyState(current.expires_at);
    case 'sandbox.stopped':
      return options.lastError
        ? {...current, status: 'stopped', desired_state: 'running', last_error: options.lastError}
        : {...current, status: 'stopped', desired_state: 'stopped', last_error: null};
    case 'sandbox.error':
      return {...current, status: 'error', last_error: options.lastError || current.last_error};
    case 'sandbox.expired':
      return {
        ...current,
        status: 'deleting',
        desired_state: 'deleted',
        expires_at:
          current.expires_at && current.expires_at <= options.now ? current.expires_at : options.now,
      };
  }
}
