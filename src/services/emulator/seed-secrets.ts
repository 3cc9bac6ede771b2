// The secrets a seed left to the emulator (keys and signing secrets it made because the file gave none): written
// to a file of the user's choice (owner-only), shown only on a terminal, and never into a piped log.
import type {StateLoadResult} from '@svc/client';
import {writeOwnerOnly} from '../../lib/safe-write.js';

export interface SeedSecrets {
  svc_emulator_secrets: 1;
  api_url: string;
  orgs: {
    id: string;
    keys: {id: string; name: string; secret: string}[];
    webhooks: {id: string; url: string; secret: string}[];
  }[];
}

/** The secrets the emulator made for a seed, or undefined when it made none. */
export function seedSecrets(apiUrl: string, loaded: StateLoadResult | undefined): SeedSecrets | undefined {
  if (loaded?.kind !== 'seed') return undefined;
  const orgs = loaded.orgs
    .map((o) => ({
      id: o.id,
      keys: o.keys.flatMap((k) => (k.secret ? [{id: k.id, name: k.name, secret: k.secret}] : [])),
      webhooks: o.webhooks.flatMap((w) => (w.secret ? [{id: w.id, url: w.url, secret: w.secret}] : [])),
    }))
    .filter((o) => o.keys.length > 0 || o.webhooks.length > 0);
  return orgs.length > 0 ? {svc_emulator_secrets: 1, api_url: apiUrl, orgs} : undefined;
}

/** The load result without its secrets, for anything that may end up in a log. */
export function withoutSecrets(loaded: StateLoadResult): StateLoadResult {
  if (loaded.kind !== 'seed') return loaded;
  return {
    ...loaded,
    orgs: loaded.orgs.map((o) => ({
      ...o,
      keys: o.keys.map(({secret: _s, ...k}) => k),
      webhooks: o.webhooks.map(({secret: _s, ...w}) => w),
    })),
  };
}

/**
 * Writes the secrets as JSON, owner-only from the first byte and whole (lib/safe-write.ts): never through a link at
 * the path, never over another user's file, never into a folder others can change.
 */
export async function writeSecretsFile(path: string, secrets: SeedSecrets | undefined): Promise<void> {
  const body = `${JSON.stringify(secrets ?? {svc_emulator_secrets: 1, orgs: []}, null, 2)}\n`;
  writeOwnerOnly(path, body, {label: '--secrets-out', code: 'secrets_out_failed'});
}
