// Where a data dir keeps its database: light enough for the CLI to ask without loading PGlite.
import {existsSync} from 'node:fs';
import {join} from 'node:path';

/** The PGlite database folder inside a data dir. */
export const PGDATA = 'pgdata';

/** True when the data dir holds a database (an emulator ran there, or a state was loaded into it). */
export function holdsDatabase(dataDir: string): boolean {
  return existsSync(join(dataDir, PGDATA, 'PG_VERSION'));
}
