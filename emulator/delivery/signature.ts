// Signs an attempt with the project's own signer, so sender and receivers share one definition (contract §3).
import {signPayload} from '../../src/webhooks/verify.js';

/** The `Svc-Signature` header value for one attempt at unix time `t` (seconds). */
export function signatureHeader(secret: string, t: number, body: string): string {
  return signPayload({secret, payload: body, timestamp: t});
}
