// Each test file that runs the built CLI refuses to start on a stale dist/ (see test/helpers/fresh-build.ts).
import {beforeAll} from 'vitest';
import {assertFreshBuild} from '../helpers/fresh-build.js';

const BUILT_TESTS = /[\\/]test[\\/](e2e|examples|types|emulator[\\/]multi-process)[\\/]/;

// biome-ignore lint/correctness/noEmptyPattern: vitest reads a hook's fixtures from a pattern in its first parameter.
beforeAll(({}, suite) => {
  if (BUILT_TESTS.test(suite.file.filepath)) assertFreshBuild();
});
