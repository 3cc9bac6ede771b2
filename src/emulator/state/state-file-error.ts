// The error of a seed or snapshot that cannot be loaded: every problem, each named by the file, the path in it
// and the rule broken. Nothing of such a file is written.
import type {ErrorCode} from '../../definitions.js';
import {OperationError, type Problem} from '../operation-error.js';

/** A path in a JSON document as people write it: `orgs[0].keys[3].secret`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

export interface StateFileErrorOptions {
  /** Default invalid_request (the file breaks a rule); conflict when its records clash with the emulator's. */
  code?: ErrorCode;
  /** What to do, said after the problems. */
  next?: string;
}

export class StateFileError extends OperationError {
  constructor(
    readonly source: string,
    problems: readonly Problem[],
    options: StateFileErrorOptions = {},
  ) {
    const lines = problems.map((p) => `  ${source}: ${p.field ? `${p.field}: ` : ''}${p.message}`);
    super(
      options.code ?? 'invalid_request',
      `${source} was not loaded (nothing was written):\n${lines.join('\n')}${options.next ? `\n${options.next}` : ''}`,
      problems.map((p) => ({
        field: p.field,
        message: `${source}: ${p.field ? `${p.field}: ` : ''}${p.message}`,
      })),
    );
    this.name = 'StateFileError';
  }
}
