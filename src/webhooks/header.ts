// Parses `Svc-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]` by hand: it runs on every delivery,
// so no regexes and no split/trim copies. It keeps each v1 of the right length as a candidate and leaves
// the hex check to the verifiers, which can do it faster natively (Buffer) or while decoding (WebCrypto).
import {
  invalidTimestampError,
  malformedHeaderError,
  missingHeaderError,
  missingTimestampError,
  noSignatureError,
  type WebhookVerificationError,
} from './errors.js';

export interface ParsedSignatureHeader {
  /** `t` as a number of Unix seconds. */
  timestamp: number;
  /** `t` exactly as written in the header: the signed message starts with these characters. */
  timestampText: string;
  /**
   * Every `v1` value of 64 characters, in header order. Only those that are lowercase hex
   * (see isSignatureHex) can match; the verifiers check that.
   */
  signatures: string[];
}

/** What Node gives for `req.headers['svc-signature']`, plus null from `Headers.get()`. */
export type SignatureHeaderInput = string | readonly string[] | null | undefined;

const EQUALS = 61;
const LOWER_T = 116;
const LOWER_V = 118;
const DIGIT_0 = 48;
const DIGIT_1 = 49;
const DIGIT_9 = 57;
const LOWER_A = 97;
const LOWER_F = 102;
/** Above this many digits a timestamp is no longer an exact double, and no sender writes one. */
const MAX_TIMESTAMP_DIGITS = 15;
export const SIGNATURE_HEX_LENGTH = 64;

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

function hexValue(code: number): number {
  if (code >= DIGIT_0 && code <= DIGIT_9) return code - DIGIT_0;
  if (code >= LOWER_A && code <= LOWER_F) return code - LOWER_A + 10;
  return -1;
}

/** Decodes a v1 value: 64 lowercase hex characters to 32 bytes, or undefined when it is not that. */
export function decodeSignatureHex(value: string): Uint8Array | undefined {
  if (value.length !== SIGNATURE_HEX_LENGTH) return undefined;
  const out = new Uint8Array(SIGNATURE_HEX_LENGTH / 2);
  for (let i = 0; i < out.length; i++) {
    const hi = hexValue(value.charCodeAt(2 * i));
    const lo = hexValue(value.charCodeAt(2 * i + 1));
    if (hi < 0 || lo < 0) return undefined;
    out[i] = (hi << 4) | lo;
  }
  return out;
}

export function isSignatureHex(value: string): boolean {
  if (value.length !== SIGNATURE_HEX_LENGTH) return false;
  for (let i = 0; i < value.length; i++) {
    if (hexValue(value.charCodeAt(i)) < 0) return false;
  }
  return true;
}

/**
 * The error for a header whose candidates all failed to match: no_signature when none of them was a
 * well-formed v1 (so nothing could ever have matched), signature_mismatch otherwise.
 */
export function unmatchedError(
  parsed: ParsedSignatureHeader,
  mismatch: () => WebhookVerificationError,
): WebhookVerificationError {
  for (const candidate of parsed.signatures) if (isSignatureHex(candidate)) return mismatch();
  return noSignatureError(parsed.signatures.length, -1);
}

function headerString(header: unknown): string {
  if (typeof header === 'string') return header;
  if (header === undefined || header === null) throw missingHeaderError();
  if (Array.isArray(header)) {
    if (header.length === 0) throw missingHeaderError();
    if (header.length === 1 && typeof header[0] === 'string') return header[0];
    throw malformedHeaderError(
      `the request carried ${header.length} Svc-Signature headers; pass a single header value`,
    );
  }
  throw malformedHeaderError(`expected a string, got ${typeof header}`);
}

/**
 * Reads the header without judging the signature. Throws WebhookVerificationError with reason
 * missing_header, malformed_header, missing_timestamp, invalid_timestamp or no_signature.
 */
export function parseSignatureHeader(input: SignatureHeaderInput): ParsedSignatureHeader {
  const header = headerString(input);
  return parseCanonical(header) ?? parseGeneral(header);
}

