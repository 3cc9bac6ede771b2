// The examples of the README and the guides in docs/, run: every seed they show loads as its commands say, and
// every `svc` command line they show names a command svc has, with flags that command takes.
import {mkdir, mkdtemp, readdir, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {spawnEmulator} from '../helpers/emulator-process.js';
import {runCommand} from '../helpers/run-cli.js';

const README = new URL('../../README.md', import.meta.url);
const DOCS = new URL('../../docs/', import.meta.url);
const MANIFEST = new URL('../../oclif.manifest.json', import.meta.url);

interface Block {
  lang: string;
  text: string;
}

/** The README and every guide (the command reference is generated from the commands, so it is left out). */
async function docTexts(): Promise<string[]> {
  const guides = (await readdir(DOCS)).filter((f) => f.endsWith('.md') && f !== 'commands.md');
  return Promise.all([README, ...guides.map((f) => new URL(f, DOCS))].map((u) => readFile(u, 'utf8')));
}

async function fencedBlocks(): Promise<Block[]> {
  const text = (await docTexts()).join('\n');
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1] ?? '',
    text: m[2] ?? '',
  }));
}

let root: string;
let env: NodeJS.ProcessEnv;
let seeds: string[];
let commands: string[];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-readme-'));
  env = {HOME: root, SVC_CONFIG_DIR: join(root, 'config'), SVC_DATA_DIR: join(root, 'data')};
  const blocks = await fencedBlocks();
  seeds = blocks
    .filter((b) => b.lang === 'json' && b.text.includes('"svc_emulator_seed"'))
    .map((b) => b.text);
  commands = blocks
    .filter((b) => b.lang === 'sh')
    .flatMap((b) => b.text.split('\n'))
    .filter((l) => l.startsWith('svc '));
});
afterAll(() => rm(root, {recursive: true, force: true}));

describe("the README's seed examples", {timeout: 180_000}, () => {
  it('are there', () => {
    expect(seeds.length).toBeGreaterThan(0);
  });

  it('load into a stopped emulator and a new one, and merge into a running one after a reset, as the commands beside them say', async () => {
    for (const [n, seed] of seeds.entries()) {
      const cwd = join(root, `seed-${n}`);
      await mkdir(join(cwd, 'ci'), {recursive: true});
      await writeFile(join(cwd, 'ci', 'seed.json'), seed);
      const file = join(cwd, 'ci', 'seed.json');
      const dataDir = join(cwd, 'emulator');
      // svc emulator import ci/seed.json, into a stopped emulator's data dir.
      const imported = await runCommand(['emulator', 'import', file, '--data-dir', dataDir], {env});
      expect(imported.code, imported.stderr).toBe(0);
      // svc emulator start --in-memory --seed ci/seed.json: the key the seed gave answers /v1.
      // Spawned: this start (with --seed) is under test, and it runs until a signal; one per seed.
      const running = await spawnEmulator(['--in-memory', '--seed', file], env as Record<string, string>);
      try {
        const key = (JSON.parse(seed) as {orgs: {keys?: {secret?: string}[]}[]}).orgs[0]?.keys?.[0]?.secret;
        if (key) {
          const org = await fetch(`${running.ready.api_url}/v1/org`, {
            headers: {authorization: `Bearer ${key}`},
          });
          expect(org.status).toBe(200);
        }
        // svc emulator reset, then svc emulator import ci/seed.json --merge, into the running one.
        const at = ['--data-dir', running.ready.data_dir];
        const reset = await runCommand(['emulator', 'reset', ...at], {env});
        expect(reset.code, reset.stderr).toBe(0);
        const merged = await runCommand(['emulator', 'import', file, '--merge', ...at], {env});
        expect(merged.code, merged.stderr).toBe(0);
      } finally {
        await running.stop();
      }
    }
  });
});

interface ManifestCommand {
  flags: Record<string, {char?: string}>;
}

