// The CLI run by a user the system has no passwd entry for, without SHELL: how containers run it under an arbitrary
// uid (Kubernetes' runAsUser, OpenShift). oclif asks the OS for the login shell when SHELL is unset, and that lookup
// throws for such a user: svc must still run. Processes of another user are the point, so the CLI is spawned.
import {mkdtempSync, rmSync} from 'node:fs';
import {chmod} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, expect} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {itNeeding, ROOT} from '../helpers/requirements.js';
import {BIN, runProcess} from '../helpers/run-cli.js';

/** A uid and gid no passwd or group entry names. */
const NOBODY_KNOWN = '54321';
let emu: RunningEmulator;
let home: string;
let secret: string;

beforeAll(async () => {
  emu = await startEmulator({port: 0, inMemory: true});
  secret = (await emu.control.createKey({name: 'container', created_by: 'ops@example.com'})).secret;
  home = mkdtempSync(join(tmpdir(), 'svc-unknown-user-'));
  await chmod(home, 0o777);
});
afterAll(async () => {
  await emu?.stop();
  rmSync(home, {recursive: true, force: true});
});

const asUnknownUser = (args: string[], env: NodeJS.ProcessEnv) =>
  runProcess(
    'setpriv',
    ['--reuid', NOBODY_KNOWN, '--regid', NOBODY_KNOWN, '--clear-groups', process.execPath, ...args],
    {env: {PATH: process.env.PATH, HOME: home, ...env}},
  );

itNeeding([ROOT], 'runs a read for a uid with no passwd entry and no SHELL', async (ctx) => {
  // The tree must be readable by that user (a clone under a private folder is not): then there is nothing to try.
  const reads = await asUnknownUser(['-e', `require('node:fs').accessSync(${JSON.stringify(BIN)})`], {});
  if (reads.code !== 0) ctx.skip();
  const r = await asUnknownUser([BIN, 'org', '--json'], {SVC_API_URL: emu.apiUrl, SVC_API_KEY: secret});
  expect(r.stderr).not.toMatch(/uv_os_get_passwd/);
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({name: 'Emulator org', id: expect.stringMatching(/^org_/)});
});
