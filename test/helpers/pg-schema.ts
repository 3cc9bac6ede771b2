// A scratch schema on the test PostgreSQL: each test run gets its own, so parallel and repeated runs never see
// each other's rows, and the database URL points the emulator at it.
import {randomBytes} from 'node:crypto';
import pg from 'pg';

export interface ScratchSchema {
  name: string;
  /** The database URL with the schema as its search path. */
  url: string;
  drop(): Promise<void>;
}

export async function scratchSchema(databaseUrl: string, prefix = 'svc_test'): Promise<ScratchSchema> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({connectionString: databaseUrl});
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    name,
    url: url.toString(),
    async drop() {
      const client = new pg.Client({connectionString: databaseUrl});
      await client.connect();
      try {
        await client.query(`DROP SCHEMA ${name} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}
