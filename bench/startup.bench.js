// CLI start-up: `svc --version` (answered before oclif loads, as scripts call it in loops) beside the
// cheapest possible Node process. A full command that loads oclif is shown for scale, without a target.
// `SVC_BENCH_NODES=/path/to/node:/path/to/other/node` adds a `--version` row for each of those Node versions,
// each against its own `node -e 0` (CI installs Node 22, 24 and 26 from the npm registry).
import {spawnSync} from 'node:child_process';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {signPayload} from '../dist/src/webhooks/index.js';
import {compareCommands, pairedTimeRatio, printTable} from './lib.js';

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url));
const node = process.execPath;
const runs = 10;

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
try {
  // An obviously fake secret, spelled out so it is never mistaken for a real one.
  const secret = `whsec_${Buffer.from('bench-startup-secret-0123456789').toString('base64')}`;
  const body = JSON.stringify({
    id: 'evt_abc',
    type: 'sandbox.ready',
    created_at: '2026-01-01T00:00:00.000Z',
    org_id: 'org_abc',
    data: {sandbox: {id: 'sbx_1', name: 'web', status: 'running', desired_state: 'running'}},
  });
  const bodyFile = join(dir, 'body.json');
  writeFileSync(bodyFile, body);
  const env = {
    ...process.env,
    NO_COLOR: '1',
    SVC_WEBHOOK_SECRET: secret,
    SVC_CONFIG_DIR: dir,
    SVC_DATA_DIR: dir,
  };

  const r = compareCommands(
    {
      'node -e 0': [node, '-e', '0'],
      'svc --version': [node, bin, '--version'],
      'svc webhooks verify': [
        node,
        bin,
        'webhooks',
        'verify',
        '--header',
        signPayload({secret, payload: body}),
        '--payload-file',
        bodyFile,
      ],
    },
    {runs, env},
  );
  const base = r['node -e 0'].medianMs;

  printTable('CLI start-up (baseline: node -e 0; median wall time of a spawned process, runs interleaved)', [
    {
      case: 'svc --version',
      baseline: base,
      value: r['svc --version'].medianMs,
      unit: 'ms',
      ratio: pairedTimeRatio(r, 'svc --version', 'node -e 0'),
      target: 1.1,
    },
    {
      case: 'svc webhooks verify (loads oclif)',
      baseline: base,
      value: r['svc webhooks verify'].medianMs,
      unit: 'ms',
      ratio: pairedTimeRatio(r, 'svc webhooks verify', 'node -e 0'),
    },
  ]);

  const others = (process.env.SVC_BENCH_NODES ?? '').split(':').filter(Boolean);
  if (others.length > 0) {
    const rows = others.map((other) => {
      const version = spawnSync(other, ['--version'], {encoding: 'utf8'}).stdout.trim();
      const v = compareCommands(
        {'node -e 0': [other, '-e', '0'], 'svc --version': [other, bin, '--version']},
        {runs, env},
      );
      return {
        case: `svc --version on Node ${version}`,
        baseline: v['node -e 0'].medianMs,
        value: v['svc --version'].medianMs,
        unit: 'ms',
        ratio: pairedTimeRatio(v, 'svc --version', 'node -e 0'),
        target: 1.1,
      };
    });
    printTable(
      'svc --version on each Node named by SVC_BENCH_NODES (baseline: node -e 0 of that Node)',
      rows,
    );
  }
} finally {
  rmSync(dir, {recursive: true, force: true});
}
