// The storages an emulator test runs on: embedded PGlite always, and a real PostgreSQL (each run in a fresh
// schema) where there is one; describeEachBackend shows the PostgreSQL run skipped, with why, elsewhere.
import type {StartEmulatorOptions} from '../../src/emulator/index.js';
import {scratchSchema} from './pg-schema.js';
import {POSTGRES, postgresUrl, type Requirement} from './requirements.js';

export interface EmulatorBackend {
  name: string;
  needs?: Requirement[];
  /** The startEmulator options for this storage, and what removes it afterwards. */
  options(): Promise<{options: StartEmulatorOptions; dispose(): Promise<void>}>;
}

export const EMULATOR_BACKENDS: EmulatorBackend[] = [
  {name: 'PGlite', options: async () => ({options: {inMemory: true}, dispose: async () => undefined})},
  {
    name: 'PostgreSQL',
    needs: [POSTGRES],
    async options() {
      const schema = await scratchSchema(postgresUrl());
      return {options: {inMemory: true, databaseUrl: schema.url}, dispose: () => schema.drop()};
    },
  },
];
