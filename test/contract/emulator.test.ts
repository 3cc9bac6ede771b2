// The contract cases against a real emulator: in-memory PGlite, manual clock, listening on loopback. The cases
// reach it through a recording proxy, and every /v1 answer they got is then checked against the OpenAPI
// document the emulator serves, with a third-party validator.
import {type ManualClock, parseDuration} from '../../src/emulator/clock.js';
import {startEmulator} from '../../src/emulator/index.js';
import {afterEach, describe, expect, it} from 'vitest';
import {openApiChecker} from '../helpers/openapi-check.js';
import {type Exchange, startRecordingProxy} from '../helpers/recording-proxy.js';
import {defineContract} from './define.js';

const exchanges: Exchange[] = [];
let servedDocument: unknown;

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
  const proxy = await startRecordingProxy(emu.apiUrl);
  servedDocument = await (
    await fetch(`${emu.apiUrl}/_emulator/openapi.json`, {
      headers: {authorization: `Bearer ${emu.adminToken}`},
    })
  ).json();
  return {
    async world() {
      const org = await emu.control.createOrg({name: `Contract ${Math.random().toString(36).slice(2, 8)}`});
      return {
        apiUrl: proxy.url,
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
    close: async () => {
      exchanges.push(...proxy.exchanges);
      await proxy.close();
      await emu.stop();
    },
  };
});

describe('contract: emulator answers and the OpenAPI document', () => {
  it('every /v1 answer of the contract cases matches the document the emulator serves', async () => {
    const v1 = exchanges.filter((e) => e.url.startsWith('/v1/'));
    // The cases read every path, get refused with each status, and are rate limited once.
    const seen = new Set(
      v1.map((e) => `${e.method} ${e.url.replace(/\/we_\w+\//, '/{webhook}/')} ${e.status}`),
    );
    for (const expected of [
      'GET /v1/org 200',
      'GET /v1/org 401',
      'GET /v1/api-keys 200',
      'POST /v1/api-keys 403',
      'POST /v1/webhooks 403',
      'GET /v1/webhooks 200',
      'GET /v1/webhooks/{webhook}/deliveries 200',
    ]) {
      expect(seen).toContain(expected);
    }
    expect(v1.some((e) => e.status === 429)).toBe(true);
    const check = await openApiChecker(servedDocument);
    expect(v1.flatMap(check)).toEqual([]);
  });
});
