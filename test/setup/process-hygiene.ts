// Test files share their worker process (vitest.config.ts: the `shared` project runs without isolation), so each
// file must leave the process as it found it. This fails the file that changed the environment, the working
// directory, the umask, the global fetch or the exit code, naming what it left behind.
import {afterAll, beforeAll} from 'vitest';

interface ProcessState {
  env: Record<string, string | undefined>;
  cwd: string;
  umask: number;
  fetch: typeof globalThis.fetch;
  exitCode: typeof process.exitCode;
}

function current(): ProcessState {
  return {
    env: {...process.env},
    cwd: process.cwd(),
    umask: process.umask(),
    fetch: globalThis.fetch,
    exitCode: process.exitCode,
  };
}

/** What differs between two states, as lines naming each change (never a value: env may hold secrets). */
function changes(before: ProcessState, after: ProcessState): string[] {
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

let before: ProcessState;
beforeAll(() => {
  before = current();
});
afterAll(() => {
  const left = changes(before, current());
  if (left.length > 0) {
    throw new Error(
      `This file left the shared test process changed; restore it in an afterAll:\n  ${left.join('\n  ')}`,
    );
  }
});
