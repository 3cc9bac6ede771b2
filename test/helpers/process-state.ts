// What a test file may change in the process it shares with others, read and compared (test/setup/process-hygiene.ts).

export interface ProcessState {
  env: Record<string, string | undefined>;
  cwd: string;
  umask: number;
  fetch: typeof globalThis.fetch;
  exitCode: typeof process.exitCode;
}

export function processState(): ProcessState {
  return {
    env: {...process.env},
    cwd: process.cwd(),
    umask: process.umask(),
    fetch: globalThis.fetch,
    exitCode: process.exitCode,
  };
}

/** What differs between two states, as lines naming each change (never a value: env may hold secrets). */
export function processChanges(before: ProcessState, after: ProcessState): string[] {
  const out: string[] = [];
  for (const name of new Set([...Object.keys(before.env), ...Object.keys(after.env)])) {
    if (before.env[name] !== after.env[name]) out.push(`process.env.${name} changed`);
  }
  if (before.cwd !== after.cwd) out.push(`the working directory changed to ${after.cwd}`);
  if (before.umask !== after.umask)
    out.push(`the umask changed from ${before.umask.toString(8)} to ${after.umask.toString(8)}`);
  if (before.fetch !== after.fetch) out.push('globalThis.fetch was replaced');
  if (before.exitCode !== after.exitCode) out.push(`process.exitCode was set to ${after.exitCode}`);
  return out;
}
