// `svc mcp config`: a snippet per client that references the login or the environment, never a key.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the expected snippets hold the clients' own ${…} placeholders
import {spawnSync} from 'node:child_process';
import {chmodSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {delimiter, join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {BIN, runCommand} from '../helpers/run-cli.js';

const KEY = `svc_${'k'.repeat(40)}`;
// `svc` on the PATH, as after a global install or npm link: the snippet can then name it.
const shims = mkdtempSync(join(tmpdir(), 'svc-mcp-config-'));
writeFileSync(join(shims, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
chmodSync(join(shims, 'svc'), 0o755);
afterAll(() => rmSync(shims, {recursive: true, force: true}));
const env = {
  SVC_API_KEY: KEY,
  SVC_API_URL: 'http://127.0.0.1:4010',
  SVC_CONFIG_DIR: '/nonexistent-svc-config',
  PATH: `${shims}${delimiter}${process.env.PATH}`,
};
/** What a person has when svc is not on their PATH (a clone, or a project's local install). */
const withoutSvc = {...env, PATH: join(process.execPath, '..')};

describe('svc mcp config', {timeout: 60_000}, () => {
  it('prints a pasteable JSON snippet on stdout and where it goes on stderr', async () => {
    const r = await runCommand(['mcp', 'config', '--client', 'claude'], {env});
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({mcpServers: {svc: {command: 'svc', args: ['mcp']}}});
    expect(r.stderr).toMatch(/Add this to \.mcp\.json/);
    expect(r.stderr).toMatch(/svc login/);
  });

  it.each([
    ['claude', {mcpServers: {svc: {command: 'svc', args: ['mcp'], env: {SVC_API_KEY: '${SVC_API_KEY:-}'}}}}],
    [
      'cursor',
      {mcpServers: {svc: {command: 'svc', args: ['mcp'], env: {SVC_API_KEY: '${env:SVC_API_KEY}'}}}},
    ],
    [
      'vscode',
      {
        servers: {
          svc: {type: 'stdio', command: 'svc', args: ['mcp'], env: {SVC_API_KEY: '${env:SVC_API_KEY}'}},
        },
      },
    ],
  ])('--key-from env for %s references the variable, never its value', async (client, expected) => {
    const r = await runCommand(['mcp', 'config', '--client', client, '--key-from', 'env', '--json'], {env});
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({client, format: 'json', key_source: 'env', config: expected});
    expect(JSON.parse(out.text)).toEqual(out.config);
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it('writes TOML for codex, forwarding the variables by name', async () => {
    const r = await runCommand(['mcp', 'config', '--client', 'codex', '--key-from', 'env'], {env});
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      '[mcp_servers.svc]\ncommand = "svc"\nargs = ["mcp"]\nenv_vars = ["SVC_API_KEY", "SVC_API_URL"]\n',
    );
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it('names node and the entry script by absolute paths when svc is not on the PATH, which start from anywhere', async () => {
    const r = await runCommand(['mcp', 'config', '--client', 'cursor', '--json'], {env: withoutSvc});
    expect(r.code).toBe(0);
    const server = JSON.parse(r.stdout).config.mcpServers.svc as {command: string; args: string[]};
    expect(server).toEqual({command: process.execPath, args: [BIN, 'mcp']});
    // An editor starts it with its own folder and PATH: the command must not depend on either.
    // Spawned: what is under test is that the printed command starts a process from anywhere.
    const started = spawnSync(server.command, [...server.args.slice(0, -1), '--version'], {
      cwd: '/',
      env: {PATH: '/nonexistent'},
      encoding: 'utf8',
    });
    expect(started.stdout).toMatch(/^svc\/\d+\.\d+\.\d+ /);
  });

  it('refuses an unknown client with a usage error that lists the choices', async () => {
    const r = await runCommand(['mcp', 'config', '--client', 'emacs'], {env});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/claude, cursor, vscode, codex/);
  });
});
