// `--help` of every command, as a person asks for it: it renders, exits 0, shows how the command is typed and
// names every flag the command takes. The list comes from the command registry, so a new command is covered too.
import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {COMMANDS} from '../../src/cli/commands.js';
import {runCommand} from '../helpers/run-cli.js';

interface ManifestCommand {
  id: string;
  hidden?: boolean;
  flags: Record<string, {name: string; hidden?: boolean | null; char?: string | null}>;
}

const manifest = JSON.parse(readFileSync(new URL('../../oclif.manifest.json', import.meta.url), 'utf8')) as {
  commands: Record<string, ManifestCommand>;
};
const ids = Object.keys(COMMANDS).sort();

describe('--help', {timeout: 120_000}, () => {
  it('exists in the shipped manifest for exactly the registered commands', () => {
    expect(Object.keys(manifest.commands).sort()).toEqual(ids);
  });

  it.each(ids)('of `svc %s` renders, exits 0 and names its flags', async (id) => {
    const words = id.split(':');
    const r = await runCommand([...words, '--help'], {env: {COLUMNS: '200'}});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^USAGE$/m);
    expect(r.stdout).toContain(`$ svc ${words.join(' ')}`);
    const command = manifest.commands[id] as ManifestCommand;
    for (const flag of Object.values(command.flags).filter((f) => !f.hidden)) {
      expect(r.stdout, `--${flag.name}`).toMatch(new RegExp(`--${flag.name}\\b`));
      if (flag.char) expect(r.stdout, `-${flag.char}`).toMatch(new RegExp(`-${flag.char}\\b`));
    }
  });

  it('of svc itself lists every topic and top-level command', async () => {
    const r = await runCommand(['--help'], {env: {COLUMNS: '200'}});
    expect(r.code, r.stderr).toBe(0);
    const topLevel = new Set(ids.map((id) => id.split(':')[0] as string));
    for (const name of topLevel) expect(r.stdout, name).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
  });
});
