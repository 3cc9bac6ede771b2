// Writes docs/commands.md, the command reference, from the commands themselves (oclif.manifest.json, which the
// build makes from src/commands): every command with its summary, usage, arguments, flags and examples.
// test/docs/command-reference.test.ts fails when the file is not what this script writes.
// `npm run build && node scripts/write-command-reference.js`.
import {readFileSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const REFERENCE = join(root, 'docs', 'commands.md');

const bin = 'svc';
const spell = (text) => text.replaceAll('<%= config.bin %>', bin);
const words = (id) => id.split(':').join(' ');

function flagUsage(flag) {
  const name = `--${flag.name}${flag.char ? ` (-${flag.char})` : ''}`;
  if (flag.type === 'boolean') return flag.allowNo ? `--[no-]${flag.name}` : name;
  const value = flag.options ? flag.options.join('|') : (flag.helpValue ?? flag.name.toUpperCase());
  return `${name} ${value}${flag.multiple ? ' …' : ''}`;
}

function cell(text) {
  return spell(String(text ?? ''))
    .replaceAll('|', '\\|')
    .replaceAll('\n', ' ');
}

function commandSection(command) {
  const args = Object.values(command.args ?? {});
  const flags = Object.values(command.flags ?? {}).filter((f) => !f.hidden);
  const own = flags.filter((f) => f.helpGroup !== 'GLOBAL');
  const global = flags.filter((f) => f.helpGroup === 'GLOBAL');
  const usage = [
    bin,
    words(command.id),
    ...args.map((a) => (a.required ? a.name.toUpperCase() : `[${a.name.toUpperCase()}]`)),
    ...(own.length > 0 ? ['[FLAGS]'] : []),
  ].join(' ');
  const lines = [
    `## \`${bin} ${words(command.id)}\``,
    '',
    spell(command.summary ?? command.description ?? ''),
  ];
  if (command.summary && command.description) lines.push('', spell(command.description));
  lines.push('', '```', usage, '```');
  if (args.length > 0) {
    lines.push('', '| argument | |', '| --- | --- |');
    for (const a of args)
      lines.push(
        `| \`${a.name.toUpperCase()}\` | ${cell(a.description)}${a.required ? '' : ' (optional)'} |`,
      );
  }
  if (own.length > 0) {
    lines.push('', '| flag | |', '| --- | --- |');
    for (const f of own) {
      const extra = f.default !== undefined && f.type !== 'boolean' ? ` (default: \`${f.default}\`)` : '';
      lines.push(
        `| \`${cell(flagUsage(f))}\` | ${cell(f.description)}${extra}${f.required ? ' (required)' : ''} |`,
      );
    }
  }
  if (global.length > 0) lines.push('', `Also: ${global.map((f) => `\`--${f.name}\``).join(', ')}.`);
  const examples = (command.examples ?? []).map((e) => (typeof e === 'string' ? e : e.command));
  if (examples.length > 0) lines.push('', 'Examples:', '', '```sh', ...examples.map(spell), '```');
  return lines.join('\n');
}

/** The reference for a manifest, as markdown. */
export function commandReference(manifest) {
  const commands = Object.values(manifest.commands)
    .filter((c) => !c.hidden && c.pluginType === 'core')
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const index = commands.map(
    (c) => `- [\`${bin} ${words(c.id)}\`](#${anchor(c.id)}): ${spell(c.summary ?? '')}`,
  );
  return [
    '# Command reference',
    '',
    'Generated from the commands (`node scripts/write-command-reference.js`); `svc help COMMAND` prints the same.',
    'Exit codes: 0 ok, 1 error, 2 usage, 3 nothing to act on (`emulator status` with no emulator running), 4',
    'authentication, 5 forbidden.',
    '',
    ...index,
    '',
    ...commands.map(commandSection).flatMap((s) => [s, '']),
  ].join('\n');
}

function anchor(id) {
  return `${bin}-${id.replaceAll(':', '-')}`.toLowerCase().replace(/[^a-z0-9-]/g, '');
}

export function readManifest() {
  return JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(REFERENCE, commandReference(readManifest()));
  console.error(`write-command-reference: ${REFERENCE}`);
}
