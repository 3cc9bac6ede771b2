// The contract cases against a real emulator: in-memory PGlite, manual clock, listening on loopback.
import {type ManualClock, parseDuration} from '../../emulator/clock.js';
import {startEmulator} from '../../emulator/index.js';
import {afterEach, expect} from 'vitest';
import {defineContract} from './define.js';

// Every line the emulator logs during the run, and every key minted: no line may carry a key.
const logLines: string[] = [];
const secrets: string[] = [];
// Checked after each case, so that a case run alone is checked as well.
afterEach(() => {
  for (const secret of secrets) expect(logLines.filter((line) => line.includes(secret))).toEqual([]);
});

defineContract('emulator', async () => {
  const emu = await startEmulator({
    port: 0,
    inMemory: true,
    clock: 'manual',
    allowLocalEndpoints: true,
    log: (line) => logLines.push(line),
  });
  return {
    async world() {
      const org = await emu.control.createOrg({name: `Contract ${Math.random().toString(36).slice(2, 8)}`});
      return {
        apiUrl: emu.apiUrl,
        orgId: org.id,
        mintKey: async (input) => {
          const key = await emu.control.createKey({org_id: org.id, ...input});
          secrets.push(key.secret);
          return key;
        },
        revokeKey: async (id) => {
          await emu.control.revokeKey(id);
        },
        createOrg: async (name) => emu.control.createOrg({name}),
        createWebhook: async (input) => emu.control.createWebhook({org_id: org.id, ...input}),
        trigger: async (type) => {
          await emu.control.trigger({type, org_id: org.id});
        },
        // The clock object itself rather than POST /_emulator/clock: the emulator rate-limits the whole
        // address after repeated failed logins, control surface included, and one case provokes exactly that.
        advanceClock: async (duration) => {
          (emu.clock as ManualClock).advance(parseDuration(duration)!);
        },
      };
    },
    close: () => emu.stop(),
  };
});
