// Results go to stdout, everything meant for a person (progress, hints, warnings) to stderr.
import type {Writable} from 'node:stream';

export interface Io {
  stdout: Writable & {isTTY?: boolean; columns?: number};
  stderr: Writable & {isTTY?: boolean};
  env: NodeJS.ProcessEnv;
}

/** The process's streams, read when asked: the in-process runner (src/cli/run-command.ts) lends them per run. */
export interface Streams extends Io {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/** What text for stdout is drawn for, read as it is written. */
export interface TextView {
  /** stdout is a terminal (a person reads it). */
  isTTY: boolean;
  /** The terminal's width, when it is one. */
  columns: number | undefined;
  env: NodeJS.ProcessEnv;
  /** Colour for a terminal, never with NO_COLOR. */
  paint: Paint;
}

/** Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function colorEnabled(stream: {isTTY?: boolean}, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return Boolean(stream.isTTY);
}

const codes = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  cyan: [36, 39],
  gray: [90, 39],
} as const;

export type Style = keyof typeof codes;
export type Paint = (style: Style, text: string) => string;

export function painter(enabled: boolean): Paint {
  if (!enabled) return (_style, text) => text;
  return (style, text) => `\u001B[${codes[style][0]}m${text}\u001B[${codes[style][1]}m`;
}
