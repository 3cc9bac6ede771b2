// The example receiver's own test, run exactly as its README says: through `svc emulator exec`.
import {describe, expect, it} from 'vitest';
import {runCli} from '../helpers/run-cli.js';

describe('examples/receiver', () => {
  it('passes its own test against a throwaway emulator with a manual clock', {timeout: 90_000}, async () => {
    // Spawned: `emulator exec` hands its own stdout (the file descriptor) to the test it runs, which only a
    // process of its own can capture.
    const r = await runCli(
      [
        'emulator',
        'exec',
        '--clock',
        'manual',
        '--allow-local-endpoints',
        '--',
        process.execPath,
        '--test',
        'examples/receiver/receiver.test.js',
      ],
      {timeoutMs: 80_000},
    );
    // TAP (Node 20) or the spec reporter (Node 22 and newer), whichever the Node running it picks.
    expect(r.stdout).toMatch(/^(#|ℹ) pass 2$/m);
    expect(r.stdout).toMatch(/^(#|ℹ) fail 0$/m);
    expect(r.code).toBe(0);
  });
});
