// Start-up of `svc tui` as a person sees it: the real command in a pseudo-terminal (80×24, through script(1)),
// timed from launch to its first screen and to the first screen with data (the endpoints of a local emulator),
// beside the cheapest Node process doing the same through the same pseudo-terminal (`node -e` printing a line).
// The first screen is due within 300 ms of launch.
import {spawn} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {median, percentile, printTable} from './lib.js';

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url));
const emulatorModule = new URL('../dist/src/emulator/index.js', import.meta.url).href;
const node = process.execPath;
const runs = 12;
const FIRST_SCREEN_TARGET_MS = 300;

// The emulator runs in its own process, with a data dir, so that the TUI finds it through emulator.json.
const EMULATOR_SCRIPT = `
const {startEmulator} = await import(${JSON.stringify(emulatorModule)});
const emu = await startEmulator({port: 0, dataDir: process.argv[1], allowLocalEndpoints: true});
const key = await emu.control.createKey({name: 'bench'});
const hook = await emu.control.createWebhook({url: 'http://127.0.0.1:9/hooks', events: ['sandbox.ready']});
process.stdout.write(JSON.stringify({apiUrl: emu.apiUrl, secret: key.secret, webhookId: hook.id}) + '\\n');
process.stdin.resume();
process.stdin.on('end', async () => { await emu.stop(); process.exit(0); });
`;

function startEmulatorProcess(dataDir) {
  const child = spawn(node, ['--input-type=module', '-e', EMULATOR_SCRIPT, dataDir], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`emulator exited with ${code} before it was ready`)));
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({child, ...JSON.parse(out.split('\n')[0])});
    });
  });
}

const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * Runs `argv` in an 80×24 pseudo-terminal and resolves with the ms from spawn until each marker first appeared
 * in what it wrote; then types q (or waits for the end) and lets it go.
 */
function timeInPty(argv, markers, env) {
  const command = `stty rows 24 cols 80; exec ${argv.map(quote).join(' ')}`;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('script', ['-qfec', command, '/dev/null'], {env, stdio: ['pipe', 'pipe', 'ignore']});
    const seen = {};
    let out = '';
    let quit = false;
    // A command that ends by itself may be gone before q arrives.
    child.stdin.on('error', () => undefined);
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.stdout.on('data', (d) => {
      out += d;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      for (const [name, marker] of Object.entries(markers))
        if (seen[name] === undefined && out.includes(marker)) seen[name] = ms;
      if (!quit && Object.keys(seen).length === Object.keys(markers).length) {
        quit = true;
        child.stdin.write('q');
      }
    });
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(timer);
      if (Object.keys(seen).length < Object.keys(markers).length)
        reject(new Error(`markers not seen in: ${out.slice(0, 500)}`));
      else resolve(seen);
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const emu = await startEmulatorProcess(join(dir, 'emulator'));
try {
  const env = {
    ...process.env,
    TERM: 'xterm-256color',
    NO_COLOR: '1',
    SVC_CONFIG_DIR: join(dir, 'config'),
    SVC_API_URL: emu.apiUrl,
    SVC_API_KEY: emu.secret,
    SVC_EMULATOR_DATA_DIR: join(dir, 'emulator'),
  };
  const cases = {
    baseline: () => timeInPty([node, '-e', 'process.stdout.write("ready\\n")'], {ready: 'ready'}, env),
    // Ink's frames, and only they, come inside a synchronized update (src/ui/tui/frame-writer.ts).
    tui: () =>
      timeInPty([node, bin, 'tui'], {frame: 'Endpoints', data: emu.webhookId, ink: '\u001B[?2026h'}, env),
  };
  const samples = {baseline: [], frame: [], data: [], ink: []};
  await cases.baseline();
  await cases.tui();
  // Interleaved run by run, so load from elsewhere on the machine hits both alike.
  for (let r = 0; r < runs; r++) {
    const b = await cases.baseline();
    const t = await cases.tui();
    samples.baseline.push(b.ready);
    samples.frame.push(t.frame);
    samples.data.push(t.data);
    samples.ink.push(t.ink);
  }
  const ratio = (name) => median(samples[name].map((ms, i) => ms / samples.baseline[i]));
  const baselineMs = median(samples.baseline);
  printTable(
    'svc tui start-up in a pseudo-terminal (baseline: node -e printing a line in the same pty; median)',
    [
      {
        case: 'first screen (header and loading)',
        baseline: baselineMs,
        value: median(samples.frame),
        unit: 'ms',
        ratio: ratio('frame'),
      },
      {
        case: 'first screen with data (endpoints)',
        baseline: baselineMs,
        value: median(samples.data),
        unit: 'ms',
        ratio: ratio('data'),
        // The endpoints are painted as they arrive, before Ink has loaded.
        target: 2.5,
      },
      {
        case: "interactive (Ink's first frame: keys work)",
        baseline: baselineMs,
        value: median(samples.ink),
        unit: 'ms',
        ratio: ratio('ink'),
      },
    ],
  );
  const p90 = percentile(samples.data, 90);
  const ok = median(samples.data) <= FIRST_SCREEN_TARGET_MS;
  process.stdout.write(
    `first screen with data: median ${median(samples.data).toFixed(0)} ms, p90 ${p90.toFixed(0)} ms ` +
      `(target <= ${FIRST_SCREEN_TARGET_MS} ms) ${ok ? 'ok' : 'OVER'}\n`,
  );
  if (!ok && process.env.BENCH_STRICT === '1') process.exitCode = 1;
} finally {
  emu.child.stdin.end();
  await new Promise((r) => emu.child.on('exit', r));
  rmSync(dir, {recursive: true, force: true});
}
