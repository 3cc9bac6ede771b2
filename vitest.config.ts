import {defineConfig} from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // 2 cores: more workers only fight over CPU with the emulators they start.
    maxWorkers: 2,
  },
});
