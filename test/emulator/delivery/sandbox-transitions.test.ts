// The sandbox state table as a pure function: which moves are allowed and which event each emits.
import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {
  applyAction,
  forceForEvent,
  readyState,
  type SandboxState,
  TransitionError,
} from '../../../src/emulator/sandboxes/transitions.js';
import {EVENT_TYPES, SANDBOX_ACTIONS, SANDBOX_STATUSES} from '../../../src/definitions.js';

const at = (status: SandboxState['status'], extra: Partial<SandboxState> = {}): SandboxState => ({
  status,
  desired_state: status === 'standby' ? 'standby' : 'running',
  last_error: null,
  expires_at: null,
  ...extra,
});

describe('sandbox transitions', () => {
  it('resume and fork end running with sandbox.ready', () => {
    expect(applyAction(at('stopped'), 'resume')).toEqual({state: readyState(null), event: 'sandbox.ready'});
    expect(applyAction(at('error', {last_error: 'x'}), 'resume').state.last_error).toBeNull();
    expect(applyAction(at('running'), 'fork')).toEqual({state: readyState(null), event: 'sandbox.ready'});
    expect(() => applyAction(at('running'), 'resume')).toThrow(TransitionError);
  });

  it('stop, quota exhaustion and the trial disk limit end stopped with sandbox.stopped and no last_error', () => {
    for (const action of ['stop', 'quota-exhausted', 'disk-limit'] as const) {
      for (const from of ['running', 'standby', 'error'] as const) {
        expect(applyAction(at(from, {last_error: 'old'}), action)).toEqual({
          state: {status: 'stopped', desired_state: 'stopped', last_error: null, expires_at: null},
          event: 'sandbox.stopped',
        });
      }
    }
  });

  it('a VM stopping by itself keeps wanting to run and says why in last_error', () => {
    const crash = applyAction(at('running'), 'crash', {lastError: 'out of memory'});
    expect(crash).toEqual({
      state: {status: 'stopped', desired_state: 'running', last_error: 'out of memory', expires_at: null},
      event: 'sandbox.stopped',
    });
    expect(applyAction(at('running'), 'crash').state.last_error).toMatch(/stopped by itself/);
    expect(() => applyAction(at('stopped'), 'crash')).toThrow(TransitionError);
  });

  it('failure from any live state ends in error with sandbox.error', () => {
    for (const from of ['running', 'stopped', 'standby', 'error'] as const) {
      expect(applyAction(at(from), 'fail', {lastError: 'boom'})).toMatchObject({
        state: {status: 'error', last_error: 'boom'},
        event: 'sandbox.error',
      });
    }
  });

  it('standby and wake emit nothing', () => {
    expect(applyAction(at('running'), 'standby')).toEqual({state: at('standby'), event: null});
    expect(applyAction(at('standby'), 'wake')).toEqual({
      state: {...at('standby'), status: 'running', desired_state: 'running'},
      event: null,
    });
    expect(() => applyAction(at('stopped'), 'wake')).toThrow(TransitionError);
  });

  it('expiry needs an expires_at and moves to being deleted with sandbox.expired', () => {
    const expiresAt = new Date('2030-01-01T00:00:00Z');
    expect(applyAction(at('running', {expires_at: expiresAt}), 'expire')).toEqual({
      state: {status: 'deleting', desired_state: 'deleted', last_error: null, expires_at: expiresAt},
      event: 'sandbox.expired',
    });
    expect(() => applyAction(at('running'), 'expire')).toThrow(TransitionError);
  });

  it('nothing moves a sandbox that is being deleted, and every allowed move emits only known events', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SANDBOX_STATUSES),
        fc.constantFrom(...SANDBOX_ACTIONS),
        (status, action) => {
          const from = at(status, {expires_at: new Date(0)});
          let result: ReturnType<typeof applyAction> | undefined;
          try {
            result = applyAction(from, action);
          } catch (err) {
            expect(err).toBeInstanceOf(TransitionError);
          }
          if (status === 'deleting') expect(result).toBeUndefined();
          if (result?.event) expect(EVENT_TYPES).toContain(result.event);
          if (result && (action === 'standby' || action === 'wake')) expect(result.event).toBeNull();
        },
      ),
    );
  });

  it('trigger forces the state each event implies', () => {
    const now = new Date('2030-06-01T00:00:00Z');
    expect(forceForEvent(at('stopped'), 'sandbox.ready', {now})).toEqual(readyState(null));
    expect(forceForEvent(at('running'), 'sandbox.stopped', {now, lastError: 'gone'})).toMatchObject({
      status: 'stopped',
      desired_state: 'running',
      last_error: 'gone',
    });
    expect(forceForEvent(at('running'), 'sandbox.error', {now}).status).toBe('error');
    expect(forceForEvent(at('running'), 'sandbox.expired', {now})).toMatchObject({
      status: 'deleting',
      expires_at: now,
    });
    expect(() => forceForEvent(at('deleting'), 'sandbox.ready', {now})).toThrow(TransitionError);
  });
});
