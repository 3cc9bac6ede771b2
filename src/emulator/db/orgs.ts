// The orgs table.
import type {Org} from '../../schemas/index.js';
import {newId} from '../../ids.js';
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

  /**
   * A new org recorded as the database's default org, in one statement: for a database that has none yet and
   * that no other process writes to (fresh from the template, in memory).
   */
  async createDefault(name: string, now: Date): Promise<Org> {
    const id = newId('org');
    await this.db.query(
      `WITH org AS (INSERT INTO orgs (id, name, created_at) VALUES ($1, $2, $3) RETURNING id)
       INSERT INTO emulator_meta (key, value) SELECT 'default_org_id', id FROM org`,
      [id, name, now],
    );
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
