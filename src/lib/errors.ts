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

export class UserError extends Error {
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

export function usageError(message: string, suggestions: string[] = []): UserError {
  return new UserError(message, {code: 'usage', exitCode: ExitCode.usage, suggestions});
}
