// `svc emulator start` exits once it says it stopped, even when relay streams are asked for and dropped while it
// stops, as `svc listen` runs reconnecting and being stopped beside it do. A stream whose client had gone before it
// was opened, attached after the emulator had ended every stream, pinged nobody every 15 s with a timer that kept
// the stopped process alive for good.
import {readFile, mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {EmulatorControl} from '../../src/client/emulator-control.js';
import {type StartedProcess, spawnEmulator} from '../helpers/emulator-process.js';
import {askAndVanish} from '../helpers/relay-ghost.js';

let root: string;
let running: StartedProcess | undefined;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-e2e-stop-relay-'));
});
afterAll(async () => {
  if (running?.child.exitCode === null) running.child.kill('SIGKILL');
  await rm(root, {recursive: true, force: true});
});

it('exits after "stopped" while relay streams are asked for and dropped during its stop', async () => {
  running = await spawnEmulator(['--in-memory'], {
    SVC_CONFIG_DIR: join(root, 'config'),
    SVC_CACHE_DIR: join(root, 'cache'),
    SVC_EMULATOR_DATA_DIR: join(root, 'data'),
  });
  const p = running;
  const token = JSON.parse(await readFile(join(p.ready.data_dir, 'emulator.json'), 'utf8')).admin_token;
  const relay = await new EmulatorControl({url: p.ready.api_url, adminToken: token}).registerRelay({});
  const path = `/_emulator/relay/${relay.endpoint_id}/stream?listener=reconnecting-run`;

  let exited = false;
  void p.exited.then(() => {
    exited = true;
  });
  let asked = 0;
  // Until the emulator takes no more connections (or is gone): each run asks again as soon as it has vanished.
  const runs = Array.from({length: 4}, async () => {
    while (!exited && (await askAndVanish(p.ready.api_url, path, token))) {
      asked += 1;
      if (asked === 40) p.child.kill('SIGTERM');
    }
  });
  expect(await p.exited).toBe(0);
  await Promise.all(runs);
  expect(p.stderr()).toContain('svc emulator: stopped');
});
