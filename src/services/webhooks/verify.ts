// `svc webhooks verify`: checks a saved or captured delivery the way a receiver would, from raw bytes.
import {readFile} from 'node:fs/promises';
import {UserError, usageError} from '../../lib/errors.js';
// A failed check throws WebhookVerificationError; the CLI's error mapper shows its reason as the code.
import {parseWebhookEvent, verifySignature, type WebhookEvent} from '@svc/webhooks';

export const WEBHOOK_SECRET_ENV = 'SVC_WEBHOOK_SECRET';

export interface VerifyWebhookOptions {
  /** From --secret; SVC_WEBHOOK_SECRET in `env` is used when absent. */
  secret?: string;
  env: NodeJS.ProcessEnv;
  /** The Svc-Signature value, or the whole header line as copied from a log (`Svc-Signature: t=…`). */
  header: string;
  /** Read the body from this file; otherwise from `stdin`. */
  payloadFile?: string;
  stdin: NodeJS.ReadableStream & {isTTY?: boolean};
  toleranceSeconds?: number;
  now?: Date;
}

export interface VerifyWebhookResult {
  valid: true;
  event_id: string;
  event_type: string;
  /** The signature's `t`. */
  timestamp: number;
  /** How old the signature is by this machine's clock; negative when it is ahead. */
  age_seconds: number;
  event: WebhookEvent;
}

const HEADER_NAME = /^\s*svc-signature\s*:/i;

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

async function readPayload(options: VerifyWebhookOptions): Promise<Buffer> {
  if (options.payloadFile !== undefined && options.payloadFile !== '-') {
    try {
      return await readFile(options.payloadFile);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new UserError(`Cannot read the payload file ${options.payloadFile}: ${code ?? String(err)}.`, {
        code: 'payload_unreadable',
        suggestions: ['Pass the file holding the raw request body, exactly as received.'],
      });
    }
  }
  if (options.payloadFile === undefined && options.stdin.isTTY) {
    throw usageError('No payload: pass --payload-file FILE or pipe the raw body on stdin.', [
      'Like this: `svc webhooks verify --header "$SIG" --payload-file body.json`',
    ]);
  }
  // Bytes, untouched: decoding or trimming here would change what the signature covers.
  return readAll(options.stdin);
}

/** The signing secret from --secret, else SVC_WEBHOOK_SECRET; a usage error naming both when neither is set. */
export function signingSecretFrom(secret: string | undefined, env: NodeJS.ProcessEnv): string {
  const value = secret ?? env[WEBHOOK_SECRET_ENV];
  if (value === undefined || value === '') {
    throw usageError(`No signing secret: set ${WEBHOOK_SECRET_ENV} (preferred) or pass --secret.`, [
      `export ${WEBHOOK_SECRET_ENV}=whsec_…  # the endpoint's signing secret, shown once when it was created`,
    ]);
  }
  return value;
}

export async function verifyWebhook(options: VerifyWebhookOptions): Promise<VerifyWebhookResult> {
  const secret = signingSecretFrom(options.secret, options.env);
  const header = options.header.replace(HEADER_NAME, '');
  const payload = await readPayload(options);
  const now = options.now ?? new Date();
  const {timestamp} = verifySignature({
    payload,
    header,
    secret,
    toleranceSeconds: options.toleranceSeconds,
    now,
  });
  const event = parseWebhookEvent(payload);
  return {
    valid: true,
    event_id: event.id,
    event_type: event.type,
    timestamp,
    age_seconds: Math.floor(now.getTime() / 1000) - timestamp,
    event,
  };
}
