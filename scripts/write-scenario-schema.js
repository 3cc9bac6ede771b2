// Writes fixtures/scenario.schema.json, the scenario file's JSON Schema as shipped (`@svc/cli/scenario.schema.json`),
// from the built schema (src/scenario/schema.ts). Run by `npm run docs`; test/scenario/schema.test.ts keeps it in step.
import {writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const {SCENARIO_SCHEMA} = await import(join(root, 'dist', 'src', 'scenario', 'schema.js'));
writeFileSync(
  join(root, 'fixtures', 'scenario.schema.json'),
  `${JSON.stringify(SCENARIO_SCHEMA, null, 2)}\n`,
);
