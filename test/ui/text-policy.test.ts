// The one text policy every surface shows outside text through (src/definitions.ts displayText): judged on every
// class of code point, and on the hostile strings a probe used.
import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {CONTROL_CHARACTER, displayText, INVISIBLE_CHARACTER} from '../../src/definitions.js';

/** What may reach a terminal, a log or a page from outside text, given the mode. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const unsafeIn = (shown: string, multiline: boolean) =>
  [...shown].filter((ch) => UNSAFE.test(ch) && !(multiline && (ch === '\n' || ch === '\t')));

/** Every class that matters: C0, DEL, C1, format (bidi, zero-width, tags), separators, surrogates, and the rest. */
const codePointClasses = fc.oneof(
  fc.integer({min: 0x00, max: 0x1f}),
  fc.constant(0x7f),
  fc.integer({min: 0x80, max: 0x9f}),
  fc.constantFrom(0x061c, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x2060, 0xfeff, 0x00ad),
  fc.integer({min: 0x202a, max: 0x202e}),
  fc.integer({min: 0x2066, max: 0x2069}),
  fc.integer({min: 0xe0000, max: 0xe007f}),
  fc.constantFrom(0x2028, 0x2029),
  fc.integer({min: 0xd800, max: 0xdfff}),
  fc.integer({min: 0x20, max: 0x7e}),
  fc.integer({min: 0xa0, max: 0x10ffff}),
);
const outsideText = fc
  .array(codePointClasses, {maxLength: 40})
  .map((cps) => cps.map((cp) => String.fromCodePoint(cp)).join(''));

describe('displayText', () => {
  it('lets no control or invisible character through, on one line or several', () => {
    fc.assert(
      fc.property(outsideText, fc.boolean(), (text, multiline) => {
        expect(unsafeIn(displayText(text, {multiline}), multiline)).toEqual([]);
      }),
      {numRuns: 2000},
    );
  });

  it('keeps every other character as it was, in order', () => {
    fc.assert(
      fc.property(outsideText, (text) => {
        const safe = [...text].filter((ch) => !UNSAFE.test(ch)).join('');
        const shown = displayText(text);
        // What is left after taking the escapes and spaces out is the safe text, untouched.
        expect(shown.replace(/\\u\{[0-9a-f]+\}|\\u[0-9a-f]{4}| /g, '')).toBe(safe.replace(/ /g, ''));
      }),
      {numRuns: 1000},
    );
  });

  it('never yields a line break on one line, so a row stays one row', () => {
    fc.assert(
      fc.property(outsideText, (text) => {
        expect(displayText(text)).not.toMatch(/[\n\r\u2028\u2029\u0085]/);
      }),
    );
  });

  it.each([
    ['an 8-bit CSI clearing the screen', '\u009b2J', '\\u009b2J'],
    ['an 8-bit OSC 52 writing the clipboard', '\u009d52;c;cGF3bmVk\u009c', '\\u009d52;c;cGF3bmVk\\u009c'],
    ['a 7-bit title change', '\u001b]0;pwned\u0007', '\\u001b]0;pwned\\u0007'],
    ['an unterminated right-to-left override', 'invoice\u202Efdp.exe', 'invoice\\u202efdp.exe'],
    ['a zero-width space', 'ad\u200bmin', 'ad\\u200bmin'],
    [
      'tag characters (text an agent reads but a person does not see)',
      'ok\u{e0049}\u{e0047}',
      'ok\\u{e0049}\\u{e0047}',
    ],
    ['a lone surrogate', 'a\ud800b', 'a\\ud800b'],
    ['emoji and other scripts', 'déjà vu 東京 🚀 مرحبا', 'déjà vu 東京 🚀 مرحبا'],
  ])('shows %s escaped', (_what, text, shown) => {
    expect(displayText(text)).toBe(shown);
  });

  it('keeps tabs and line feeds in several lines, folding CRLF, and a lone CR is escaped', () => {
    expect(displayText('a\tb\r\nc\rd', {multiline: true})).toBe('a\tb\nc\\u000dd');
    expect(displayText('a\tb\r\nc')).toBe('a b  c');
  });
});

describe('the input rules', () => {
  it('refuse C1 like C0, and invisible characters in names', () => {
    for (let cp = 0x80; cp <= 0x9f; cp++) expect(CONTROL_CHARACTER.test(String.fromCodePoint(cp))).toBe(true);
    for (const ch of ['\u202e', '\u2066', '\u200b', '\u200d', '\ufeff', '\u{e0041}', '\u2028'])
      expect(INVISIBLE_CHARACTER.test(ch), ch.codePointAt(0)?.toString(16)).toBe(true);
    for (const ch of ['a', 'é', '東', '🚀', ' ']) {
      expect(CONTROL_CHARACTER.test(ch) || INVISIBLE_CHARACTER.test(ch)).toBe(false);
    }
  });
});
