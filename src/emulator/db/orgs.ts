// The orgs table.
import type {Org} from '../../schemas/index.js';
import {newId} from '../ids.js';
import type {Queryable} from './database.js';
import {type CachedRead, isoRequired, uncached} from './repository-support.js';

export class OrgRepository {
  constructor(
    private readonly db: Queryable,
    private readonly cached: CachedRead = uncached,
  ) {}

  async create(name: string, now: Date): Promise<Org> {
    const id = newId('org');
    await this.db.query('INSERT INTO orgs (id, name, created_at) VALUES ($1, $2, $3)', [id, name, now]);
    return {id, name, created_at: now.toISOString()};
  }

  get(id: string): Promise<Org | undefined> {
    return this.cached(`org:${id}`, () => this.load(id));
  }

  private async load(id: string): Promise<Org | undefined> {
    const {rows} = await this.db.query<{id: string; name: string; created_at: Date}>(
      'SELECT id, name, created_at FROM orgs WHERE id = $1',
      [id],
    );
    const r = rows[0];
    return r && {id: r.id, name: r.name, created_at: isoRequired(r.created_at)};
  }

  async rename(id: string, name: string): Promise<void> {
    await this.db.query('UPDATE orgs SET name = $2 WHERE id = $1', [id, name]);
  }
}
