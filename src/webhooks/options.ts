// Option types and their checks, shared by the node:crypto and the WebCrypto verifiers so both behave alike.
// Misuse by the caller (no secret, a negative tolerance) is a TypeError: it is a bug to fix, not a bad request.
import {SIGNATURE_TOLERANCE_SECONDS} from '../definitions.js';
import type {SignatureHeaderInput} from './header.js';

/** The raw body exactly as received. A Buffer is a Uint8Array. */
export type WebhookPayload = string | Uint8Array;

export const DEFAULT_TOLERANCE_SECONDS = SIGNATURE_TOLERANCE_SECONDS;

export interface VerifySignatureOptions {
  /** The raw request body, before any JSON parsing. */
  payload: WebhookPayload;
  /** The `Svc-Signature` request header. */
  header: SignatureHeaderInput;
  /** The endpoint's signing secret (`whsec_…`). */
  secret?: string;
  /** Several signing secrets, during a rotation: any one of them may have produced the signature. */
  secrets?: readonly string[];
  /** Largest accepted distance, in either direction, between `t` and now. Default 300. */
  toleranceSeconds?: number;
  /** The receiver's clock: a Date or Unix seconds. Default: the system clock. */
  now?: Date | number;
}

/** Options of a reusable verifier: the secrets and the tolerance, fixed once. */
export interface WebhookVerifierOptions {
  secret?: string;
  secrets?: readonly string[];
  toleranceSeconds?: number;
}

/** What changes per request when the secrets are fixed in a verifier. */
export interface VerifyRequest {
  payload: WebhookPayload;
  header: SignatureHeaderInput;
  now?: Date | number;
}

export interface VerifiedSignature {
  /** The header's `t` (Unix seconds). */
  timestamp: number;
  /** Which of the given secrets matched (0 with a single `secret`); tells when an old secret can be dropped. */
  secretIndex: number;
}

/** What changes per payload when the secret is fixed in a signer. */
export interface SignRequest {
  payload: WebhookPayload;
  /** Date or Unix seconds. Default: the system clock. */
  timestamp?: Date | number;
}

export interface SignPayloadOptions extends SignRequest {
  secret: string;
}

/** Options of a reusable signer: the secret, fixed once. */
export interface WebhookSignerOptions {
  secret: string;
}

export function secretsOf(options: {secret?: unknown; secrets?: unknown}): readonly string[] {
  const {secret, secrets} = options;
  if (secret !== undefined && secrets !== undefined) {
    throw new TypeError('Pass either `secret` or `secrets`, not both.');
  }
  if (secrets !== undefined) {
    if (!Array.isArray(secrets) || secrets.length === 0) {
      throw new TypeError('`secrets` must be a non-empty array of signing secrets.');
    }
    for (const s of secrets) {
      if (typeof s !== 'string' || s.length === 0) {
        throw new TypeError('Every entry of `secrets` must be a non-empty string.');
      }
    }
    return secrets as readonly string[];
  }
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new TypeError("`secret` must be the endpoint's signing secret, a non-empty string (whsec_…).");
  }
  return [secret];
}

export function toleranceOf(value: unknown): number {
  if (value === undefined) return DEFAULT_TOLERANCE_SECONDS;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new TypeError('`toleranceSeconds` must be a number of seconds, 0 or more.');
  }
  return value;
}

/** Unix seconds, whole: sub-second parts of `now` never decide a boundary case. */
export function unixSeconds(value: Date | number | undefined, name: string): number {
  if (value === undefined) return Math.floor(Date.now() / 1000);
  const seconds = value instanceof Date ? value.getTime() / 1000 : value;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) {
    throw new TypeError(`\`${name}\` must be a valid Date or a number of Unix seconds.`);
  }
  return Math.floor(seconds);
}

export function signingSecretOf(secret: unknown): string {
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new TypeError('`secret` must be a non-empty string (whsec_…).');
  }
  return secret;
}

export function isPayload(payload: unknown): payload is WebhookPayload {
  return typeof payload === 'string' || payload instanceof Uint8Array;
}
