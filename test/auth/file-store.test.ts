import {
  chmodSync,
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {FileCredentialStore} from '../../src/auth/file-store.js';
import {newApiKeySecret} from '../../src/emulator/ids.js';
import {UserError} from '../../src/lib/errors.js';

const posix = process.platform !== 'win32';
let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-store-'));
});
afterEach(() => rmSync(root, {recursive: true, force: true}));

const entry = (apiKey: string) => ({
  store: 'file' as const,
  api_key: apiKey,
  stored_at: new Date().toISOString(),
});

describe('the credentials file', () => {
  it.runIf(posix)('is created owner-only: directory 0700, file 0600', async () => {
    const store = new FileCredentialStore({dir: join(root, 'svc')});
    await store.set('https://api.svc.invalid', entry(newApiKeySecret()));
    expect(statSync(join(root, 'svc')).mode & 0o777).toBe(0o700);
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
  });

  it('keeps one key per normalized URL and finds only that one', async () => {
    const store = new FileCredentialStore({dir: root});
    const a = newApiKeySecret();
    const b = newApiKeySecret();
    await store.set('https://api.svc.invalid', entry(a));
    await store.set('http://127.0.0.1:4010', entry(b));
    expect((await store.get('https://api.svc.invalid'))?.api_key).toBe(a);
    expect((await store.get('http://127.0.0.1:4010'))?.api_key).toBe(b);
    expect(await store.get('http://localhost:4010')).toBeUndefined();
    expect(await store.get('__proto__')).toBeUndefined();
    expect(await store.delete('https://api.svc.invalid')).toMatchObject({api_key: a});
    expect(await store.get('https://api.svc.invalid')).toBeUndefined();
  });

  it('leaves no temp files behind', async () => {
    const store = new FileCredentialStore({dir: root});
    for (let i = 0; i < 5; i++) await store.set(`https://h${i}.example`, entry(newApiKeySecret()));
    expect(readdirSync(root)).toEqual(['credentials.json']);
    expect(Object.keys(JSON.parse(readFileSync(store.path, 'utf8')).credentials)).toHaveLength(5);
  });

  it.runIf(posix)(
    'replaces the file whole: a reader of the old file never sees it rewritten in place',
    async () => {
      const store = new FileCredentialStore({dir: root});
      await store.set('https://old.example', entry(newApiKeySecret()));
      const before = readFileSync(store.path, 'utf8');
      // A reader that opened the file before the write keeps the old file, complete, when the new one is renamed
      // over it; a write in place (truncate, then write) would change what that reader sees under it.
      const reader = openSync(store.path, 'r');
      try {
        await store.set('https://new.example', entry(newApiKeySecret()));
        expect(readFileSync(reader, 'utf8')).toBe(before);
        expect(fstatSync(reader).ino).not.toBe(statSync(store.path).ino);
      } finally {
        closeSync(reader);
      }
      expect(Object.keys(JSON.parse(readFileSync(store.path, 'utf8')).credentials)).toEqual([
        'https://old.example',
        'https://new.example',
      ]);
    },
  );

  it.runIf(posix)('repairs a file that became readable by others, and says so', async () => {
    const warnings: string[] = [];
    const store = new FileCredentialStore({dir: root, warn: (m) => warnings.push(m)});
    await store.set('https://api.svc.invalid', entry(newApiKeySecret()));
    chmodSync(store.path, 0o644);
    await store.get('https://api.svc.invalid');
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    expect(warnings.join('\n')).toMatch(/readable by other users \(mode 644\); changed it to 600/);
  });

  it.runIf(posix)(
    'tightens a config directory that was open to others, but never a shared sticky one',
    async () => {
      const dir = join(root, 'cfg');
      const store = new FileCredentialStore({dir});
      await store.set('https://a.example', entry(newApiKeySecret()));
      chmodSync(dir, 0o755);
      await store.set('https://b.example', entry(newApiKeySecret()));
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      chmodSync(dir, 0o1777);
      await store.set('https://c.example', entry(newApiKeySecret()));
      expect(statSync(dir).mode & 0o7777).toBe(0o1777);
    },
  );

  it('says a damaged file is damaged without printing what is in it', async () => {
    const secret = newApiKeySecret();
    writeFileSync(join(root, 'credentials.json'), `{"version":1,"credentials":{"x":"${secret}"`, {
      mode: 0o600,
    });
    const store = new FileCredentialStore({dir: root});
    const err = (await store.get('x').catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/is damaged/);
    expect(err.message).not.toContain(secret);
  });

  it('explains a credentials path that is a folder instead of failing with EISDIR', async () => {
    mkdirSync(join(root, 'credentials.json'));
    const store = new FileCredentialStore({dir: root});
    const err = (await store.get('https://api.svc.invalid').catch((e: unknown) => e)) as UserError;
    expect(err).toBeInstanceOf(UserError);
    expect(err.code).toBe('credentials_damaged');
    expect(err.message).toBe(`the credentials path ${store.path} is a folder`);
    expect(err.suggestions).toEqual(['Run `svc logout` to remove it, then `svc login` again']);
  });

  it('explains a config dir that is a file', async () => {
    writeFileSync(join(root, 'cfg'), '');
    const store = new FileCredentialStore({dir: join(root, 'cfg')});
    const err = (await store.get('https://api.svc.invalid').catch((e: unknown) => e)) as UserError;
    expect(err.code).toBe('credentials_damaged');
    expect(err.message).toMatch(/is not a folder/);
  });

  it('removes whatever is at the credentials path when asked to repair it', async () => {
    mkdirSync(join(root, 'credentials.json', 'inner'), {recursive: true});
    const store = new FileCredentialStore({dir: root});
    expect(await store.removeDamaged()).toBe('folder');
    expect(readdirSync(root)).toEqual([]);
    writeFileSync(store.path, '{not json');
    expect(await store.removeDamaged()).toBe('file');
    expect(await store.removeDamaged()).toBeUndefined();
    await store.set('https://api.svc.invalid', entry(newApiKeySecret()));
    expect(await store.get('https://api.svc.invalid')).toBeDefined();
  });

  it('treats a missing directory as no credentials', async () => {
    const store = new FileCredentialStore({dir: join(root, 'nope', 'deeper')});
    expect(await store.get('https://api.svc.invalid')).toBeUndefined();
    expect(await store.delete('https://api.svc.invalid')).toBeUndefined();
  });

  it.runIf(posix)('never writes keys through a link at the credentials path, nor over it', async () => {
    const elsewhere = join(root, 'elsewhere.json');
    const store = new FileCredentialStore({dir: join(root, 'svc')});
    await store.set('https://old.example', entry(newApiKeySecret()));
    const before = readFileSync(store.path, 'utf8');
    writeFileSync(elsewhere, before, {mode: 0o600});
    rmSync(store.path);
    symlinkSync(elsewhere, store.path);
    const secret = newApiKeySecret();
    const err = await store.set('https://new.example', entry(secret)).catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toBe(
      `svc did not write the credentials file ${store.path}: it is a symbolic link, and svc never writes through one`,
    );
    expect(err.message).not.toContain(secret);
    expect(readFileSync(elsewhere, 'utf8')).toBe(before);
  });

  it.runIf(posix && process.getuid?.() === 0)(
    'writes no keys into a config dir that belongs to another user',
    async () => {
      const dir = join(root, 'theirs');
      mkdirSync(dir, {mode: 0o755});
      const {chownSync} = await import('node:fs');
      chownSync(dir, 65534, 65534);
      const store = new FileCredentialStore({dir});
      const err = await store.set('https://api.svc.invalid', entry(newApiKeySecret())).catch((e) => e);
      expect(err).toBeInstanceOf(UserError);
      expect(err.message).toMatch(/its folder .* belongs to another user$/);
      expect(readdirSync(dir)).toEqual([]);
      expect(statSync(dir).mode & 0o777).toBe(0o755);
    },
  );
});
