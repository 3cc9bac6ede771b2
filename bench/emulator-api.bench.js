// Authenticated GET /v1/webhooks on the real listening emulator, and a control call with a JSON body (a wait for a
// delivery already recorded, as test suites and scenario runs make all the time), each beside a bare node:http
// hello-world measured in the same run. Both servers run in their own processes; autocannon drives them from here.
import {spawn} from 'node:child_process';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import autocannon from 'autocannon';
import {median, printTable} from './lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = 3;
const SECONDS = 3;
const CONNECTIONS = 10;

function spawnReady(args, parse) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {cwd: root, env: {...process.env, NO_COLOR: '1'}});
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve({child, ready: parse(out.slice(0, nl))});
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code} before it was ready`)));
  });
}

const HELLO = `
const http = require('node:http');
const body = JSON.stringify({data: []});
const server = http.createServer((req, res) => {
  res.writeHead(200, {'content-type': 'application/json', 'content-length': Buffer.byteLength(body)});
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

function run(url, headers, post) {
  return new Promise((resolve, reject) => {
    const request = post
      ? {
          method: 'POST',
          headers: {...headers, 'content-type': 'application/json'},
          body: JSON.stringify(post),
        }
      : {headers};
    autocannon({url, ...request, connections: CONNECTIONS, duration: SECONDS}, (err, result) => {
      if (err) return reject(err);
      if (result.non2xx > 0 || result.errors > 0)
        return reject(new Error(`${url}: ${result.non2xx} non-2xx answers`));
      resolve(result.requests.average);
    });
  });
}

const hello = await spawnReady(['-e', HELLO], (line) => `http://127.0.0.1:${line.trim()}/`);
const emulator = await spawnReady(
  [
    join(root, 'bin', 'run.js'),
    'emulator',
    'start',
    '--json',
    '--port',
    '0',
    '--in-memory',
    '--allow-local-endpoints',
  ],
  (line) => JSON.parse(line),
);
try {
  const {EmulatorControl} = await import('../dist/src/client/emulator-control.js');
  const {readRuntimeFile} = await import('../dist/src/emulator-layout/runtime.js');
  const info = await readRuntimeFile(emulator.ready.data_dir);
  const control = new EmulatorControl({url: info.api_url, adminToken: info.admin_token});
  const key = await control.createKey({name: 'bench'});
  for (let i = 0; i < 3; i++) {
    await control.createWebhook({
      url: `http://127.0.0.1:9/hook/${i}`,
      events: ['sandbox.ready', 'sandbox.error'],
    });
  }
  const target = `${info.api_url}/v1/webhooks`;
  const headers = {authorization: `Bearer ${key.secret}`};

  // Warm both up, then interleave rounds so passing load on the machine hits both alike.
  await run(hello.ready, {});
  await run(target, headers);
  const base = [];
  const emu = [];
  for (let r = 0; r < ROUNDS; r++) {
    base.push(await run(hello.ready, {}));
    emu.push(await run(target, headers));
  }
  const ratios = base.map((b, i) => b / emu[i]);
  printTable(`GET /v1/webhooks (authenticated, 3 endpoints) vs bare node:http, ${CONNECTIONS} connections`, [
    {
      case: 'req/s',
      baseline: median(base),
      value: median(emu),
      unit: 'req/s',
      // Time per request against the bare server; <= 2x means at least half its throughput.
      ratio: median(ratios),
      target: 2,
    },
  ]);

  // A control call with a body: the wait for a delivery whose attempt is recorded answers at once with its detail.
  const moved = await control.trigger({type: 'sandbox.ready'});
  const {delivery} = await control.waitForDelivery({event_id: moved.event.id, attempts: 1});
  const wait = {
    url: `${info.api_url}/_emulator/delivery-wait`,
    body: {delivery_id: delivery.id, attempts: 1},
  };
  const admin = {authorization: `Bearer ${info.admin_token}`};
  await run(wait.url, admin, wait.body);
  const bare = [];
  const waits = [];
  for (let r = 0; r < ROUNDS; r++) {
    bare.push(await run(hello.ready, {}, wait.body));
    waits.push(await run(wait.url, admin, wait.body));
  }
  printTable(
    `POST /_emulator/delivery-wait (a JSON body, answered at once) vs bare node:http, ${CONNECTIONS} connections`,
    [
      {
        case: 'req/s',
        baseline: median(bare),
        value: median(waits),
        unit: 'req/s',
        ratio: median(bare.map((b, i) => b / waits[i])),
      },
    ],
  );
} finally {
  hello.child.kill('SIGTERM');
  emulator.child.kill('SIGTERM');
}
