// The error of a seed or snapshot that cannot be loaded: every problem, each named by the file, the path in it
// and the rule broken. Nothing of such a file is written.
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

export class StateFileError extends OperationError {
  constructor(
    readonly source: string,
    problems: readonly Problem[],
  ) {
    const lines = problems.map((p) => `  ${source}: ${p.field ? `${p.field}: ` : ''}${p.message}`);
    super(
      'invalid_request',
      `${source} was not loaded (nothing was written):\n${lines.join('\n')}`,
      problems.map((p) => ({
        field: p.field,
        message: `${source}: ${p.field ? `${p.field}: ` : ''}${p.message}`,
      })),
    );
    this.name = 'StateFileError';
  }
}
