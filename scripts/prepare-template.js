// Makes the migrated PGlite template that a fresh emulator data dir is copied from (see emulator/db/template.ts).
// Run at the end of the build; skipped when the template for the current migrations already exists.
import {existsSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const module = join(root, 'dist', 'src', 'emulator', 'db', 'template.js');
if (!existsSync(module)) {
  console.error('prepare-template: dist/src/emulator/db/template.js is missing; build first');
  process.exit(1);
}
const {prepareTemplate, templateKey, templateLocations, templateProblem} = await import(module);
const {built} = templateLocations();
const key = await templateKey();
// Made again when missing, stale or incomplete (a file of its manifest missing or of another length).
if ((await templateProblem(built, key)) !== undefined) {
  const started = Date.now();
  await prepareTemplate(built, key);
  console.error(`prepare-template: emulator database template ready (${Date.now() - started} ms)`);
}
