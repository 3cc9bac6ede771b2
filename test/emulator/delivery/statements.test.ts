// Prepared hot statements on PGlite take their values as inlined literals: every value must come back exactly.
import fc from 'fast-check';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {Database} from '../../../src/emulator/db/database.js';
import {literal, PreparedStatements} from '../../../src/emulator/delivery/statements.js';
import {openTestDb} from './helpers.js';

let db: Database;
beforeAll(async () => {
  db = await openTestDb();
});
afterAll(async () => {
  await db.close();
});

const ECHO = {
  name: 'svc_test_echo',
  sql: 'SELECT $1 AS t, $2 AS n, $3 AS at, $4 AS list, $5 AS ints, $6 AS times',
  types: ['text', 'int', 'timestamptz', 'text[]', 'int[]', 'timestamptz[]'] as const,
};

describe('prepared statements with literal parameters', () => {
  it('runs on a session whose string literals treat backslashes as plain characters', async () => {
    const r = await db.query<{standard_conforming_strings: string}>('SHOW standard_conforming_strings');
    expect(r.rows[0]?.standard_conforming_strings).toBe('on');
  });

  it('returns any text, integer, time and array exactly as given (NUL aside, which text cannot hold)', async () => {
    const statements = new PreparedStatements(db);
    const statement = {...ECHO, types: [...ECHO.types]};
    await fc.assert(
      fc.asyncProperty(
        fc.string({unit: 'binary'}),
        fc.integer(),
        fc.date({
          min: new Date('1970-01-01T00:00:00Z'),
          max: new Date('2200-01-01T00:00:00Z'),
          noInvalidDate: true,
        }),
        fc.array(
          fc.oneof(
            fc.string({unit: 'binary'}),
            fc.constant("'); DROP TABLE events; --"),
            fc.constant('\\"}{,NULL'),
            fc.constant('NULL'),
            fc.constant(null),
          ),
          {maxLength: 5},
        ),
        fc.array(fc.option(fc.integer()), {maxLength: 5}),
        fc.array(
          fc.option(fc.date({min: new Date(0), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true})),
          {
            maxLength: 3,
          },
        ),
        async (t, n, at, list, ints, times) => {
          type Row = {
            t: string;
            n: number;
            at: Date;
            list: (string | null)[];
            ints: (number | null)[];
            times: (Date | null)[];
          };
          const r = await statements.run<Row>(db, statement, [t, n, at, list, ints, times]);
          const row = r.rows[0];
          expect(row?.t).toBe(t.replaceAll('\u0000', ''));
          expect(row?.n).toBe(n);
          expect(row?.at.getTime()).toBe(at.getTime());
          expect(row?.list).toEqual(list.map((s) => (s === null ? null : s.replaceAll('\u0000', ''))));
          expect(row?.ints).toEqual(ints);
          expect(row?.times?.map((d) => d?.getTime() ?? null)).toEqual(
            times.map((d) => d?.getTime() ?? null),
          );
        },
      ),
      {numRuns: 150},
    );
    expect((await db.query('SELECT count(*) FROM events')).rows).toHaveLength(1);
  });

  it('writes NULL for absent values and refuses values that do not fit the type', () => {
    expect(literal(null, 'text')).toBe('NULL::text');
    expect(literal(undefined, 'timestamptz[]')).toBe('NULL::timestamptz[]');
    expect(literal([], 'int[]')).toBe("'{}'::int[]");
    expect(() => literal('1; DROP TABLE x', 'int')).toThrow(TypeError);
    expect(() => literal('yesterday', 'timestamptz')).toThrow(TypeError);
    expect(() => literal('a', 'text[]')).toThrow(TypeError);
  });

  it("leaves the session's planner settings as they were once a statement has run", async () => {
    const statements = new PreparedStatements(db);
    await statements.run(db, {...ECHO, types: [...ECHO.types]}, ['x', 1, new Date(0), [], [], []]);
    const r = await db.query<Record<string, string>>(
      `SELECT current_setting('enable_seqscan') AS seq, current_setting('plan_cache_mode') AS mode`,
    );
    expect(r.rows[0]).toEqual({seq: 'on', mode: 'auto'});
  });

  it('prepares a statement once however many callers, on however many engines, race to run it first', async () => {
    const statement = {name: 'svc_test_race', sql: 'SELECT $1::int + 1 AS n', types: ['int' as const]};
    const engines = [new PreparedStatements(db), new PreparedStatements(db)];
    const results = await Promise.all(
      Array.from({length: 8}, (_, i) => engines[i % 2]?.run<{n: number}>(db, statement, [i])),
    );
    expect(results.map((r) => r?.rows[0]?.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const inTransaction = await db.transaction((tx) =>
      new PreparedStatements(db).run<{n: number}>(tx, statement, [41]),
    );
    expect(inTransaction.rows[0]?.n).toBe(42);
  });
});
