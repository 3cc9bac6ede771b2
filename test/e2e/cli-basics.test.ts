import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {runCli, runCommand} from '../helpers/run-cli.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

describe('svc basics', () => {
  it('prints its version in the oclif format', async () => {
    // Spawned: bin/run.js answers --version itself, before loading the CLI (a start-up fast path).
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^svc/${pkg.version.replaceAll('.', '\\.')} \\S+-\\S+ node-v\\d+`));
  });

  it('answers an unknown command with a usage error and exit code 2', async () => {
    const r = await runCommand(['no-such-command']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not found/i);
  });
});
