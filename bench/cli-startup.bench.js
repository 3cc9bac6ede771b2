// Start-up of a real read command: `svc keys list --json` against a local emulator, beside the cheapest
// Node process (`node -e 0`). The rows below it are its parts, each measured alone as a process of its
// own (so each includes Node's own start): oclif loading the command (its --help), importing @oclif/core,
// importing zod. They say what dominates.
import {spawn} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {compareCommands, pairedTimeRatio, printTable} from './lib.js';

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url));
const emulatorModule = new URL('../dist/src/emulator/index.js', import.meta.url).href;
const node = process.execPath;
const runs = 12;

// The emulator runs in its own process: measureCommand blocks this one while the CLI runs.
const EMULATOR_SCRIPT = `
const {startEmulator} = await import(${JSON.stringify(emulatorModule)});
const emu = await startEmulator({port: 0, inMemory: true});
const key = await emu.control.createKey({name: 'bench'});
await emu.control.createKey({name: 'bench-2', expires: '30'});
process.stdout.write(JSON.stringify({apiUrl: emu.apiUrl, secret: key.secret}) + '\\n');
process.stdin.resume();
process.stdin.on('end', async () => { await emu.stop(); process.exit(0); });
`;

const BARE_GET = `
const http = require('node:http');
const url = new URL('/v1/keys', process.env.SVC_API_URL);
http.get(url, {headers: {authorization: 'Bearer ' + process.env.SVC_API_KEY}}, (res) => {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (d) => (body += d));
  res.on('end', () => process.stdout.write(JSON.stringify(JSON.parse(body), null, 2) + '\\n'));
});
`;

function startEmulatorProcess() {
  const child = spawn(node, ['--input-type=module', '-e', EMULATOR_SCRIPT], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`emulator exited with ${code} before it was ready`)));
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve({child, ...JSON.parse(line)});
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const emu = await startEmulatorProcess();
try {
  const env = {
    ...process.env,
    NO_COLOR: '1',
    SVC_CONFIG_DIR: dir,
    SVC_API_URL: emu.apiUrl,
    SVC_API_KEY: emu.secret,
  };
  const root = fileURLToPath(new URL('..', import.meta.url));
  // compareCommands interleaves the commands run by run, and pairedTimeRatio takes the median of the
  // per-run ratios, so load from elsewhere on the machine hits every case alike.
  const r = compareCommands(
    {
      baseline: [node, '-e', '0'],
      // The floor of any read: a Node process that sends the same GET with node:http and prints the answer.
      get: [node, '-e', BARE_GET],
      keys: [node, bin, 'keys', 'list', '--json'],
      help: [node, bin, 'keys', 'list', '--help'],
      oclif: [node, '-e', "require('@oclif/core')"],
      zod: [node, '--input-type=module', '-e', "await import('zod')"],
    },
    {runs, warmup: 1, env, cwd: root},
  );
  const row = (label, name, target) => ({
    case: label,
    baseline: r.baseline.medianMs,
    value: r[name].medianMs,
    unit: 'ms',
    ratio: pairedTimeRatio(r, name, 'baseline'),
    target,
  });
  printTable('a read command beside a bare node:http GET of the same list (median wall time of a process)', [
    {
      case: 'svc keys list --json (local emulator)',
      baseline: r.get.medianMs,
      value: r.keys.medianMs,
      unit: 'ms',
      ratio: pairedTimeRatio(r, 'keys', 'get'),
      target: 1.5,
    },
  ]);
  printTable('CLI start-up of a read command (baseline: node -e 0; median wall time of a spawned process)', [
    row('svc keys list --json (local emulator)', 'keys', 2),
    row('  a bare node:http GET of the same list', 'get'),
    row('  of which: svc keys list --help', 'help'),
    row('  of which: require @oclif/core', 'oclif'),
    row('  of which: import zod (parses every answer)', 'zod'),
  ]);
} finally {
  emu.child.stdin.end();
  rmSync(dir, {recursive: true, force: true});
}
