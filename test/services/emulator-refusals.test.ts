// What `svc emulator keys create` and `svc emulator webhooks create` say when the emulator refuses them at a
// limit: the emulator's own message, untouched, and the step that gets past the limit. A real emulator on
// loopback, found by its data dir as the commands find it.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {EmulatorControlError} from '../../src/client/errors.js';
import {MAX_ACTIVE_KEYS_PER_ORG, MAX_ENDPOINTS_PER_ORG} from '../../src/definitions.js';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import type {UserError} from '../../src/lib/errors.js';
import {createKey} from '../../src/services/emulator/keys/create.js';
import {createWebhook} from '../../src/services/emulator/webhooks/create.js';

let em: RunningEmulator;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-refusals-'));
  em = await startEmulator({port: 0, dataDir, allowLocalEndpoints: true});
});
afterAll(async () => {
  await em?.stop();
  if (dataDir) await rm(dataDir, {recursive: true, force: true});
});

/** Makes more until the emulator refuses one (within the limit and one): its own refusal, from its control client. */
async function fillUp(limit: number, make: (i: number) => Promise<unknown>): Promise<EmulatorControlError> {
  for (let i = 0; i <= limit; i++) {
    const err = await make(i).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (err !== undefined) {
      expect(err).toBeInstanceOf(EmulatorControlError);
      return err as EmulatorControlError;
    }
  }
  throw new Error(`no refusal after ${limit + 1}`);
}

const env = {SVC_CONFIG_DIR: join(tmpdir(), 'svc-refusals-config-unused')};

describe('at a limit, the emulator’s message with the way past it', {timeout: 60_000}, () => {
  it('keys: the message as the emulator wrote it, then how to revoke one', async () => {
    const raw = await fillUp(MAX_ACTIVE_KEYS_PER_ORG, (i) => em.control.createKey({name: `k${i}`}));
    const err = (await createKey({name: 'one more', dataDir, env}).catch((e: unknown) => e)) as UserError;
    expect(err.message).toBe(raw.message);
    expect(err.code).toBe('conflict');
    expect(err.suggestions.at(-1)).toMatch(
      /^Revoke a key you no longer use: .*emulator keys revoke.* \(with --data-dir /,
    );
  });

  it('webhooks: the message as the emulator wrote it, then how to delete one', async () => {
    const input = {url: 'http://127.0.0.1:1/more', events: ['sandbox.ready' as const]};
    const raw = await fillUp(MAX_ENDPOINTS_PER_ORG, (i) =>
      em.control.createWebhook({url: `http://127.0.0.1:1/h${i}`, events: ['sandbox.ready']}),
    );
    const err = (await createWebhook({...input, dataDir, env}).catch((e: unknown) => e)) as UserError;
    expect(err.message).toBe(raw.message);
    expect(err.code).toBe('conflict');
    expect(err.suggestions.at(-1)).toMatch(
      /^Delete an endpoint you no longer use: .*emulator webhooks delete/,
    );
  });
});
