// Signs attempts by the rule every receiver checks: HMAC-SHA256 keyed with the whole secret string.
import {createHmac, createSecretKey, type KeyObject} from 'node:crypto';
import {signPayload} from '../../src/webhooks/verify.js';

/** The `Svc-Signature` header value for one attempt at unix time `t` (seconds). */
export function signatureHeader(secret: string, t: number, body: string): string {
  return signPayload({secret, payload: body, timestamp: t});
}

export type Signer = (t: number, body: string) => string;

/**
 * signatureHeader for one secret, with the key prepared once: a lane signs every attempt of an endpoint with
 * it, so the secret is not validated and imported again per attempt. Tests hold it to signPayload.
 */
export function signerFor(secret: string): Signer {
  if (typeof secret !== 'string' || secret.length === 0) throw new TypeError('a signing secret is required');
  const key: KeyObject = createSecretKey(Buffer.from(secret, 'utf8'));
  return (t, body) => {
    const text = String(Math.floor(t));
    const v1 = createHmac('sha256', key).update(`${text}.`).update(body).digest('hex');
    return `t=${text},v1=${v1}`;
  };
}
