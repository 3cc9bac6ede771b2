// credentials.json in the config dir: owner-only (dir 0700, file 0600), replaced atomically, keyed by API URL.
import {chmod, lstat, mkdir, readFile, rm, stat} from 'node:fs/promises';
import {join} from 'node:path';
import {UserError} from '../lib/errors.js';
import {writeOwnerOnly} from '../lib/safe-write.js';

export type StoreKind = 'file' | 'keychain';

/** One login. The secret is here only when `store` is 'file'; for 'keychain' this is a pointer. */
export interface CredentialEntry {
  store: StoreKind;
  api_key?: string;
  org_id?: string;
  org_name?: string;
  stored_at: string;
}

interface CredentialsFile {
  version: 1;
  /** The address of the latest login: commands given no address use it, so its key goes only there. */
  current?: string;
  credentials: Record<string, CredentialEntry>;
}

export interface FileStoreOptions {
  dir: string;
  /** Told when a permission problem was found and repaired. */
  warn?: (message: string) => void;
  /**
   * False to only look (`svc doctor`): a file others can read is read as it is and left so, for the caller to
   * report, instead of being made owner-only. Default true.
   */
  repair?: boolean;
}

const FILE_NAME = 'credentials.json';
const isPosix = process.platform !== 'win32';

export class FileCredentialStore {
  readonly dir: string;
  readonly path: string;
  private readonly warn: (message: string) => void;
  private readonly repair: boolean;

  constructor(options: FileStoreOptions) {
    this.dir = options.dir;
    this.path = join(options.dir, FILE_NAME);
    this.warn = options.warn ?? (() => {});
    this.repair = options.repair ?? true;
  }

  async get(apiUrl: string): Promise<CredentialEntry | undefined> {
    const file = await this.read();
    return Object.hasOwn(file.credentials, apiUrl) ? file.credentials[apiUrl] : undefined;
  }

  async list(): Promise<Record<string, CredentialEntry>> {
    return (await this.read()).credentials;
  }

  /** The address of the latest login that is still stored, if any. */
  async current(): Promise<string | undefined> {
    const file = await this.read();
    return file.current !== undefined && Object.hasOwn(file.credentials, file.current)
      ? file.current
      : undefined;
  }

  async set(apiUrl: string, entry: CredentialEntry): Promise<void> {
    const file = await this.read();
    file.credentials[apiUrl] = entry;
    file.current = apiUrl;
    await this.write(file);
  }

  /** Returns the entry that was removed, if any. */
  async delete(apiUrl: string): Promise<CredentialEntry | undefined> {
    const file = await this.read();
    if (!Object.hasOwn(file.credentials, apiUrl)) return undefined;
    const entry = file.credentials[apiUrl];
    delete file.credentials[apiUrl];
    if (file.current === apiUrl) delete file.current;
    await this.write(file);
    return entry;
  }

  /**
   * Removes whatever is at the credentials path (a damaged file, a folder) so a fresh login can write
   * there. Returns what was removed, or undefined when nothing was there.
   */
  async removeDamaged(): Promise<'file' | 'folder' | undefined> {
    let info: Awaited<ReturnType<typeof lstat>>;
    try {
      info = await lstat(this.path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw err;
    }
    await rm(this.path, {recursive: info.isDirectory(), force: true});
    return info.isDirectory() ? 'folder' : 'file';
  }

  private async read(): Promise<CredentialsFile> {
    let text: string;
    try {
      await this.checkFileMode();
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return emptyFile();
      if (code === 'EISDIR') {
        throw new UserError(`the credentials path ${this.path} is a folder`, {
          code: 'credentials_damaged',
          suggestions: ['Run `svc logout` to remove it, then `svc login` again'],
        });
      }
      if (code === 'ENOTDIR') {
        throw new UserError(
          `the config dir ${this.dir} is not a folder, so svc cannot keep credentials in it`,
          {
            code: 'credentials_damaged',
            suggestions: ['Move that file away, or point SVC_CONFIG_DIR at a folder of your own'],
          },
        );
      }
      throw err;
    }
    try {
      const parsed = JSON.parse(text) as Partial<CredentialsFile>;
      if (parsed.version !== 1 || typeof parsed.credentials !== 'object' || parsed.credentials === null)
        throw new Error();
      const credentials = Object.assign(Object.create(null), parsed.credentials);
      return typeof parsed.current === 'string'
        ? {version: 1, current: parsed.current, credentials}
        : {version: 1, credentials};
    } catch {
      // Never print the content: it holds keys.
      throw new UserError(`the credentials file ${this.path} is damaged`, {
        code: 'credentials_damaged',
        suggestions: ['Run `svc logout` to remove it, then `svc login` again'],
      });
    }
  }

  /** Anyone else able to read the keys is a problem worth saying out loud, then fixing. */
  private async checkFileMode(): Promise<void> {
    if (!isPosix) return;
    const path = this.path;
    const wanted = 0o600;
    const info = await stat(path);
    if (!info.isFile()) {
      throw new UserError(
        `the credentials path ${path} is ${info.isDirectory() ? 'a folder' : 'not a file'}`,
        {
          code: 'credentials_damaged',
          suggestions: ['Run `svc logout` to remove it, then `svc login` again'],
        },
      );
    }
    if (typeof process.getuid === 'function' && info.uid !== process.getuid()) {
      throw new UserError(`${path} belongs to another user; svc will not read keys from it`, {
        code: 'credentials_insecure',
        suggestions: ['Point SVC_CONFIG_DIR at a directory of your own, or fix the owner'],
      });
    }
    if (this.repair && (info.mode & 0o777) !== wanted && (info.mode & 0o077) !== 0) {
      await chmod(path, wanted);
      this.warn(
        `${path} was readable by other users (mode ${(info.mode & 0o777).toString(8)}); changed it to ${wanted.toString(8)}`,
      );
    }
  }

  private async write(file: CredentialsFile): Promise<void> {
    await mkdir(this.dir, {recursive: true, mode: 0o700});
    if (isPosix) {
      const info = await stat(this.dir);
      // A sticky directory (like /tmp) is shared on purpose: tighten only our own config dir. One that belongs to
      // someone else is refused by writeOwnerOnly below.
      const ours = typeof process.getuid !== 'function' || info.uid === process.getuid();
      if (ours && (info.mode & 0o077) !== 0 && (info.mode & 0o1000) === 0) {
        await chmod(this.dir, 0o700);
        this.warn(
          `${this.dir} was open to other users (mode ${(info.mode & 0o777).toString(8)}); changed it to 700`,
        );
      }
    }
    // A fresh file renamed over the old one (lib/safe-write.ts): a crash mid-write leaves the old file intact,
    // never half a file; it is 0600 from the first byte; and a link at the path, or another user's file, is refused.
    writeOwnerOnly(this.path, `${JSON.stringify(file, null, 2)}\n`, {
      label: 'the credentials file',
      code: 'credentials_insecure',
    });
  }
}

function emptyFile(): CredentialsFile {
  return {version: 1, credentials: Object.create(null)};
}
