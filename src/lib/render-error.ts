// How an error reads on stderr: what happened, then the next step, each on lines of its own.

/**
 * An error for a person: the statement, then its next steps, each on one line and never wrapped, so a command
 * or flag in them can be copied or pasted whole (the terminal wraps long lines itself). Advice the message
 * already gives is not repeated.
 */
export function renderError(message: string, suggestions: readonly string[]): string {
  const statement = message.replace(/\s+$/, '');
  const lines = [`Error: ${statement}`];
  const said = normalize(statement);
  for (const step of suggestions) {
    if (said.includes(normalize(step))) continue;
    lines.push(`Try this: ${step}`);
  }
  return `${lines.join('\n')}\n`;
}

function normalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`'".;:]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
