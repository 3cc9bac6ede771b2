// What each key does in the delivery browser, apart from the screen it acts on: the app hands in its state and
// its actions, and this decides which action a key is.
import type {Key} from 'ink';
import {sanitize} from '../text.js';

export interface KeyState {
  help: boolean;
  /** The filter line is being typed. */
  editing: boolean;
  /** The current screen's filter text. */
  filter: string;
  /** Lists can be filtered; the detail screen cannot. */
  filterable: boolean;
  /** Rows (or lines) one page moves. */
  page: number;
}

export interface KeyActions {
  quit(): void;
  showHelp(): void;
  hideHelp(): void;
  move(by: number): void;
  open(): void;
  back(): void;
  resend(): void;
  setEditing(on: boolean): void;
  setFilter(value: string | ((current: string) => string)): void;
  clearMessage(): void;
}

/** Acts on one key press (or several typed faster than a frame, which arrive together). */
export function handleKey(input: string, key: Key, state: KeyState, act: KeyActions): void {
  // Keys typed faster than a frame (or held down) arrive together: each is a key of its own.
  if (!state.editing && !state.help && input.length > 1 && !input.startsWith('/')) {
    const plain = Object.fromEntries(Object.keys(key).map((k) => [k, false])) as unknown as Key;
    for (const ch of input) handleKey(ch, plain, state, act);
    return;
  }
  if (state.help) {
    act.hideHelp();
    return;
  }
  if (state.editing) {
    if (key.escape) {
      act.setFilter('');
      act.setEditing(false);
    } else if (key.return) act.setEditing(false);
    else if (key.backspace || key.delete) act.setFilter((current) => current.slice(0, -1));
    else if (key.upArrow) act.move(-1);
    else if (key.downArrow) act.move(1);
    else if (input && !key.ctrl && !key.meta && !key.tab)
      act.setFilter((current) => sanitize(current + input));
    return;
  }
  if (input === 'q') act.quit();
  else if (input === '?') act.showHelp();
  else if (key.upArrow || input === 'k') act.move(-1);
  else if (key.downArrow || input === 'j') act.move(1);
  else if (key.pageUp) act.move(-state.page);
  else if (key.pageDown || input === ' ') act.move(state.page);
  else if (key.home || input === 'g') act.move(-1_000_000);
  else if (key.end || input === 'G') act.move(1_000_000);
  else if (key.return || key.rightArrow || input === 'l') act.open();
  else if (key.escape && state.filter) act.setFilter('');
  else if (key.escape || key.leftArrow || key.backspace || key.delete || input === 'h') act.back();
  else if (input.startsWith('/') && state.filterable) {
    // Typed fast (or pasted), the filter text can arrive with the slash.
    act.setEditing(true);
    act.setFilter(sanitize(input.slice(1)));
    act.clearMessage();
  } else if (input === 'r') act.resend();
}

// ---- Keys read together ------------------------------------------------------------------------------------
// Keys that arrive in one read: key repeat on a loaded machine, a slow SSH link or a paste hand the browser
// several keys at once. Ink splits escape sequences apart but passes a run of other characters as one string
// ("\x7f\x7f", "j\r"); this splits that run into one key each, flagged as Ink flags a key read on its own.

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
