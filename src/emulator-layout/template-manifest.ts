// A database template's manifest and whether the template holds every file it lists: light enough for the CLI
// (`svc doctor`) to ask without loading PGlite. The emulator's db/template.ts makes templates and checks their key.
import {statSync} from 'node:fs';
import {readFile} from 'node:fs/promises';
import {join} from 'node:path';
import {PGDATA} from './runtime.js';

export const TEMPLATE_META = 'template.json';

/** What a template must hold, relative to its pgdata folder (forward slashes). */
export interface TemplateManifest {
  dirs: string[];
  /** path → [full length, bytes stored]: the stored file is the full one without its trailing zeros. */
  files: Record<string, [number, number]>;
}

export interface TemplateMeta {
  key: string;
  manifest: TemplateManifest;
}

export async function readTemplateMeta(dir: string): Promise<TemplateMeta | undefined> {
  try {
    const meta = JSON.parse(await readFile(join(dir, TEMPLATE_META), 'utf8')) as Partial<TemplateMeta>;
    const m = meta.manifest;
    if (typeof meta.key !== 'string' || !m || !Array.isArray(m.dirs) || typeof m.files !== 'object') return;
    return meta as TemplateMeta;
  } catch {
    return undefined;
  }
}

/**
 * Why the template at dir is incomplete, or undefined when every file its manifest lists is there with the
 * length it was stored with. Folders are not checked, since a copy makes the missing ones.
 */
export async function templateFilesProblem(dir: string): Promise<string | undefined> {
  const meta = await readTemplateMeta(dir);
  if (!meta) return `${join(dir, TEMPLATE_META)} is missing or unreadable`;
  const pgdata = join(dir, PGDATA);
  const entries = Object.entries(meta.manifest.files);
  if (!entries.some(([path]) => path === 'PG_VERSION')) return 'its manifest lists no PG_VERSION';
  for (const [path, [, stored]] of entries) {
    let size: number;
    try {
      size = statSync(join(pgdata, ...path.split('/'))).size;
    } catch {
      return `${path} is missing`;
    }
    if (size !== stored) return `${path} holds ${size} bytes, not ${stored}`;
  }
  return undefined;
}
