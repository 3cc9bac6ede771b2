// Tests that run the built CLI or library (bin/run.js, dist/) refuse a build older than the sources: otherwise
// `npx vitest` after an edit, without `npm run build`, would test yesterday's code and report it as today's.
import {existsSync, readdirSync, statSync} from 'node:fs';
import {join, relative} from 'node:path';
import {fileURLToPath} from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? walk(path) : [path];
  });
}

/** Where the build puts what it makes of a source file, or undefined for files it does not take. */
function builtFrom(root: string, file: string): string | undefined {
  const rel = relative(root, file);
  if (/\.tsx?$/.test(rel) && !rel.endsWith('.d.ts')) return join(root, 'dist', rel.replace(/\.tsx?$/, '.js'));
  // Copied as they are: the migrations and the account page's assets.
  if (
    rel.startsWith(join('src', 'emulator', 'db', 'migrations')) ||
    rel.startsWith(join('src', 'emulator', 'web', 'assets'))
  )
    return join(root, 'dist', rel);
  return undefined;
}

const mtime = (file: string) => statSync(file).mtimeMs;

/**
 * Source files changed since the last build (relative paths), newest first. Every build rewrites the CLI bundle
 * (tsc, by contrast, leaves an output whose text would not change), so its time is the build's time.
 */
export function staleSources(root = ROOT): string[] {
  const bundle = join(root, 'dist', 'cli', 'bundle.cjs');
  const builtAt = existsSync(bundle) ? mtime(bundle) : Number.NEGATIVE_INFINITY;
  const stale: {file: string; time: number}[] = [];
  for (const file of [...walk(join(root, 'src'))]) {
    const out = builtFrom(root, file);
    if (!out) continue;
    const time = mtime(file);
    if (time > builtAt || !existsSync(out)) stale.push({file: relative(root, file), time});
  }
  return stale.sort((a, b) => b.time - a.time).map((s) => s.file);
}

/** What a test of the built CLI says on a stale build: the newest changed sources and the command to rebuild. */
export function staleBuildError(root = ROOT): Error | undefined {
  const stale = staleSources(root);
  if (stale.length === 0) return undefined;
  const named = stale.slice(0, 3).join(', ') + (stale.length > 3 ? `, and ${stale.length - 3} more` : '');
  return new Error(
    `dist/ is older than the sources (${named} changed since the last build). ` +
      'Run `npm run build` first; `npm test` builds, then tests.',
  );
}

let checked: {error: Error | undefined} | undefined;

/** Throws staleBuildError() when there is one; looks once per test file. */
export function assertFreshBuild(): void {
  checked ??= {error: staleBuildError()};
  if (checked.error) throw checked.error;
}
