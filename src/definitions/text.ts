// One policy for text that comes from outside (names, emails, descriptions, error messages, receivers' answers,
// event bodies): what input refuses, and how every surface shows what it holds. Part of the definitions
// (src/definitions.ts): loads nothing.

/** Short text (names, addresses, descriptions) refuses every control character: C0, DEL and C1 (U+0080-U+009F). */
export const CONTROL_CHARACTER = /\p{Cc}/u;
/** Free text (an error message) may hold tabs and line breaks, and no other control character. */
export const LINE_CONTROL_CHARACTER = /(?![\t\n\r])\p{Cc}/u;
/**
 * Characters that reorder or hide the text around them: format characters (bidi overrides and isolates, zero-width
 * spaces and joiners, the BOM, tag characters), line and paragraph separators and lone surrogates. Names,
 * emails and descriptions refuse them; an unterminated U+202E would reverse the rest of a row wherever it is shown.
 */
export const INVISIBLE_CHARACTER = /[\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** The rule a text from outside keeps: a short text (a name) or free text (`multiline`: an error message). */
export interface TextRule {
  max: number;
  /** Tabs and line breaks are allowed (longer free text such as an error message). */
  multiline?: boolean;
}

/**
 * Why a (trimmed, non-empty) text breaks its rule, as the end of a sentence about its field, or undefined when it
 * keeps it: the one rule of every input that takes text (the control surface, the account page's forms, a
 * triggered event's shaped values).
 */
export function textProblem(text: string, rule: TextRule): string | undefined {
  if ((rule.multiline ? LINE_CONTROL_CHARACTER : CONTROL_CHARACTER).test(text)) {
    return 'must not contain control characters';
  }
  // Free text keeps them (it is shown escaped); a name that reorders or hides part of itself is refused.
  if (!rule.multiline && INVISIBLE_CHARACTER.test(text)) {
    return 'must not contain invisible formatting characters (bidi controls such as U+202E, zero-width characters)';
  }
  if (text.length > rule.max) return `must be at most ${rule.max} characters`;
  return undefined;
}

const DISPLAY_UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

const escapeCodePoint = (ch: string): string => {
  const cp = ch.codePointAt(0) as number;
  const hex = cp.toString(16).padStart(4, '0');
  return cp > 0xffff ? `\\u{${hex}}` : `\\u${hex}`;
};

/**
 * Text from outside as shown to a person (terminal, TUI, log, page) or an agent: every control and invisible
 * character is written out as `\uXXXX`, so none can move a cursor, retitle a terminal, reach a clipboard or
 * reorder a row. On one line, tabs and line breaks become spaces; `multiline` keeps tabs and line feeds.
 */
export function displayText(text: string, options: {multiline?: boolean} = {}): string {
  const source = options.multiline ? text.replace(/\r\n/g, '\n') : text;
  return source.replace(DISPLAY_UNSAFE, (ch) => {
    if (ch === '\n' || ch === '\t') return options.multiline ? ch : ' ';
    if (ch === '\r' && !options.multiline) return ' ';
    return escapeCodePoint(ch);
  });
}

/**
 * JSON text as svc writes it for `--json`: every control and invisible character (C1 controls, DEL, bidi
 * overrides, zero-width and tag characters) written as `\uXXXX` (astral ones as their surrogate pair), so a
 * terminal shown the JSON acts on none of them. Parsed, it is the same value. Tabs and line breaks outside strings
 * are the JSON's own whitespace (inside strings JSON.stringify escapes them) and stay.
 */
export function jsonText(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space) ?? 'null';
  return text.replace(DISPLAY_UNSAFE, (ch) => {
    if (ch === '\n' || ch === '\t' || ch === '\r') return ch;
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}