/** `t` digits between start and end as a number, or -1 when they are not 1 to 15 decimal digits. */
function parseDigits(header: string, start: number, end: number): number {
  if (end <= start || end - start > MAX_TIMESTAMP_DIGITS) return -1;
  let value = 0;
  for (let i = start; i < end; i++) {
    const code = header.charCodeAt(i);
    if (code < DIGIT_0 || code > DIGIT_9) return -1;
    value = value * 10 + (code - DIGIT_0);
  }
  return value;
}

/**
 * The exact form svc sends, `t=<digits>,v1=<64 characters>`, recognised with a few native scans.
 * Anything else (spaces, other order, several entries) returns undefined and takes the general path,
 * which gives the same answer more slowly.
 */
function parseCanonical(header: string): ParsedSignatureHeader | undefined {
  const comma = header.indexOf(',');
  if (
    comma < 3 ||
    header.length - comma !== SIGNATURE_HEX_LENGTH + 4 ||
    header.charCodeAt(0) !== LOWER_T ||
    header.charCodeAt(1) !== EQUALS ||
    header.charCodeAt(comma + 1) !== LOWER_V ||
    header.charCodeAt(comma + 2) !== DIGIT_1 ||
    header.charCodeAt(comma + 3) !== EQUALS ||
    header.indexOf(',', comma + 1) >= 0
  ) {
    return undefined;
  }
  const timestamp = parseDigits(header, 2, comma);
  if (timestamp < 0) return undefined;
  const signature = header.slice(comma + 4);
  // The general path trims entries; a candidate ending in whitespace must be judged the same way.
  if (isSpace(signature.charCodeAt(SIGNATURE_HEX_LENGTH - 1))) return undefined;
  return {timestamp, timestampText: header.slice(2, comma), signatures: [signature]};
}

function parseGeneral(header: string): ParsedSignatureHeader {
  const length = header.length;
  let tStart = -1;
  let tEnd = -1;
  const signatures: string[] = [];
  let v1Count = 0;
  let firstBadLength = -1;

  let pos = 0;
  while (pos < length && isSpace(header.charCodeAt(pos))) pos++;
  if (pos === length) throw missingHeaderError();
  pos = 0;
  for (;;) {
    let end = header.indexOf(',', pos);
    if (end < 0) end = length;
    let start = pos;
    let stop = end;
    while (start < stop && isSpace(header.charCodeAt(start))) start++;
    while (stop > start && isSpace(header.charCodeAt(stop - 1))) stop--;
    pos = end + 1;

    if (start === stop) {
      throw malformedHeaderError(
        'it has an empty entry (two commas in a row, or a leading or trailing comma)',
      );
    }
    const eq = header.indexOf('=', start);
    if (eq < 0 || eq >= stop) throw malformedHeaderError('an entry has no "="');
    if (eq === start) throw malformedHeaderError('an entry has nothing before its "="');

    const keyLength = eq - start;
    const first = header.charCodeAt(start);
    if (keyLength === 1 && first === LOWER_T) {
      if (tStart >= 0) {
        throw malformedHeaderError(
          'it has more than one "t=" entry (were two Svc-Signature headers joined into one?)',
        );
      }
      tStart = eq + 1;
      tEnd = stop;
    } else if (keyLength === 2 && first === LOWER_V && header.charCodeAt(start + 1) === DIGIT_1) {
      v1Count++;
      if (stop - eq - 1 === SIGNATURE_HEX_LENGTH) signatures.push(header.slice(eq + 1, stop));
      else if (firstBadLength < 0) firstBadLength = stop - eq - 1;
    }
    // Any other scheme (v0=, v2=, …) is ignored so senders can add schemes without breaking receivers.
    if (end === length) break;
  }

  if (tStart < 0) throw missingTimestampError();
  const timestamp = parseDigits(header, tStart, tEnd);
  if (timestamp < 0) throw invalidTimestampError();
  if (signatures.length === 0) throw noSignatureError(v1Count, firstBadLength);
  return {timestamp, timestampText: header.slice(tStart, tEnd), signatures};
}
