// The emulator's database statement: a primary-key read and a one-row insert, each with parameters, through the
// emulator's PGlite thread (which keeps statements prepared, planned again for each run's parameters), beside the
// same statement through PGlite's own query() on the caller's thread, which parses, plans and describes it again on
// every call. The ratio is what the thread costs beside that: a kept statement saves its parse and description,
// and the message to the thread and back is added. No target: it is there to see.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {openPGlite} from '../dist/src/emulator/db/pglite.js';
import {openPGliteThread} from '../dist/src/emulator/db/pglite-thread.js';
import {copyTemplate, ensureTemplate} from '../dist/src/emulator/db/template.js';
import {PGDATA} from '../dist/src/emulator-layout/runtime.js';
import {median, printTable} from './lib.js';

const STATEMENTS = Number(process.env.BENCH_DATABASE_STATEMENTS ?? 1000);
const ROUNDS = Number(process.env.BENCH_DATABASE_ROUNDS ?? 7);
const SETUP = `CREATE TABLE bench (id text PRIMARY KEY, org_id text NOT NULL, at timestamptz NOT NULL, n int NOT NULL);
  INSERT INTO bench SELECT 'row_' || g, 'org_' || (g % 50), now(), g FROM generate_series(1, 5000) g`;
const READ = 'SELECT org_id, at, n FROM bench WHERE id = $1';
const WRITE = 'INSERT INTO bench (id, org_id, at, n) VALUES ($1, $2, $3, $4)';

const folder = await mkdtemp(join(tmpdir(), 'svc-database-bench-'));
const template = await ensureTemplate();
await copyTemplate(template, join(folder, 'own', PGDATA));
await copyTemplate(template, join(folder, 'thread', PGDATA));
const own = await openPGlite(join(folder, 'own', PGDATA));
const thread = await openPGliteThread(join(folder, 'thread', PGDATA));
try {
  await own.exec(SETUP);
  await thread.script(SETUP);
  const subjects = {
    own: (sql, params) => own.query(sql, params),
    thread: (sql, params) => thread.query(sql, params),
  };
  const perStatement = {read: {own: [], thread: []}, write: {own: [], thread: []}};
  let written = 0;
  for (let round = 0; round < ROUNDS + 1; round++) {
    for (const name of ['own', 'thread']) {
      const run = subjects[name];
      let started = performance.now();
      for (let i = 0; i < STATEMENTS; i++) await run(READ, [`row_${1 + ((i * 7919) % 5000)}`]);
      const readUs = ((performance.now() - started) * 1000) / STATEMENTS;
      started = performance.now();
      for (let i = 0; i < STATEMENTS; i++) await run(WRITE, [`new_${round}_${i}`, 'org_1', new Date(), i]);
      const writeUs = ((performance.now() - started) * 1000) / STATEMENTS;
      written += STATEMENTS;
      // The first round warms both up (V8 and PostgreSQL's caches) and is not counted.
      if (round === 0) continue;
      perStatement.read[name].push(readUs);
      perStatement.write[name].push(writeUs);
    }
  }
  const row = (kind, label) => {
    const ratios = perStatement[kind].thread.map((us, i) => us / perStatement[kind].own[i]);
    return {
      case: `${label}, per statement (baseline: PGlite's query() on the same thread)`,
      baseline: median(perStatement[kind].own),
      value: median(perStatement[kind].thread),
      unit: 'µs',
      ratio: median(ratios),
    };
  };
  printTable(
    `The emulator's database thread, ${STATEMENTS} statements a round, ${ROUNDS} rounds (${written} rows written)`,
    [row('read', 'primary-key read'), row('write', 'one-row insert')],
  );
} finally {
  await own.close();
  await thread.close();
  await rm(folder, {recursive: true, force: true});
}
