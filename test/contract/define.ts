// Registers the contract cases against one world (mock or emulator).
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, it} from 'vitest';
import {createClient} from '../../src/client/index.js';
import {runCli} from '../helpers/run-cli.js';
import {type ContractContext, cases, type World} from './cases.js';

export interface WorldHandle {
  /** A world around a fresh org per case, so cases cannot see each other's keys and endpoints. */
  world(): Promise<World>;
  close?(): Promise<void>;
}

export function defineContract(name: string, start: () => Promise<WorldHandle>): void {
  // Cases that spawn the CLI run several Node processes; a loaded 2-core machine needs the room.
  describe(`contract: ${name}`, {timeout: 90_000}, () => {
    let handle: WorldHandle;
    beforeAll(async () => {
      handle = await start();
    });
    afterAll(async () => {
      await handle?.close?.();
    });

    for (const c of cases) {
      it(c.name, async () => {
        const world = await handle.world();
        const configDir = mkdtempSync(join(tmpdir(), 'svc-contract-'));
        const ctx: ContractContext = {
          world,
          client: (apiKey, options) =>
            createClient({apiUrl: world.apiUrl, apiKey, retries: 0, sleep: async () => {}, ...options}),
          cli: (args, options = {}) =>
            runCli(args, {env: {SVC_CONFIG_DIR: configDir, ...options.env}, input: options.input}),
        };
        try {
          await c.run(ctx);
        } finally {
          rmSync(configDir, {recursive: true, force: true});
        }
      });
    }
  });
}
