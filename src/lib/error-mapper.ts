// The one place where any error a command meets becomes what a person (or a script) sees: a message, a stable
// code, the next steps and the exit code. Libraries (the API client, the emulator's control client, the
// receiver library) throw errors that say what happened; the CLI's own conventions are applied here only.
import type {Errors} from '@oclif/core';
import {
  ApiUrlError,
  DEFAULT_API_URL,
  isLoopbackHost,
  ApiError,
  EmulatorControlError,
  ForbiddenError,
  NetworkError,
  RateLimitedError,
} from '@svc/client';
import {ERROR_STATUS} from '../definitions.js';
// The receiver library's entry without node:crypto: its errors are the same classes, and a command that verifies
// nothing never loads the crypto module.
import {isWebhookVerificationError} from '@svc/webhooks/web';
import {isUserError, UserError} from './errors.js';
import {ExitCode, type ExitCodeValue} from './exit-codes.js';
import {portArg} from './hints.js';

/** The code of an error svc did not expect: a bug, shown with a way to see where it happened. */
export const INTERNAL_ERROR_CODE = 'internal';
/** The codes of the errors that say the API or emulator could not be reached or did not answer. */
export const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'network_error',
  'unreachable',
  'timeout',
  'system_error',
]);
/** Set to anything but empty or 0 to print stacks, like `--debug`. */
export const DEBUG_ENV = 'SVC_DEBUG';

/** The exit code that goes with an HTTP status: 401 and 403 have their own, anything else is an error. */
export function exitCodeForStatus(status: number | undefined): ExitCodeValue {
  if (status === ERROR_STATUS.unauthorized) return ExitCode.unauthorized;
  if (status === ERROR_STATUS.forbidden) return ExitCode.forbidden;
  return ExitCode.error;
}

/**
 * Next steps only the calling command knows, by error code: the limit of keys is met (`conflict`), so revoke
 * one. They follow the mapper's own steps; the message is never touched.
 */
export type StepsByCode = Readonly<Partial<Record<string, readonly string[]>>>;

/** Turns anything thrown into the error a person sees, with the caller's steps for its code. Never throws. */
export function toUserError(err: unknown, steps: StepsByCode = {}): UserError {
  const mapped = mapError(err);
  const more = steps[mapped.code];
  if (!more || more.length === 0) return mapped;
  return new UserError(mapped.message, {
    code: mapped.code,
    exitCode: mapped.exitCode,
    suggestions: [...mapped.suggestions, ...more],
    cause: mapped.cause ?? err,
  });
}

function mapError(err: unknown): UserError {
  if (isUserError(err)) return err;
  if (isOclifError(err)) return fromOclif(err);
  if (err instanceof ApiError) return fromApi(err);
  if (err instanceof EmulatorControlError) {
    return new UserError(err.message, {code: err.code, exitCode: exitCodeForStatus(err.status), cause: err});
  }
  if (isWebhookVerificationError(err)) {
    return new UserError(`Invalid webhook (${err.reason}): ${err.message}`, {code: err.reason, cause: err});
  }
  const system = fromSystem(err);
  if (system) return system;
  if (err instanceof Error && err.name === 'AbortError') {
    return new UserError('cancelled', {code: 'cancelled', cause: err});
  }
  return internalError(err);
}

/** An error nothing above recognises: a bug in svc, not a mistake of the user. */
export function internalError(err: unknown): UserError {
  const detail = err instanceof Error ? err.message : String(err);
  return new UserError(`internal error: ${oneLine(detail) || 'no message'}`, {
    code: INTERNAL_ERROR_CODE,
    exitCode: ExitCode.error,
    suggestions: ['This is a bug in svc. Run the command again with --debug to see where it happened'],
    cause: err,
  });
}

export function isInternal(err: UserError): boolean {
  return err.code === INTERNAL_ERROR_CODE;
}

/** True when `--debug` is among the arguments (read raw: a parse error happens before flags exist) or SVC_DEBUG is set. */
export function debugEnabled(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  const fromEnv = env[DEBUG_ENV];
  if (fromEnv !== undefined && fromEnv !== '' && fromEnv !== '0') return true;
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--debug');
}

/** The stack of an error and of each cause under it, for `--debug`. */
export function debugReport(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current !== undefined && depth < 5; depth++) {
    const text =
      current instanceof Error ? (current.stack ?? `${current.name}: ${current.message}`) : String(current);
    parts.push(depth === 0 ? text : `Caused by: ${text}`);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join('\n');
}

/**
 * oclif's errors carry `oclif` (their exit code). Told apart by that, not by class: the screens map errors here
 * too, and loading oclif for a class check would put it in the TUI's bundle.
 */
function isOclifError(err: unknown): err is Errors.CLIError {
  return err instanceof Error && typeof (err as {oclif?: unknown}).oclif === 'object';
}

const OCLIF_HEADER = /^The following errors? occurred:$/;
const OCLIF_HELP = /^See more help with --help$/;

/**
 * oclif's parse errors in svc's words: one sentence, without oclif's own header and help line ("The following
 * error occurred: … See more help with --help"), flags spelled as they are typed.
 */
