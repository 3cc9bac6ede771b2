// Keys that arrive in one read: key repeat on a loaded machine, a slow SSH link or a paste hand the browser
// several keys at once. Ink splits escape sequences apart but passes a run of other characters as one string
// ("\x7f\x7f", "j\r"); this splits that run into one key each, flagged as Ink flags a key read on its own.
import type {Key} from 'ink';

export interface KeyPress {
  input: string;
  key: Key;
}

const ESC = '\u001B';

function plainKey(): Key {
  return {
    upArrow: false,
    downArrow: false,
    leftArrow: false,
    rightArrow: false,
    pageDown: false,
    pageUp: false,
    home: false,
    end: false,
    return: false,
    escape: false,
    ctrl: false,
    shift: false,
    tab: false,
    backspace: false,
    delete: false,
    meta: false,
    super: false,
    hyper: false,
    capsLock: false,
    numLock: false,
  } as Key;
}

/** One character read on its own, as Ink would report it. */
function single(ch: string): KeyPress {
  const key = plainKey();
  if (ch === '\r' || ch === '\n') return {input: '', key: {...key, return: true}};
  // Terminals send DEL (0x7f) for Backspace; some send BS (0x08).
  if (ch === '\u007F' || ch === '\b') return {input: '', key: {...key, backspace: true}};
  if (ch === '\t') return {input: '', key: {...key, tab: true}};
  if (ch === ESC) return {input: '', key: {...key, escape: true, meta: true}};
  const code = ch.codePointAt(0) ?? 0;
  // Ctrl+letter arrives as 0x01-0x1a: Ink reports the letter with ctrl.
  if (code > 0 && code < 0x20) return {input: String.fromCharCode(code + 96), key: {...key, ctrl: true}};
  return {input: ch, key: {...key, shift: /^[A-Z]$/.test(ch)}};
}

/** The keys in what Ink handed over at once; a single key (or an escape sequence) is passed on as it came. */
export function splitKeys(input: string, key: Key): KeyPress[] {
  if (input.startsWith(ESC) || [...input].length <= 1) return [{input, key}];
  return [...input].map(single);
}
