// The emulator_meta table: settings of one emulator's database (its default org), first writer wins.
import type {Queryable} from './database.js';

export class MetaRepository {
  constructor(private readonly db: Queryable) {}

  async get(key: string): Promise<string | undefined> {
    const {rows} = await this.db.query<{value: string}>('SELECT value FROM emulator_meta WHERE key = $1', [
      key,
    ]);
    return rows[0]?.value;
  }

  /** Sets key only when it has no value yet; returns the value that holds afterwards (first writer wins). */
  async setIfAbsent(key: string, value: string): Promise<string> {
    await this.db.query(
      'INSERT INTO emulator_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING',
      [key, value],
    );
    return (await this.get(key)) as string;
  }
}
