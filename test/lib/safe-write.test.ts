// The one way svc writes a file for the user (src/lib/safe-write.ts): owner-only from the first byte, whole or not at
// all, never through a link, never over another user's file, never into a folder others can change (a sticky one
// like /tmp excepted). The concurrent case runs the built module (`npm run build`) in several processes at once.
import {spawn} from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  watch,
  writeFileSync,
} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {pathToFileURL} from 'node:url';
import {afterAll, beforeEach, describe, expect, it} from 'vitest';
import {UserError} from '../../src/lib/errors.js';
import {fileProblem, folderProblem, writeOwnerOnly} from '../../src/lib/safe-write.js';

const posix = process.platform !== 'win32';
const root = process.getuid?.() === 0;
const NOBODY = 65534;
const SECRET = 'whsec_not-in-any-message';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'svc-safe-write-')));
afterAll(() => rmSync(work, {recursive: true, force: true}));
let dir: string;
let n = 0;
beforeEach(() => {
  dir = join(work, `case-${++n}`);
  mkdirSync(dir, {mode: 0o700});
});

/** The UserError a write throws, checked to name the file and never the data. */
function refusal(path: string, data = SECRET, options = {label: '--out'}): UserError {
  let thrown: unknown;
  try {
    writeOwnerOnly(path, data, options);
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(UserError);
  const err = thrown as UserError;
  expect(err.message).toContain(`svc did not write --out ${path}: `);
  expect(`${err.message} ${err.suggestions.join(' ')}`).not.toContain(SECRET);
  expect(err.suggestions.length).toBeGreaterThan(0);
  return err;
}

describe.runIf(posix)('writeOwnerOnly', () => {
  it('writes a new file 0600 whatever the umask, and leaves nothing else behind', () => {
    const file = join(dir, 'secrets.json');
    const umask = process.umask(0);
    try {
      writeOwnerOnly(file, SECRET, {label: '--out'});
    } finally {
      process.umask(umask);
    }
    expect(readFileSync(file, 'utf8')).toBe(SECRET);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['secrets.json']);
  });

  it("replaces the user's own file with a new one, 0600, never writing into the old one", () => {
    const file = join(dir, 'state.json');
    writeFileSync(file, 'old', {mode: 0o644});
    chmodSync(file, 0o644);
    const before = statSync(file).ino;
    writeOwnerOnly(file, 'new', {label: '--out'});
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(file).ino).not.toBe(before);
  });

  it('refuses a symbolic link at the path and leaves what it points to untouched', () => {
    const target = join(dir, 'someone-elses-file');
    writeFileSync(target, 'precious\n', {mode: 0o644});
    const link = join(dir, 'secrets.json');
    symlinkSync(target, link);
    expect(refusal(link).message).toMatch(/it is a symbolic link, and svc never writes through one$/);
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
    expect(statSync(target).mode & 0o777).toBe(0o644);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    // A dangling link too: nothing is created where it points.
    const dangling = join(dir, 'dangling');
    symlinkSync(join(dir, 'would-be-made'), dangling);
    refusal(dangling);
    expect(readdirSync(dir).sort()).toEqual(['dangling', 'secrets.json', 'someone-elses-file']);
  });

  it('refuses a folder or another kind of file at the path', () => {
    mkdirSync(join(dir, 'a-folder'));
    expect(refusal(join(dir, 'a-folder')).message).toMatch(/it is a folder$/);
  });

  it.runIf(root)("refuses another user's file, and leaves it as it was", () => {
    const file = join(dir, 'theirs.json');
    writeFileSync(file, 'theirs', {mode: 0o600});
    chownSync(file, NOBODY, NOBODY);
    expect(refusal(file).message).toMatch(/it belongs to another user$/);
    expect(readFileSync(file, 'utf8')).toBe('theirs');
    expect(statSync(file).uid).toBe(NOBODY);
  });

  it('refuses a folder others can write to, and one that does not exist', () => {
    for (const mode of [0o777, 0o770]) {
      chmodSync(dir, mode);
      expect(refusal(join(dir, 'x.json')).message).toMatch(
        new RegExp(`its folder ${dir} can be written by other users \\(mode 0${mode.toString(8)}\\)$`),
      );
      expect(readdirSync(dir)).toEqual([]);
    }
    expect(refusal(join(dir, 'missing', 'x.json')).message).toMatch(/its folder .* does not exist$/);
  });

  it.runIf(root)('refuses a folder that belongs to another user', () => {
    chownSync(dir, NOBODY, NOBODY);
    expect(refusal(join(dir, 'x.json')).message).toMatch(/its folder .* belongs to another user$/);
  });

  it('writes a new name, or its own file, into a sticky shared folder like /tmp', () => {
    chmodSync(dir, 0o1777);
    const file = join(dir, 'mine.json');
    writeOwnerOnly(file, 'one', {label: '--out'});
    writeOwnerOnly(file, 'two', {label: '--out'});
    expect(readFileSync(file, 'utf8')).toBe('two');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("replaces a link with `replace` (a name of svc's own), never following it", () => {
    const target = join(dir, 'elsewhere');
    writeFileSync(target, 'precious');
    const name = join(dir, 'cache');
    symlinkSync(target, name);
    writeOwnerOnly(name, 'fresh', {label: 'the cache', replace: true});
    expect(readFileSync(target, 'utf8')).toBe('precious');
    expect(lstatSync(name).isFile()).toBe(true);
    expect(readFileSync(name, 'utf8')).toBe('fresh');
  });

  it('leaves one whole file when several processes write it at once', async () => {
    const module = pathToFileURL(join(process.cwd(), 'dist/src/lib/safe-write.js')).href;
    const file = join(dir, 'shared.json');
    const size = 512 * 1024;
    const writers = [...'abcdef'].map(
      (letter) =>
        new Promise<number | null>((resolve) => {
          const child = spawn(
            process.execPath,
            [
              '--input-type=module',
              '-e',
              `const {writeOwnerOnly} = await import(${JSON.stringify(module)});
               for (let i = 0; i < 20; i++) writeOwnerOnly(${JSON.stringify(file)}, ${JSON.stringify(letter)}.repeat(${size}), {label: '--out'});`,
            ],
            {stdio: ['ignore', 'ignore', 'inherit']},
          );
          child.on('close', resolve);
        }),
    );
    // Read each time a file is renamed into place under the name (its writers' temporary files are not looked at):
    // every read finds one writer's whole file.
    const whole = new Map([...'abcdef'].map((letter) => [letter, letter.repeat(size)]));
    const seen = new Set<string>();
    const problems: string[] = [];
    const look = (_event: string, name: string | null) => {
      if (name !== 'shared.json') return;
      try {
        const text = readFileSync(file, 'utf8');
        if (text !== whole.get(text[0] as string))
          problems.push(`a read found ${text.length} of ${size} bytes, from ${new Set(text).size} writers`);
        else seen.add(text[0] as string);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') problems.push(String(err));
      }
    };
    const watcher = watch(dir, look);
    const all = Promise.all(writers).finally(() => watcher.close());
    expect(await all).toEqual([0, 0, 0, 0, 0, 0]);
    expect(problems).toEqual([]);
    expect(seen.size).toBeGreaterThan(0);
    const last = readFileSync(file, 'utf8');
    expect(last.length).toBe(size);
    expect(new Set(last).size).toBe(1);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['shared.json']);
  });
});

