// `svc webhooks send`: signs any body (a sample event by default) with a fresh or given timestamp and posts it
// to a receiver with every Svc-* header, as one attempt of the service would; reports what came back.
import {readFile} from 'node:fs/promises';
import {DELIVERY_HEADERS} from '../../definitions.js';
import {UserError, usageError} from '../../lib/errors.js';
import {newId} from '../../ids.js';
import {
  deliveryHeaders,
  parseReceiverUrl,
  type PostedAnswer,
  postDelivery,
  senderSecret,
} from './post-delivery.js';
import {sampleEvent} from '../../schemas/sample-event.js';
import {parseEventType} from '../events/event-type.js';

export interface SendWebhookOptions {
  url: string;
  /** From --secret; SVC_WEBHOOK_SECRET in `env` otherwise. */
  secret?: string;
  env: NodeJS.ProcessEnv;
  /** The sample event's type (default sandbox.ready); a body of your own names its own type. */
  type?: string;
  /** A file with the body to sign, byte for byte, or `-` for stdin. Default: a sample event. */
  data?: string;
  stdin: NodeJS.ReadableStream & {isTTY?: boolean};
  /** The signature's `t`: Unix seconds or an ISO 8601 time. Default: now. */
  timestamp?: string;
  now?: Date;
  timeoutMs?: number;
}

export interface SendWebhookResult extends PostedAnswer {
  url: string;
  event_id: string;
  event_type: string;
  delivery_id: string;
  signature_t: number;
  body_bytes: number;
}

export const DEFAULT_SEND_TYPE = 'sandbox.ready';

/** `--timestamp`: whole Unix seconds, or an ISO 8601 time. */
export function parseTimestamp(text: string): number {
  const trimmed = text.trim();
  if (/^\d{1,15}$/.test(trimmed)) return Number(trimmed);
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  if (Number.isNaN(ms) || ms < 0) {
    throw usageError(`--timestamp ${JSON.stringify(text)} is neither Unix seconds nor an ISO 8601 time`, [
      `Examples: --timestamp ${Math.floor(Date.now() / 1000) - 301} (301 s ago), --timestamp 2026-01-01T00:00:00Z`,
    ]);
  }
  return Math.floor(ms / 1000);
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

async function readBody(options: SendWebhookOptions): Promise<Buffer> {
  const data = options.data as string;
  if (data === '-') {
    if (options.stdin.isTTY) {
      throw usageError('--data - reads the body from stdin, but stdin is a terminal.', [
        'Pipe the body in (`cat event.json | svc webhooks send URL --data -`) or pass --data FILE.',
      ]);
    }
    return readAll(options.stdin);
  }
  try {
    return await readFile(data);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(`Cannot read the body file ${data}: ${code ?? String(err)}.`, {
      code: 'payload_unreadable',
      suggestions: ['Pass a file holding the body to sign, or `-` to read it from stdin.'],
    });
  }
}

/** The event id and type a body of your own announces in its headers, when it is an event; fresh otherwise. */
function idsOf(body: Buffer, fallbackType: string): {eventId: string; eventType: string} {
  try {
    const value = JSON.parse(body.toString('utf8')) as {id?: unknown; type?: unknown};
    return {
      eventId:
        typeof value?.id === 'string'
          ? headerValue('id', DELIVERY_HEADERS.eventId, value.id)
          : newId('event'),
      eventType:
        typeof value?.type === 'string'
          ? headerValue('type', DELIVERY_HEADERS.eventType, value.type)
          : fallbackType,
    };
  } catch (err) {
    if (err instanceof UserError) throw err;
    return {eventId: newId('event'), eventType: fallbackType};
  }
}

/** A header carries printable ASCII only: a line break in it would end the header, and fetch refuses it. */
const HEADER_SAFE = /^[\x20-\x7e]*$/;

function headerValue(field: string, header: string, value: string): string {
  if (HEADER_SAFE.test(value)) return value;
  throw usageError(
    `The body's "${field}" cannot be sent as its ${header} header: it holds a line break, a control character or a character outside printable ASCII.`,
    [
      `Give the event an ${field} of letters, digits and punctuation, or leave "${field}" out of the body to send a fresh one`,
    ],
  );
}

export async function sendWebhook(options: SendWebhookOptions): Promise<SendWebhookResult> {
  const url = parseReceiverUrl(options.url);
  const secret = senderSecret(options.secret, options.env);
  const type = parseEventType(options.type ?? DEFAULT_SEND_TYPE);
  const now = options.now ?? new Date();
  const t =
    options.timestamp === undefined ? Math.floor(now.getTime() / 1000) : parseTimestamp(options.timestamp);

  let body: Buffer;
  let ids: {eventId: string; eventType: string};
  if (options.data === undefined) {
    const event = sampleEvent(type, {now});
    body = Buffer.from(JSON.stringify(event), 'utf8');
    ids = {eventId: event.id, eventType: event.type};
  } else {
    body = await readBody(options);
    ids = idsOf(body, type);
  }
  const deliveryId = newId('delivery');
  const headers = deliveryHeaders({secret, body, timestamp: t, deliveryId, ...ids});
  const answer = await postDelivery(url, {headers, body}, {timeoutMs: options.timeoutMs});
  return {
    url: url.href,
    event_id: ids.eventId,
    event_type: ids.eventType,
    delivery_id: deliveryId,
    signature_t: t,
    body_bytes: body.length,
    ...answer,
  };
}
