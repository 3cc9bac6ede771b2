// The one error the emulator's operations throw: a contract error code, a message for people, and the fields at fault.
import type {ErrorCode} from '../../src/definitions.js';

export interface Problem {
  field: string;
  message: string;
}

export class OperationError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly problems: Problem[] = [],
  ) {
    super(message);
    this.name = 'OperationError';
  }
}
