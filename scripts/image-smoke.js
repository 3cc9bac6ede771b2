// Tests svc's container image as a runtime runs it (docs/image.md): checks that a second build of the same tree
// gives the same image digest, then runs test/image/image.smoke.mjs with node --test, which unpacks the image with
// umoci and runs it with runc. As root (runc needs it), after `npm run build:image`:
// `npm run test:image`. SVC_TEST_DATABASE_URL names the PostgreSQL for the case of two containers sharing one.
import {spawnSync} from 'node:child_process';
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {IMAGE_LAYOUT} from './image-spec.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fail = (message) => {
  console.error(`image-smoke: ${message}`);
  process.exit(1);
};

if (process.getuid?.() !== 0) fail('runs as root: runc needs it to make the containers');
for (const [tool, how] of [
  ['runc', 'apt-get install runc'],
  ['umoci', 'apt-get install umoci'],
  ['skopeo', 'apt-get install skopeo'],
]) {
  if (spawnSync(tool, ['--version'], {stdio: 'ignore'}).error) fail(`${tool} is missing (${how})`);
}
const layout = join(root, IMAGE_LAYOUT);
if (!existsSync(layout)) fail(`${IMAGE_LAYOUT} is missing: run \`npm run build:image\` first`);

// Reproducible: the same tree built again elsewhere is the same image, to the digest.
const built = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')).manifests[0].digest;
const again = mkdtempSync(join(tmpdir(), 'svc-image-again-'));
try {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'build-image.js'), '--out', again], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) fail('the second build failed');
  const digest = r.stdout.trim();
  if (digest !== built) fail(`a second build gave ${digest}, not ${built}: the image is not reproducible`);
  console.error(`image-smoke: a second build gave the same digest, ${digest}`);
} finally {
  rmSync(again, {recursive: true, force: true});
}

const test = spawnSync(
  process.execPath,
  ['--test', '--test-reporter=spec', '--test-concurrency=1', join(root, 'test', 'image', 'image.smoke.mjs')],
  {stdio: 'inherit'},
);
process.exitCode = test.status ?? 1;
