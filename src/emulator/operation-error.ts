// The one error type of the emulator's operations: a code of the service, a message for people and, for bad
// input, every problem with the field it is in. http-error.ts turns it into the HTTP answer.
import {ERROR_STATUS, type ErrorCode, type LocalUrlKind, type ProblemCode} from '../definitions.js';

export interface Problem {
  field: string;
  message: string;
  /** Set when a caller may act on the reason (src/definitions.ts PROBLEM_CODES). */
  code?: ProblemCode;
  /** With `local_url`: where the URL points (src/definitions.ts LOCAL_URL_KINDS). */
  kind?: LocalUrlKind;
}

export class OperationError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly problems: readonly Problem[] = [],
  ) {
    super(message);
    this.name = 'OperationError';
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (message: string) => new OperationError('not_found', message);
export const conflict = (message: string) => new OperationError('conflict', message);

/** Bad input: every problem at once, the message naming each field. */
export function invalidInput(problems: readonly Problem[]): OperationError {
  const message = problems.map((p) => (p.field ? `${p.field} ${p.message}` : p.message)).join('; ');
  return new OperationError('invalid_request', message, problems);
}

export const vaultUnavailable = (message: string) => new OperationError('vault_unavailable', message);
