// The sign step of an attempt: the endpoint's secret, decrypted with the vault key, prepared once as the receiver
// library's WebhookSigner (the one signing rule every receiver checks), and the header of each attempt from it.
import {WebhookSigner} from '@svc/webhooks';
import type {Vault} from '../vault.js';
import type {AttemptResult} from './sender.js';

/** The outcome of an attempt whose secret cannot be read: failed, so the schedule still ends. */
export const UNREADABLE_SECRET: AttemptResult = {
  ok: false,
  statusCode: null,
  error: 'the signing secret could not be decrypted with this vault key',
  durationMs: 0,
  responseBody: null,
};

/** The endpoint's signer, or undefined when its secret cannot be decrypted (the vault key changed). */
export function endpointSigner(vault: Vault, secretCiphertext: string): WebhookSigner | undefined {
  try {
    return new WebhookSigner({secret: vault.decrypt(secretCiphertext)});
  } catch {
    return undefined;
  }
}
