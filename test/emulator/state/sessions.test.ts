// Sessions follow their people: a reset, or an import that replaces the state without the person, ends their
// account page sessions at once, on PGlite (which keeps looked-up sessions in memory) and PostgreSQL alike.
// A real cookie over HTTP, as a browser sends it.
// Backends: PGlite keeps looked-up sessions in memory while PostgreSQL reads them each time: ending them must hold on both.
import {afterAll, beforeAll, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {accountClient, signIn} from '../../helpers/account-client.js';
import {EMULATOR_BACKENDS} from '../../helpers/emulator-backends.js';
import {describeEachBackend} from '../../helpers/requirements.js';

describeEachBackend(EMULATOR_BACKENDS, 'on $name', (backend) => {
  let emu: RunningEmulator;
  let dispose: () => Promise<void> = async () => {};
  const logs: string[] = [];
  beforeAll(async () => {
    const opened = await backend.options();
    dispose = opened.dispose;
    emu = await startEmulator({...opened.options, port: 0, clock: 'manual', log: (l) => logs.push(l)});
  });
  afterAll(async () => {
    await emu?.stop();
    await dispose();
  });

  /** A person signed in, whose session the page has already served (and so may hold in memory). */
  async function signedIn(email: string) {
    const c = accountClient(new URL(emu.accountUrl).origin);
    expect((await signIn(c, email, logs)).status).toBe(303);
    expect((await c.request('/account/keys')).status).toBe(200);
    expect((await c.request('/account/keys')).status).toBe(200);
    return c;
  }

  it('ends an open session at reset', async () => {
    const c = await signedIn('reset@example.com');
    await emu.control.resetState();
    const after = await c.request('/account/keys');
    expect(after.status).toBe(401);
    expect(after.text).toContain('Sign in');
  });

  it('ends the session of a person a replacing import removes, and a person it keeps signs in again', async () => {
    const staying = await signedIn('staying@example.com');
    const snapshot = await emu.exportState();
    const leaving = await signedIn('leaving@example.com');
    await emu.control.importState({source: 'before.json', document: snapshot, mode: 'replace'});
    expect((await leaving.request('/account/keys')).status).toBe(401);
    // Sessions are not part of a snapshot: the person is back, but must sign in again.
    expect((await staying.request('/account/keys')).status).toBe(401);
    const again = await signedIn('staying@example.com');
    expect((await again.request('/account/keys')).status).toBe(200);
  });
});
