// The emulator's surfaces (the /v1 routes, the control routes, the link routes, the account page but for its
// repositories) read input and call operations: they hold no SQL. A statement or a query in one of their files
// fails here; it belongs to a repository or an operation.
import {readdirSync, readFileSync} from 'node:fs';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const SURFACES = ['src/emulator/api', 'src/emulator/control', 'src/emulator/links', 'src/emulator/web'];
/** The account page's repositories: its tables' SQL lives there. */
const REPOSITORIES = ['src/emulator/web/db/'];

const SQL =
  /\b(SELECT\s[\s\S]*?\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b|\b(db|tx)\.(query|transaction)\(/;

/** The lines of a source that hold SQL or run a query, comments left out. */
function sqlLines(source: string): string[] {
  return source
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .filter((line) => SQL.test(line));
}

function surfaceFiles(): string[] {
  return SURFACES.flatMap((folder) =>
    readdirSync(join(ROOT, folder), {recursive: true, encoding: 'utf8'})
      .filter((name) => /\.tsx?$/.test(name))
      .map((name) => `${folder}/${name.split('\\').join('/')}`),
  )
    .filter((file) => !REPOSITORIES.some((repo) => file.startsWith(repo)))
    .sort();
}

describe('SQL in the emulator', () => {
  it('stays out of the surfaces', () => {
    const files = surfaceFiles();
    expect(files).toContain('src/emulator/control/relay-routes.ts');
    const holding = files.filter((file) => sqlLines(readFileSync(join(ROOT, file), 'utf8')).length > 0);
    expect(holding, 'route files holding SQL: move it to a repository or an operation').toEqual([]);
  });

  it('finds a statement or a query, and not a request query nor a word in a sentence', () => {
    const source = [
      "const org = await ctx.db.query('SELECT 1 FROM orgs WHERE id = $1', [orgId]);",
      "await tx.query('DELETE FROM relay_holders WHERE endpoint_id = $1', [id]);",
      'const rows = await ctx.db.transaction(async (t) => write(t));',
      "const id = c.req.query('org_id');",
      "throw conflict('select another port from the list');",
      '// SELECT 1 FROM orgs in a comment',
    ].join('\n');
    expect(sqlLines(source)).toEqual([
      "const org = await ctx.db.query('SELECT 1 FROM orgs WHERE id = $1', [orgId]);",
      "await tx.query('DELETE FROM relay_holders WHERE endpoint_id = $1', [id]);",
      'const rows = await ctx.db.transaction(async (t) => write(t));',
    ]);
  });
});
