// The one sample event: its sandbox is in the state the emulator's state machine leaves a sandbox in for that
// event (whatever state the sandbox was in before), so a receiver tested on samples sees what it will be sent.
import {describe, expect, it} from 'vitest';
import {EVENT_SANDBOX_STATUS, EVENT_TYPES, SANDBOX_STATUSES} from '../../src/definitions.js';
import {forceForEvent, type SandboxState} from '../../src/emulator/sandboxes/transitions.js';
import {EventSchema} from '../../src/schemas/index.js';
import {sampleEvent} from '../../src/schemas/sample-event.js';

const now = new Date('2026-03-01T12:00:00Z');
const running: SandboxState = {
  status: 'running',
  desired_state: 'running',
  last_error: null,
  expires_at: null,
};

describe('sampleEvent', () => {
  for (const type of EVENT_TYPES) {
    it(`leaves the sandbox of ${type} as the emulator's state machine does`, () => {
      const sample = sampleEvent(type, {now});
      expect(EventSchema.parse(sample)).toEqual(sample);
      expect(sample.type).toBe(type);
      const sandbox = sample.data.sandbox;
      const lastError = sandbox.last_error ?? undefined;
      for (const status of SANDBOX_STATUSES.filter((s) => s !== 'deleting')) {
        const moved = forceForEvent({...running, status}, type, {now, lastError});
        expect({status: sandbox.status, desired_state: sandbox.desired_state}).toEqual({
          status: moved.status,
          desired_state: moved.desired_state,
        });
        // The status a shaped event must keep (`svc trigger --set data.sandbox.status=…`) is this one too.
        expect(moved.status).toBe(EVENT_SANDBOX_STATUS[type]);
        if (type === 'sandbox.error') expect(moved.last_error).toBe(sandbox.last_error);
        if (type === 'sandbox.expired') expect(moved.expires_at?.toISOString()).toBe(sandbox.expires_at);
      }
    });
  }

  it('takes the ids and the sandbox fields it is given', () => {
    const first = sampleEvent('sandbox.stopped', {now});
    const sample = sampleEvent('sandbox.stopped', {now, id: first.id, sandbox: {name: 'mine'}});
    expect(sample.id).toBe(first.id);
    expect(sample.data.sandbox.name).toBe('mine');
    expect(sample.created_at).toBe(now.toISOString());
  });
});
