// The shared-worker check (test/setup/process-hygiene.ts) names every change a file can leave behind.
import {afterEach, describe, expect, it} from 'vitest';
import {processChanges, processState} from './process-state.js';

describe('processChanges', () => {
  const umask = process.umask();
  const fetch = globalThis.fetch;
  afterEach(() => {
    delete process.env.SVC_HYGIENE_PROBE;
    process.umask(umask);
    globalThis.fetch = fetch;
    process.exitCode = undefined;
  });

  it('finds nothing when the process is as it was', () => {
    expect(processChanges(processState(), processState())).toEqual([]);
  });

  it('names an env var set, changed or removed, and never its value', () => {
    const before = processState();
    process.env.SVC_HYGIENE_PROBE = 'svc_secretvalue';
    const left = processChanges(before, processState());
    expect(left).toEqual(['process.env.SVC_HYGIENE_PROBE changed']);
    expect(left.join()).not.toContain('secretvalue');
  });

  it('names a umask, a replaced fetch and an exit code', () => {
    const before = processState();
    process.umask(0o077);
    globalThis.fetch = (() => Promise.reject(new Error('no'))) as typeof globalThis.fetch;
    process.exitCode = 3;
    expect(processChanges(before, processState())).toEqual([
      `the umask changed from ${umask.toString(8)} to 77`,
      'globalThis.fetch was replaced',
      'process.exitCode was set to 3',
    ]);
  });
});
