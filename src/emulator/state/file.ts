// Reads a seed or snapshot file for loading: its text parsed as JSON, or an error that names the file.
import {readFile, stat} from 'node:fs/promises';
import {checkStateDocument} from './document.js';
import {StateFileError} from './state-file-error.js';

/** Larger files are refused unread: a snapshot holds at most 30 days of events and deliveries. */
export const MAX_STATE_FILE_BYTES = 256 * 1024 * 1024;

export async function readStateFile(path: string): Promise<unknown> {
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new StateFileError(path, [{field: '', message: 'is not a file'}]);
    if (info.size > MAX_STATE_FILE_BYTES) {
      throw new StateFileError(path, [
        {field: '', message: `is larger than ${MAX_STATE_FILE_BYTES / 1024 / 1024} MB, the most svc loads`},
      ]);
    }
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof StateFileError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'cannot be read (permission denied)'
          : `cannot be read (${code ?? (err as Error).message})`;
    throw new StateFileError(path, [{field: '', message: why}]);
  }
  const document = YAML_FILE.test(path) ? await parseYaml(text, path) : parseStateText(text, path);
  // Too deep or too large is refused here; anything else is checked with the rest of the file's rules.
  checkStateDocument(document, path);
  return document;
}

/** A seed written by hand may be YAML (`.yaml`, `.yml`); anything else is read as JSON. */
const YAML_FILE = /\.ya?ml$/i;

async function parseYaml(text: string, source: string): Promise<unknown> {
  // Loaded only for a YAML file: most runs never need the parser.
  const {parseDocument} = await import('yaml');
  // prettyErrors: each message starts with `… at line L, column C`; its first line is kept.
  const doc = parseDocument(text, {uniqueKeys: true, prettyErrors: true});
  const error = doc.errors[0];
  if (error) {
    throw new StateFileError(source, [
      {field: '', message: `is not valid YAML: ${error.message.split('\n')[0]?.replace(/:$/, '')}`},
    ]);
  }
  try {
    return doc.toJS({maxAliasCount: MAX_YAML_ALIASES});
  } catch (err) {
    // The parser's guard against an alias bomb: aliases of aliases that would grow without bound.
    if (err instanceof ReferenceError) {
      throw new StateFileError(source, [
        {
          field: '',
          message: `expands its YAML aliases too far (more than ${MAX_YAML_ALIASES} copies of one anchor); write the values out`,
        },
      ]);
    }
    throw err;
  }
}

/** How many copies of each YAML anchor a seed may make: plenty for a hand-written file, never a bomb. */
const MAX_YAML_ALIASES = 100;

export function parseStateText(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new StateFileError(source, [
      {field: '', message: `is not valid JSON: ${jsonErrorAt(text, err as Error)}`},
    ]);
  }
}

/** The parser's complaint at a line and column (1-based), as YAML's errors are told, never a character offset. */
export function jsonErrorAt(text: string, err: Error): string {
  const offset = firstJsonErrorOffset(text);
  const before = text.slice(0, offset).split('\n');
  const line = before.length;
  const column = (before[before.length - 1] ?? '').length + 1;
  const reason = err.message
    // V8 quotes the document around the mistake: a seed may hold secrets, and the place is told below.
    .replace(/, ".*" is not valid JSON$/s, '')
    .replace(/ (in JSON )?at position \d+.*$/s, '')
    .replace(/ in JSON$/, '')
    .replace(/^Unexpected end of JSON input$/, 'the text ends too soon');
  return `${reason} at line ${line}, column ${column}`;
}

/** Where the first syntax error of a JSON text is (a character offset): a scanner of JSON's grammar. */
function firstJsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail();
      i++;
    }
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20) fail();
      if (text[i] === '\\') i++;
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match || match[0] === '' || match[0] === '-') fail();
    i += (match as RegExpExecArray)[0].length;
  };
  const value = (): void => {
    space();
    const ch = text[i];
    if (ch === '{') container('}', true);
    else if (ch === '[') container(']', false);
    else if (ch === '"') string();
    else if (ch === 't') literal('true');
    else if (ch === 'f') literal('false');
    else if (ch === 'n') literal('null');
    else number();
  };
  const container = (close: string, keyed: boolean): void => {
    i++;
    space();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      if (keyed) {
        space();
        if (text[i] !== '"') fail();
        string();
        space();
        if (text[i] !== ':') fail();
        i++;
      }
      value();
      space();
      if (text[i] === ',') i++;
      else if (text[i] === close) {
        i++;
        return;
      } else fail();
    }
  };
  try {
    value();
    space();
    return i < text.length ? i : text.length;
  } catch (at) {
    return typeof at === 'number' ? Math.min(at, text.length) : text.length;
  }
}