function oclifSentence(message: string): {text: string; pointedToHelp: boolean} {
  const lines = message
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const text = lines
    .filter((line) => !OCLIF_HEADER.test(line) && !OCLIF_HELP.test(line))
    .map((line) => line.replace(/^Missing required flag ([\w-]+)$/, 'missing required flag --$1'))
    .join('; ')
    // A flag's own parse refused its value: `Parsing --clock; must be …` reads `--clock must be …`.
    .replace(/^Parsing (--[\w-]+); /, '$1 ');
  return {text: text || message, pointedToHelp: lines.some((line) => OCLIF_HELP.test(line))};
}

// oclif's own parse errors (unknown flag, missing argument, bad option value) carry exit 2.
function fromOclif(err: Errors.CLIError): UserError {
  const usage = err.oclif?.exit === ExitCode.usage;
  const {text, pointedToHelp} = oclifSentence(err.message);
  return new UserError(text, {
    code: usage ? 'usage' : 'error',
    exitCode: usage ? ExitCode.usage : ExitCode.error,
    suggestions: pointedToHelp ? ['Run the command with --help to see its flags'] : [],
    cause: err,
  });
}

function fromApi(err: ApiError): UserError {
  // A refused address is a mistake in how svc was called (--api-url or SVC_API_URL): a usage error.
  const exitCode = err instanceof ApiUrlError ? ExitCode.usage : exitCodeForStatus(err.status);
  return new UserError(err.message, {code: err.code, exitCode, suggestions: apiNextSteps(err), cause: err});
}

const CHECK_ADDRESS = 'Check the API address (--api-url or SVC_API_URL)';

function apiNextSteps(err: ApiError): string[] {
  switch (err.code) {
    case 'invalid_api_url':
      return [
        'pass an address like https://api.svc.invalid or http://127.0.0.1:4010 (--api-url or SVC_API_URL)',
      ];
    case 'unauthorized':
      // A rejection explained by where its key came from already names the command to run: said once.
      return /svc login|SVC_API_KEY/.test(err.message)
        ? []
        : ['Run `svc login` with a new key, or set SVC_API_KEY to a valid one'];
    case 'forbidden':
      return err instanceof ForbiddenError
        ? [`Open ${err.accountUrl} to create or revoke keys and webhook endpoints`]
        : [];
    case 'rate_limited':
      // After repeated failures an address is locked out, good keys included: the key may well be right.
      return err instanceof RateLimitedError && err.url !== undefined && isLoopbackUrl(err.url)
        ? [
            'This address had too many failed authentications (a test asserting 401s, say), so every key from it is refused for now; end the lockout with `svc emulator limiter reset`',
          ]
        : [
            'This address had too many failed authentications, so every key from it is refused for now, good ones too: wait, then check the key if it is refused again',
          ];
    case 'vault_unavailable':
      return ['For the emulator: start it without --no-vault-key'];
    case 'network_error':
      if (err instanceof NetworkError && isLoopbackUrl(err.url))
        return [
          `Is the emulator running? \`svc emulator status\`; start it again with \`svc emulator start${portArg(err.url)}\``,
        ];
      // (A key with no address never gets this far in a build without a default: nothing is sent.)
      return keyWithoutAddress(err)
        ? [
            `SVC_API_KEY is set without SVC_API_URL, so svc tried the service's address, ${DEFAULT_API_URL}. For an emulator, name its address too: SVC_API_URL=http://127.0.0.1:4010 (or --api-url)`,
          ]
        : ['Check your network connection and the API address (--api-url or SVC_API_URL)'];
    case 'unexpected_redirect':
      return [CHECK_ADDRESS];
    case 'invalid_response':
      return ['Check that the API address points at an svc API (--api-url or SVC_API_URL)'];
    default:
      return err.status !== undefined && err.status >= 500
        ? ['The service had a problem; try again shortly']
        : [];
  }
}

/** A key from the environment sent to the default address because no address was named with it. */
function keyWithoutAddress(err: ApiError, env: NodeJS.ProcessEnv = process.env): boolean {
  return (
    err instanceof NetworkError &&
    DEFAULT_API_URL !== undefined &&
    err.url.startsWith(DEFAULT_API_URL) &&
    Boolean(env.SVC_API_KEY?.trim()) &&
    !env.SVC_API_URL
  );
}

function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}

/**
 * Failures of the machine rather than of svc: a file that cannot be read or written (the credentials file, a
 * data dir, a payload file), a port in use, a database that does not answer. Their message already names the
 * path or address; what to do next depends on which.
 */
function fromSystem(err: unknown): UserError | undefined {
  if (!(err instanceof Error)) return undefined;
  const {code, syscall, path} = err as NodeJS.ErrnoException;
  if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code) || typeof syscall !== 'string') return undefined;
  const suggestions =
    typeof path === 'string'
      ? [`Check that ${path} exists and that you may read and write it`]
      : code === 'EADDRINUSE'
        ? ['Pass another --port (0 picks a free one)']
        : [];
  return new UserError(oneLine(err.message), {code: 'system_error', suggestions, cause: err});
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
