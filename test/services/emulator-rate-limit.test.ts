// The setting for API fuzzers, as `svc emulator start` runs it (its service, in this process; the command passes
// `--no-rate-limit` as `rateLimit: false`): SVC_EMULATOR_RATE_LIMIT=off turns the failed-authentication limit
// off, loudly (a warning line at start, `rate_limit: "off"` in the ready line and in `svc emulator status`), and
// a burst of wrong keys then never turns into 429. Unset, the limit stays as the spec asks (the 429s themselves:
// test/emulator/rate-limiter.test.ts).
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {RATE_LIMIT_OFF_WARNING} from '../../src/emulator/start/context.js';
import {UserError} from '../../src/lib/errors.js';
import {emulatorStart, rateLimitFromEnv, resolveStartOptions} from '../../src/services/emulator/start.js';
import {emulatorStatus} from '../../src/services/emulator/status.js';
import {renderReady} from '../../src/ui/emulator.js';
import {renderLoad} from '../../src/ui/state.js';

let root: string;
let env: NodeJS.ProcessEnv;
let stop: () => void;
let running: Promise<void>;
const printed: string[] = [];
const logged: string[] = [];
let ready: {api_url: string; data_dir: string; rate_limit?: string};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-rate-limit-'));
  env = {
    SVC_EMULATOR_RATE_LIMIT: 'off',
    SVC_DATA_DIR: join(root, 'data'),
    SVC_CONFIG_DIR: join(root, 'config'),
    SVC_CACHE_DIR: join(root, 'cache'),
  };
  const untilStopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let announce: () => void = () => undefined;
  const readyPrinted = new Promise<void>((resolve) => {
    announce = resolve;
  });
  const umask = process.umask();
  running = emulatorStart({
    display: {ready: renderReady, loaded: renderLoad},
    port: 0,
    dataDir: join(root, 'emulator'),
    json: true,
    env,
    print: (text) => {
      printed.push(text);
      announce();
    },
    log: (line) => logged.push(line),
    terminal: false,
    untilStopped,
  }).finally(() => process.umask(umask));
  await Promise.race([readyPrinted, running]);
  ready = JSON.parse(printed[0] as string);
});
afterAll(async () => {
  stop?.();
  await running;
  await rm(root, {recursive: true, force: true});
});

describe('SVC_EMULATOR_RATE_LIMIT=off (as --no-rate-limit)', () => {
  it('says so at start: a warning line, and rate_limit "off" in the --json ready line', () => {
    expect(logged).toContain(RATE_LIMIT_OFF_WARNING);
    expect(ready.rate_limit).toBe('off');
  });

  it('shows in the status of the running emulator', async () => {
    const status = await emulatorStatus({dataDir: ready.data_dir, env});
    expect(status).toMatchObject({running: true, api_url: ready.api_url, rate_limit: 'off'});
  });

  it('never answers 429 to a burst of wrong keys from one address', async () => {
    const statuses = await Promise.all(
      Array.from({length: 60}, (_, i) =>
        fetch(`${ready.api_url}/v1/org`, {
          headers: {authorization: `Bearer svc_${String(i).padStart(40, 'Z')}`},
        }).then((r) => r.status),
      ),
    );
    expect(new Set(statuses)).toEqual(new Set([401]));
  });

  it('is said in the human ready message too', () => {
    const text = renderReady({
      apiUrl: 'http://127.0.0.1:4010',
      accountUrl: 'http://svc-4010.localhost:4010/account',
      storage: 'in memory',
      orgId: 'org_x',
      clockMode: 'real',
      rateLimitOff: true,
      svc: 'svc',
    });
    expect(text).toMatch(/^ {2}Rate limit: {3}OFF: wrong keys are never answered 429/m);
  });
});

describe('the limit stays on unless asked', () => {
  it('keeps the limit when the variable is unset, empty or on; the flag turns it off whatever the variable says', () => {
    for (const value of [undefined, '', 'on', 'ON']) {
      expect(resolveStartOptions({env: {SVC_EMULATOR_RATE_LIMIT: value}}, () => undefined).rateLimit).toBe(
        undefined,
      );
    }
    expect(resolveStartOptions({env: {}, rateLimit: false}, () => undefined).rateLimit).toBe(false);
    expect(resolveStartOptions({env: {SVC_EMULATOR_RATE_LIMIT: 'off'}}, () => undefined).rateLimit).toBe(
      false,
    );
  });

  it('refuses any other value with a usage error naming both', () => {
    expect(() => rateLimitFromEnv('false')).toThrow(UserError);
    expect(() => rateLimitFromEnv('false')).toThrow(/SVC_EMULATOR_RATE_LIMIT must be off or on, not "false"/);
  });
});
