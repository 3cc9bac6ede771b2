// The durations the emulator's control surface and its CLI take (`90s`, `10m`, `1h30m`), read one way for both.
const UNITS: Record<string, number> = {ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000};

/** Parses durations like `90s`, `10m`, `3h`, `31d`, `1h30m`. Returns milliseconds, or undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^(\d+(ms|s|m|h|d))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+)(ms|s|m|h|d)/g)) {
    total += Number(amount) * (UNITS[unit as string] as number);
  }
  return Number.isSafeInteger(total) ? total : undefined;
}