describe("the README's command lines", () => {
  it('each name a command svc has, with flags that command takes', async () => {
    const manifest = JSON.parse(await readFile(MANIFEST, 'utf8')) as {
      commands: Record<string, ManifestCommand>;
    };
    const problems: string[] = [];
    for (const line of commands) {
      // What the shell would not pass to svc: a comment, a redirect, the command after `--` (exec's child).
      const words = line
        .replace(/\s#.*$/, '')
        .replace(/\s>\s.*$/, '')
        .replace(/\s--\s.*$/, '')
        .split(/\s+/)
        .slice(1);
      const alternatives = words.indexOf('|') >= 0 ? words.slice(words.indexOf('|')) : [];
      const args = alternatives.length > 0 ? words.slice(0, words.indexOf('|')) : words;
      let id = '';
      for (let n = args.length; n > 0; n--) {
        const candidate = args.slice(0, n).join(':');
        if (manifest.commands[candidate]) {
          id = candidate;
          break;
        }
      }
      if (!id) {
        problems.push(`${line}: no such command`);
        continue;
      }
      const flags = new Set([...Object.keys(manifest.commands[id]?.flags ?? {}), 'help']);
      for (const word of words.filter((w) => w.startsWith('--'))) {
        const flag = word.replace(/^\[?--/, '').replace(/[=\]].*$/, '');
        if (flag && !flags.has(flag)) problems.push(`${line}: ${id.replaceAll(':', ' ')} has no --${flag}`);
      }
      // `svc emulator status | stop`: each alternative is a command beside the first.
      const parent = id.split(':').slice(0, -1);
      for (const alt of alternatives.filter((w) => /^[a-z]+$/.test(w))) {
        if (!manifest.commands[[...parent, alt].join(':')]) problems.push(`${line}: no command ${alt}`);
      }
    }
    expect(commands.length).toBeGreaterThan(20);
    expect(problems).toEqual([]);
  });
});

describe("the README's endpoint examples", {timeout: 120_000}, () => {
  // What `svc emulator start --in-memory` runs (its start is not under test here), in this process.
  let running: RunningEmulator;
  beforeAll(async () => {
    running = await startEmulator({port: 0, inMemory: true});
  });
  afterAll(() => running?.stop());

  it('each make an endpoint the emulator takes, as printed', async () => {
    const creates = commands.filter((l) => l.startsWith('svc emulator webhooks create '));
    expect(creates.length).toBeGreaterThan(0);
    for (const line of creates) {
      const args = line
        .replace(/\s#.*$/, '')
        .split(/\s+/)
        .slice(1);
      const r = await runCommand([...args, '--data-dir', running.dataDir], {env});
      expect(r.code, `${line}: ${r.stderr}`).toBe(0);
    }
  });
});

describe("the README's first five minutes", () => {
  it('need nothing the reader does not have, and send the first event to their own server', async () => {
    const readme = await readFile(README, 'utf8');
    const block = /## The first five minutes\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const lines = block.split('\n').filter((l) => l.startsWith('svc '));
    expect(lines[0]).toMatch(/^svc emulator start --demo\b/);
    // The key is pasted when asked, as the emulator's ready message says: no file the reader was never given.
    expect(lines.filter((l) => /\s<\s/.test(l.replace(/\s#.*$/, '')))).toEqual([]);
    expect(lines[1]).toMatch(/^svc login --api-url \S+\s+#.*paste the demo key when asked/);
    // The first event goes through `svc listen` to a local server; an endpoint on a host nobody runs never receives.
    const listen = lines.findIndex((l) => l.startsWith('svc listen --forward-to http://localhost:'));
    const trigger = lines.findIndex((l) => l.startsWith('svc trigger '));
    expect(listen).toBeGreaterThan(0);
    expect(trigger).toBeGreaterThan(listen);
    expect(lines.filter((l) => l.includes('example.com'))).toEqual([]);
  });
});
