// Text for an XML document (the JUnit reports CI reads): one escaping rule for every document svc writes.

/**
 * Text as XML 1.0 can hold it: the five special characters escaped, and characters XML 1.0 does not allow at all
 * (most control characters, lone surrogates, U+FFFE and U+FFFF) replaced with U+FFFD, since no escape can carry them.
 * Tabs and newlines in attributes become character references, so a parser keeps them as they were.
 */
export function xmlText(value: string, attribute = false): string {
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0) as number;
    if (char === '&') out += '&amp;';
    else if (char === '<') out += '&lt;';
    else if (char === '>') out += '&gt;';
    else if (attribute && char === '"') out += '&quot;';
    else if (attribute && char === "'") out += '&apos;';
    else if (attribute && (code === 0x9 || code === 0xa || code === 0xd))
      out += `&#x${code.toString(16).toUpperCase()};`;
    else if (code === 0x9 || code === 0xa || code === 0xd) out += char;
    else if (code < 0x20 || (code >= 0xd800 && code <= 0xdfff) || code === 0xfffe || code === 0xffff)
      out += '\uFFFD';
    else out += char;
  }
  return out;
}
