// What some tests need from the machine, each said once: how to tell it is there and how to get it. In the full
// mode (CI=true, or SVC_TEST_FULL=1) a missing one stops the run before any test (test/setup/requirements.ts);
// otherwise the tests that need it are registered as skipped, with the reason in their name, so a report shows
// what did not run and why instead of having fewer tests.
import {execFileSync} from 'node:child_process';
import {existsSync} from 'node:fs';
import {describe, it, type TestContext} from 'vitest';
import {CHROMIUM_PATH} from '../../scripts/chromium-path.js';

/** On in CI and with SVC_TEST_FULL=1: every requirement must be met and nothing is skipped for want of one. */
export const FULL_MODE = process.env.CI === 'true' || process.env.SVC_TEST_FULL === '1';

export {CHROMIUM_PATH};

export interface Requirement {
  name: string;
  /** Why it is missing, or undefined when it is there. */
  missing(): string | undefined;
  /** What to install or set. */
  install: string;
}

function onPath(command: string, args: string[]): string | undefined {
  try {
    execFileSync(command, args, {stdio: 'ignore', timeout: 10_000});
    return undefined;
  } catch {
    return `no working \`${command}\` on PATH`;
  }
}

function once(check: () => string | undefined): () => string | undefined {
  let result: {reason: string | undefined} | undefined;
  return () => {
    result ??= {reason: check()};
    return result.reason;
  };
}

export const POSTGRES: Requirement = {
  name: 'PostgreSQL',
  missing: () => (process.env.SVC_TEST_DATABASE_URL ? undefined : 'SVC_TEST_DATABASE_URL is not set'),
  install:
    'install a PostgreSQL server (apt-get install postgresql), then `source scripts/ci-postgres.sh`: it starts a ' +
    'throwaway one and sets SVC_TEST_DATABASE_URL',
};

export const CHROMIUM: Requirement = {
  name: 'Chromium',
  missing: () => (existsSync(CHROMIUM_PATH) ? undefined : `no Chromium at ${CHROMIUM_PATH}`),
  install:
    'apt-get install chromium-headless-shell (or chromium), or set SVC_CHROMIUM_PATH to a Chromium binary',
};

export const TMUX: Requirement = {
  name: 'tmux',
  missing: once(() => onPath('tmux', ['-V'])),
  install: 'apt-get install tmux',
};

export const OPENSSL: Requirement = {
  name: 'openssl',
  missing: once(() => onPath('openssl', ['version'])),
  install: 'apt-get install openssl',
};

/** Debian's own Python (not a version manager's shim): the docs' receivers in other languages run on it. */
export const PYTHON_PATH = process.env.SVC_PYTHON_PATH ?? '/usr/bin/python3';
export const PYTHON: Requirement = {
  name: 'Python 3',
  missing: () => (existsSync(PYTHON_PATH) ? undefined : `no Python 3 at ${PYTHON_PATH}`),
  install: 'apt-get install python3, or set SVC_PYTHON_PATH to a python3 binary',
};

export const ROOT: Requirement = {
  name: 'root',
  missing: () =>
    process.getuid?.() === 0
      ? undefined
      : 'not running as root (only root can give a folder to another user)',
  install: 'run the suite as root (CI does), e.g. in a container',
};

export const ALL_REQUIREMENTS = [POSTGRES, CHROMIUM, TMUX, OPENSSL, PYTHON, ROOT];

/** Why tests needing these cannot run here, or undefined when they can. */
export function unmet(needs: Requirement[]): string | undefined {
  const reasons = needs.flatMap((r) => {
    const reason = r.missing();
    return reason ? [`needs ${r.name}: ${reason}`] : [];
  });
  return reasons.length > 0 ? reasons.join('; ') : undefined;
}

type SuiteOptions = {timeout?: number};

/**
 * A describe block that runs only where its requirements are met, and is shown skipped, with why, elsewhere.
 * Called as vitest's describe is: (title, body) or (title, options, body).
 */
export function describeNeeding(
  needs: Requirement[],
  title: string,
  ...rest: [() => void] | [SuiteOptions, () => void]
): void {
  const [options, body] = rest.length === 1 ? [{}, rest[0]] : rest;
  const reason = unmet(needs);
  if (reason) describe.skip(`${title} [skipped: ${reason}]`, options, body);
  else describe(title, options, body);
}

/** One test that runs only where its requirements are met, and is shown skipped, with why, elsewhere. */
export function itNeeding(
  needs: Requirement[],
  title: string,
  body: (ctx: TestContext) => Promise<void> | void,
): void {
  const reason = unmet(needs);
  if (reason) it.skip(`${title} [skipped: ${reason}]`, body);
  else it(title, body);
}

/** `describe.each` over backends (PGlite, PostgreSQL…), each skipped with its reason where it cannot run. */
export function describeEachBackend<T extends {name: string; needs?: Requirement[]}>(
  backends: T[],
  title: string,
  body: (backend: T) => void,
  options: SuiteOptions = {},
): void {
  for (const backend of backends)
    describeNeeding(backend.needs ?? [], title.replace('$name', backend.name), options, () => body(backend));
}

/** The full mode's check: every requirement met, or one error listing what is missing and how to get it. */
export function checkFullMode(): void {
  if (!FULL_MODE) return;
  const missing = ALL_REQUIREMENTS.flatMap((r) => {
    const reason = r.missing();
    return reason ? [`  - ${r.name}: ${reason}. To fix: ${r.install}.`] : [];
  });
  if (missing.length === 0) return;
  throw new Error(
    `The full test run (CI=true or SVC_TEST_FULL=1) runs every test, and this machine lacks:\n${missing.join('\n')}\n` +
      'Install what is missing, or run without CI/SVC_TEST_FULL to skip the tests that need it (they show as skipped).',
  );
}

/** The test PostgreSQL's URL; only called by tests registered as needing POSTGRES. */
export function postgresUrl(): string {
  const url = process.env.SVC_TEST_DATABASE_URL;
  if (!url) throw new Error(`SVC_TEST_DATABASE_URL is not set: ${POSTGRES.install}`);
  return url;
}
