// What every state file must be before its content is read as a seed or a snapshot: a tree of bounded depth
// whose strings are of bounded length and hold no NUL (which no text column can store). Checked wherever a
// document arrives (a file read by the CLI or at start, a body posted to the control route), before anything
// walks it again, so an endless YAML alias or a deep or huge file is refused at once, named by its path.
import {MAX_STATE_FILE_DEPTH, MAX_STATE_FILE_STRING_LENGTH} from '../../definitions.js';
import type {Problem} from '../operation-error.js';
import {formatPath, StateFileError} from './state-file-error.js';

/** At most this many problems are listed; a damaged file can break every row the same way. */
export const MAX_PROBLEMS_LISTED = 50;

/**
 * Refuses a document too deep or with too long a string at once (nothing else should walk it); answers the
 * strings holding NUL, which the caller reports with every other problem of the file.
 */
export function checkStateDocument(document: unknown, source: string): Problem[] {
  const problems: Problem[] = [];
  walk(document, [], problems);
  const fatal = problems.filter((p) => !p.message.includes(NUL_RULE));
  if (fatal.length > 0) throw new StateFileError(source, listed(problems));
  return problems;
}

const NUL_RULE = 'must not contain NUL (U+0000)';

/** The first problems, and how many more there are. */
export function listed(problems: readonly Problem[]): Problem[] {
  if (problems.length <= MAX_PROBLEMS_LISTED) return [...problems];
  const more = problems.length - MAX_PROBLEMS_LISTED;
  return [...problems.slice(0, MAX_PROBLEMS_LISTED), {field: '', message: `and ${more} more problems`}];
}

function walk(value: unknown, path: (string | number)[], problems: Problem[]): void {
  if (problems.length > MAX_PROBLEMS_LISTED) return;
  if (typeof value === 'string') {
    checkString(value, path, problems);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (path.length >= MAX_STATE_FILE_DEPTH) {
    problems.push({
      field: formatPath(path),
      message: `nests deeper than ${MAX_STATE_FILE_DEPTH} levels, which no state file does (a YAML alias that refers to itself?)`,
    });
    return;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) walk(item, [...path, i], problems);
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    if (key.length > MAX_STATE_FILE_STRING_LENGTH || key.includes('\u0000')) {
      problems.push({field: formatPath(path), message: 'has a key that is too long or holds NUL (U+0000)'});
      continue;
    }
    walk(item, [...path, key], problems);
  }
}

function checkString(value: string, path: (string | number)[], problems: Problem[]): void {
  if (value.length > MAX_STATE_FILE_STRING_LENGTH) {
    problems.push({
      field: formatPath(path),
      message: `is ${value.length} characters long; a state file's strings are at most ${MAX_STATE_FILE_STRING_LENGTH}`,
    });
  } else if (value.includes('\u0000')) {
    problems.push({field: formatPath(path), message: NUL_RULE});
  }
}
