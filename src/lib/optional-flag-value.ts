// A flag whose value may be left out (`--race` or `--race 3`), which oclif's parser has no form for: before
// parsing, a bare `--race` (last, or followed by anything but a whole number) is read as `--race=<default>`.

/** argv with each bare `flag` given `fallback` as its value; nothing after `--` is touched. */
export function withOptionalValue(argv: readonly string[], flag: string, fallback: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    out.push(arg === flag && (next === undefined || !/^\d+$/.test(next)) ? `${flag}=${fallback}` : arg);
  }
  return out;
}