describe.runIf(posix)('the trust rule', () => {
  it('takes a folder of the user (or root, when asked) that only its owner can write, sticky ones when asked', () => {
    const uid = process.getuid?.() as number;
    const stats = (mode: number, owner = uid, kind: 'dir' | 'file' = 'dir') =>
      ({
        mode,
        uid: owner,
        isDirectory: () => kind === 'dir',
        isFile: () => kind === 'file',
        isSymbolicLink: () => false,
      }) as unknown as import('node:fs').Stats;
    expect(folderProblem(stats(0o40700))).toBeUndefined();
    expect(folderProblem(stats(0o40755))).toBeUndefined();
    expect(folderProblem(stats(0o40775))).toBe('can be written by other users (mode 0775)');
    expect(folderProblem(stats(0o41777))).toBe('can be written by other users (mode 1777)');
    expect(folderProblem(stats(0o41777, 0), {root: true, sticky: true})).toBeUndefined();
    expect(folderProblem(stats(0o40755, uid + 1))).toBe('belongs to another user');
    expect(folderProblem(stats(0o40755, 0), {root: true}, uid + 1)).toBeUndefined();
    expect(folderProblem(stats(0o100600, uid, 'file'))).toBe('is not a folder');
    expect(fileProblem(stats(0o100600, uid, 'file'))).toBeUndefined();
    expect(fileProblem(stats(0o100620, uid, 'file'))).toBe('can be written by other users (mode 0620)');
    expect(fileProblem(stats(0o100600, uid + 1, 'file'))).toBe('belongs to another user');
  });
});
