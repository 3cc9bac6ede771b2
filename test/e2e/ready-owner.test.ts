// The ready message of `svc emulator start` as a person reads it: the account page's mailbox line says the first
// address to sign in owns the org only while nobody has; started again after someone signed in, it says no more.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {startEmulator} from '../../src/emulator/index.js';
import {accountClient, signIn} from '../helpers/account-client.js';
import {type Spawned, spawnCli, stopProcess} from '../emulator/delivery/processes.js';

let root: string;
let dataDir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-ready-owner-'));
  dataDir = join(root, 'emulator');
  env = {HOME: root, SVC_CONFIG_DIR: join(root, 'config')};
});
afterAll(async () => {
  await rm(root, {recursive: true, force: true});
});

/** Starts `svc emulator start` for a person and returns what it printed up to its mailbox line. */
async function readyMessage(): Promise<string> {
  // Spawned: the start is under test (what it prints when ready), and it runs until a signal.
  const p: Spawned = spawnCli(['emulator', 'start', '--data-dir', dataDir, '--port', '0'], env);
  try {
    await p.line((l) => l.includes('/mailbox'), 60_000);
    return p.stdoutLines.join('\n');
  } finally {
    await stopProcess(p);
  }
}

describe('the ready message and the org’s owner', {timeout: 120_000}, () => {
  it('names the first sign-in as the owner until someone has signed in, then no more', async () => {
    expect(await readyMessage()).toContain('(the first address to sign in owns this org)');

    // Someone signs in meanwhile, through an emulator in this process on the same data dir: its log lines are
    // the mailbox the sign-in reads at once.
    const logs: string[] = [];
    const em = await startEmulator({port: 0, dataDir, log: (l) => logs.push(l)});
    try {
      const person = accountClient(new URL(em.accountUrl).origin);
      expect((await signIn(person, 'owner@example.com', logs)).status).toBe(303);
    } finally {
      await em.stop();
    }

    const again = await readyMessage();
    expect(again).toContain('/mailbox');
    expect(again).not.toContain('owns this org');
  });
});
