// The maps of the tree (src/README.md, src/emulator/README.md) name files and folders in backticks: each one must
// exist, so a map never sends a reader to a file that moved or never was. A path is read from the map's folder, or
// from the project root (`src/…`, `test/…`, `scripts/…`); a name in a table row is also read in the folder that row
// is about, and in the folders the row named before it (`tui/`: `app.tsx`). A path that climbs (`../x.ts`) is read
// from the map's folder only.
import {existsSync, readFileSync} from 'node:fs';
import {dirname, join, normalize, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const MAPS = ['src/README.md', 'src/emulator/README.md'];

/** Backticked words that look like paths and are not: each with why. */
const NOT_PATHS: Record<string, string> = {
  'emulator.json': 'the runtime file a running emulator writes in its data dir',
  'noun/verb.ts': 'the pattern every command file follows',
};

/** Whether a backticked word is meant as a path of the tree. */
function isPathLike(word: string): boolean {
  if (word in NOT_PATHS) return false;
  // Package names (`@svc/client`, the `svc/client` shorthand), routes (`/v1`) and flags are no paths.
  if (/^(@|svc\/|\/|-)/.test(word)) return false;
  if (!/^(\.\.\/)*[\w.-]+(\/[\w.-]+)*\/?$/.test(word)) return false;
  return word.includes('/') || /\.(tsx?|jsx?|md|sql|json)$/.test(word);
}

interface Named {
  map: string;
  line: number;
  path: string;
  /** Folders (relative to the root) the path may be read in, first match wins. */
  bases: string[];
}

/** Every path a map names, with the folders each may be read in. */
function namedPaths(map: string, text: string, exists: (path: string) => boolean): Named[] {
  const home = dirname(map);
  const found: Named[] = [];
  text.split('\n').forEach((line, index) => {
    const words = [...line.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string);
    const row = line.startsWith('|');
    const rowFolders: string[] = [];
    for (const word of words) {
      if (!isPathLike(word)) continue;
      const climbs = word.startsWith('../');
      const bases = climbs ? [home] : [...(row ? rowFolders : []), home, '.'];
      found.push({map, line: index + 1, path: word, bases});
      if (row && !climbs && word.endsWith('/')) {
        const folder = bases.map((base) => normalize(join(base, word))).find(exists);
        if (folder) rowFolders.push(folder.replace(/\/$/, ''));
      }
    }
  });
  return found;
}

function missing(named: Named[], exists: (path: string) => boolean): string[] {
  return named
    .filter((n) => !n.bases.some((base) => exists(normalize(join(base, n.path)))))
    .map((n) => `${n.map}:${n.line}: \`${n.path}\``);
}

const onDisk = (path: string) => existsSync(join(ROOT, path));

/**
 * Paths a map still names wrongly, each awaiting its fix by whoever keeps that map: `map: path`. Once the map is
 * fixed the test fails until the entry goes too.
 */
const KNOWN_STALE: string[] = [];

describe('the maps of the tree', () => {
  for (const map of MAPS) {
    it(`names only paths that exist: ${map}`, () => {
      const named = namedPaths(map, readFileSync(join(ROOT, map), 'utf8'), onDisk);
      expect(named.length).toBeGreaterThan(40);
      const stale = KNOWN_STALE.filter((entry) => entry.startsWith(`${map}: `));
      const gone = missing(named, onDisk).map((entry) => entry.replace(/:\d+: `(.*)`$/, ': $1'));
      expect(gone, 'paths the map names that do not exist').toEqual(stale);
    });
  }

  it('reads a path from the map, the row and the root, and a climbing one from the map alone', () => {
    const tree = new Set([
      'src/emulator/hash.ts',
      'src/emulator/auth',
      'src/emulator/auth/bearer.ts',
      'src/ui/tui',
      'src/ui/tui/app.tsx',
      'src/ui',
      'src/ids.ts',
    ]);
    const exists = (path: string) => tree.has(path.replace(/\/$/, ''));
    const text = [
      '| `auth/` | bearer parsing (`bearer.ts`), hashing in `../hash.ts` and `hash.ts`, not `gone.ts` |',
      '| `ui/` | the TUI (`tui/`: `app.tsx`) |',
      'Ids come from `src/ids.ts`; `svc/client`, `/v1`, `--json` and `emulator.json` are no paths.',
    ].join('\n');
    expect(missing(namedPaths('src/emulator/README.md', text, exists), exists)).toEqual([
      'src/emulator/README.md:1: `../hash.ts`',
      'src/emulator/README.md:1: `gone.ts`',
      'src/emulator/README.md:2: `ui/`',
      'src/emulator/README.md:2: `tui/`',
      'src/emulator/README.md:2: `app.tsx`',
    ]);
    expect(missing(namedPaths('src/README.md', text, exists), exists)).toEqual([
      'src/README.md:1: `auth/`',
      'src/README.md:1: `bearer.ts`',
      'src/README.md:1: `../hash.ts`',
      'src/README.md:1: `hash.ts`',
      'src/README.md:1: `gone.ts`',
    ]);
  });
});
