// How printed commands start svc: whatever works from the folder the person is in.
import {chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {mcpServerCommand, shellQuote, spellSvc, svcCommand} from '../../src/lib/invocation.js';

let base: string;
let project: string;
let script: string;
let binDir: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'svc-invocation-'));
  project = join(base, 'my project');
  script = join(project, 'bin', 'run.js');
  mkdirSync(join(project, 'bin'), {recursive: true});
  mkdirSync(join(project, 'src'));
  writeFileSync(script, '');
  binDir = join(base, 'bin');
  mkdirSync(binDir);
  writeFileSync(join(binDir, 'svc'), '#!/bin/sh\n');
  chmodSync(join(binDir, 'svc'), 0o755);
});
afterAll(() => rmSync(base, {recursive: true, force: true}));

describe('svcCommand', () => {
  it('is plain svc when svc is on PATH', () => {
    expect(svcCommand({env: {PATH: `/nowhere:${binDir}`}, cwd: base, script, platform: 'linux'})).toBe('svc');
  });

  it('is npx svc inside the project folder, and npx @svc/cli when npx started it elsewhere', () => {
    expect(svcCommand({env: {PATH: '/nowhere'}, cwd: join(project, 'src'), script, platform: 'linux'})).toBe(
      'npx svc',
    );
    // npx puts a folder with svc first on PATH; that PATH is not the person's. Outside a project that has the
    // package, a bare `npx svc` would fetch another package of that name.
    expect(svcCommand({env: {PATH: binDir, npm_command: 'exec'}, cwd: base, script, platform: 'linux'})).toBe(
      'npx @svc/cli',
    );
    expect(
      svcCommand({
        env: {PATH: binDir, npm_command: 'exec'},
        cwd: join(project, 'src'),
        script,
        platform: 'linux',
      }),
    ).toBe('npx svc');
  });

  it('is node with the script path, quoted for the shell, anywhere else', () => {
    expect(svcCommand({env: {PATH: '/nowhere'}, cwd: base, script, platform: 'linux'})).toBe(
      `node ${shellQuote(script)}`,
    );
    expect(shellQuote(script)).toMatch(/^'.* project\/bin\/run\.js'$/);
  });
});

describe('svcCommand for a project that installed svc', () => {
  it('is npx svc in the project and its subfolders, node with the path outside it', () => {
    const app = join(base, 'app');
    const installed = join(app, 'node_modules', '@svc', 'cli', 'bin', 'run.js');
    mkdirSync(join(app, 'node_modules', '@svc', 'cli', 'bin'), {recursive: true});
    mkdirSync(join(app, 'src'));
    writeFileSync(installed, '');
    const env = {PATH: '/nowhere'};
    expect(svcCommand({env, cwd: app, script: installed, platform: 'linux'})).toBe('npx svc');
    expect(svcCommand({env, cwd: join(app, 'src'), script: installed, platform: 'linux'})).toBe('npx svc');
    expect(svcCommand({env, cwd: base, script: installed, platform: 'linux'})).toBe(`node ${installed}`);
  });
});

describe('spellSvc', () => {
  it('respells every quoted command where a shell would run svc, and nothing else', () => {
    const text =
      'svc emulator is ready: run `svc login` (or `svc`), then `svc org`; svc keeps `svcx`, `npx svc x` ' +
      'and `claude mcp add-json svc x`; `printenv K | svc login`, `SVC_API_URL=http://h SVC_API_KEY=k svc org`';
    expect(spellSvc(text, 'npx svc')).toBe(
      'svc emulator is ready: run `npx svc login` (or `npx svc`), then `npx svc org`; svc keeps `svcx`, ' +
        '`npx svc x` and `claude mcp add-json svc x`; `printenv K | npx svc login`, ' +
        '`SVC_API_URL=http://h SVC_API_KEY=k npx svc org`',
    );
    expect(spellSvc(text, 'svc')).toBe(text);
  });
});

describe('svcCommand for a copy npx fetched into its cache', () => {
  it('is npx @svc/cli, never a bare npx svc that would fetch another package', () => {
    const cached = join(base, 'npm-cache', '_npx', 'abc123', 'node_modules', '@svc', 'cli', 'bin', 'run.js');
    mkdirSync(dirname(cached), {recursive: true});
    writeFileSync(cached, '');
    const env = {PATH: '/nowhere', npm_command: 'exec'};
    expect(svcCommand({env, cwd: base, script: cached, platform: 'linux'})).toBe('npx @svc/cli');
    expect(mcpServerCommand({env, cwd: base, script: cached, platform: 'linux'})).toEqual({
      command: 'npx',
      args: ['--yes', '@svc/cli'],
    });
  });
});

describe('mcpServerCommand', () => {
  it('is svc on the PATH, else node and the script by absolute paths, else npx when npx started it', () => {
    expect(mcpServerCommand({env: {PATH: binDir}, cwd: base, script, platform: 'linux'})).toEqual({
      command: 'svc',
      args: [],
    });
    expect(mcpServerCommand({env: {PATH: '/nowhere'}, cwd: base, script, platform: 'linux'})).toEqual({
      command: process.execPath,
      args: [script],
    });
    expect(
      mcpServerCommand({env: {PATH: '/nowhere', npm_command: 'exec'}, cwd: base, script, platform: 'linux'}),
    ).toEqual({command: 'npx', args: ['--yes', '@svc/cli']});
  });
});

describe('shellQuote', () => {
  it.each([
    ['/plain/path-1.2', '/plain/path-1.2'],
    ['with space', "'with space'"],
    ["it's", "'it'\\''s'"],
    ['$HOME', "'$HOME'"],
  ])('%s → %s', (value, quoted) => {
    expect(shellQuote(value)).toBe(quoted);
  });
});

describe('svcCommand and mcpServerCommand in the single executable', () => {
  it('name the executable itself: by name when the PATH finds that very file, else by its absolute path', () => {
    const folder = join(base, 'my tools');
    mkdirSync(folder);
    const executable = join(folder, 'svc-linux-x64');
    writeFileSync(executable, '');
    chmodSync(executable, 0o755);
    const context = {cwd: project, script: 'svc-linux-x64', platform: 'linux' as const, executable};
    // Another svc on the PATH (an npm install) is not this one; npx's PATH does not matter either.
    expect(svcCommand({...context, env: {PATH: binDir, npm_command: 'exec'}})).toBe(shellQuote(executable));
    expect(svcCommand({...context, env: {PATH: `${binDir}:${folder}`}})).toBe('svc-linux-x64');
    // A file of the same name elsewhere on the PATH is another program.
    writeFileSync(join(binDir, 'svc-linux-x64'), '');
    expect(svcCommand({...context, env: {PATH: binDir}})).toBe(shellQuote(executable));
    // An editor starts the server from its own folder and PATH: always the absolute path, nothing else.
    expect(mcpServerCommand({...context, env: {PATH: folder}})).toEqual({command: executable, args: []});
  });
});
