// The one user-facing error type: what happened, a stable code, an exit code and the next steps.
import {ExitCode, type ExitCodeValue} from './exit-codes.js';

export interface UserErrorOptions {
  /** Stable machine-readable code, printed in `--json` error output. */
  code?: string;
  exitCode?: ExitCodeValue;
  /** Next steps shown to a person under the message. */
  suggestions?: string[];
  cause?: unknown;
}

/**
 * Marks svc's own errors across bundles: the TUI is a bundle of its own (Ink and React), with its own copy of this
 * class, and an error the CLI's bundle made must still be read as svc's own there, not as an unexpected one.
 */
const USER_ERROR = Symbol.for('svc.user-error');

export class UserError extends Error {
  readonly [USER_ERROR] = true;
  readonly code: string;
  readonly exitCode: ExitCodeValue;
  readonly suggestions: string[];

  constructor(message: string, options: UserErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : {cause: options.cause});
    this.name = 'UserError';
    this.code = options.code ?? 'error';
    this.exitCode = options.exitCode ?? ExitCode.error;
    this.suggestions = options.suggestions ?? [];
  }
}

/** An error svc made (a UserError), whichever bundle's copy of the class made it. */
export function isUserError(err: unknown): err is UserError {
  return (
    err instanceof UserError ||
    (err instanceof Error && (err as {[USER_ERROR]?: unknown})[USER_ERROR] === true)
  );
}

export function usageError(message: string, suggestions: string[] = []): UserError {
  return new UserError(message, {code: 'usage', exitCode: ExitCode.usage, suggestions});
}

/** The code of an error that says no emulator runs where a command looked; it exits by the table's "no emulator". */
export const NO_EMULATOR_CODE = 'emulator_not_running';

/** A command needed a running emulator and found none: every such error has this code and exit code. */
export function noEmulatorError(message: string, suggestions: string[] = []): UserError {
  return new UserError(message, {code: NO_EMULATOR_CODE, exitCode: ExitCode.notRunning, suggestions});
}
