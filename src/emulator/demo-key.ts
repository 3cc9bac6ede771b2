// The demo API key of `--demo`: minted once per data dir and printed again at every start, so the key a person
// kept from the ready message goes on working across restarts. Its secret waits in <dataDir>/demo-key (0600,
// beside the vault key and the admin token); the database keeps only its hash, as for every key.
import {readFile} from 'node:fs/promises';
import {join} from 'node:path';
import {API_KEY_SECRET_PATTERN} from '../definitions.js';
import {writeFresh} from '../emulator-layout/runtime.js';
import {hashSecret} from './hash.js';
import type {EmulatorContext} from './context.js';

export const DEMO_KEY_FILE = 'demo-key';
export const DEMO_KEY_CREATOR = 'svc emulator --demo';

export interface DemoKey {
  id: string;
  secret: string;
  /** False when this start minted it: no earlier start had one that still works. */
  reused: boolean;
}

/** The data dir's demo key when it still works (active, not expired, of this org); else a new one. */
export async function demoKey(ctx: EmulatorContext, dataDir: string): Promise<DemoKey> {
  const path = join(dataDir, DEMO_KEY_FILE);
  const kept = (await readFile(path, 'utf8').catch(() => '')).trim();
  if (API_KEY_SECRET_PATTERN.test(kept)) {
    const key = await ctx.repos.keys.findByHash(hashSecret(kept));
    const now = ctx.clock.now();
    if (key && key.orgId === ctx.current.orgId && !key.revokedAt && (!key.expiresAt || key.expiresAt > now)) {
      return {id: key.id, secret: kept, reused: true};
    }
  }
  // A new one; the earlier ones are revoked, so restarts after a lost file never use up the 25-key limit.
  for (const key of await ctx.repos.keys.list(ctx.current.orgId)) {
    if (key.createdBy === DEMO_KEY_CREATOR && !key.revokedAt) {
      await ctx.repos.keys.revoke(key.id, ctx.clock.now());
      ctx.auth.forget(key.id);
    }
  }
  const {key, secret} = await ctx.repos.keys.create({
    orgId: ctx.current.orgId,
    name: 'demo',
    createdBy: DEMO_KEY_CREATOR,
    expires: 'never',
    now: ctx.clock.now(),
  });
  await writeFresh(path, `${secret}\n`);
  return {id: key.id, secret, reused: false};
}
