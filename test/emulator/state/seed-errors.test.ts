// A seed that cannot be loaded says every problem at once, in svc's own words: shape problems (missing fields,
// unknown keys, wrong types, values outside a set) together with the rules, and JSON mistakes at a line and column.
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {parseStateText} from '../../../src/emulator/state/file.js';
import {EmulatorControlError, type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';

let emu: RunningEmulator;
const dir = mkdtempSync(join(tmpdir(), 'svc-seed-errors-'));
beforeAll(async () => {
  emu = await startEmulator({port: 0, inMemory: true});
});
afterAll(async () => {
  await emu?.stop();
  rmSync(dir, {recursive: true, force: true});
});

async function problemsOf(document: unknown): Promise<string[]> {
  const err = await emu.control.importState({source: 'seed.json', document, mode: 'merge'}).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EmulatorControlError);
  return (err as EmulatorControlError).problems.map((p) => p.message);
}

describe('a seed with many mistakes', () => {
  it('reports nine mistakes of every kind at once, in svc words', async () => {
    const lines = await problemsOf({
      svc_emulator_seed: 1,
      orgs: [
        {
          name: 'Acme',
          colour: 'red',
          keys: [
            {name: 'ci', secret: 'svc_short'},
            {secret: 42, expires: 'forever'},
          ],
          webhooks: [{url: 'ftp://example.com', events: ['sandbox.exploded']}],
          people: [{email: 'dev@example.com', role: 'boss'}],
          sandboxes: [{name: 'box', status: 'melted'}],
        },
      ],
    });
    expect(lines).toEqual(
      expect.arrayContaining([
        'seed.json: orgs[0].colour: is not a field svc knows here (the fields are: id, name, keys, webhooks, sandboxes, people)',
        'seed.json: orgs[0].keys[1].name: is required',
        'seed.json: orgs[0].keys[1].secret: must be a string (text in quotes), not the number 42',
        'seed.json: orgs[0].keys[1].expires: must be 30, 90, 365 (days) or "never"',
        'seed.json: orgs[0].people[0].role: must be one of "owner", "admin", not "boss"',
        expect.stringMatching(
          /^seed\.json: orgs\[0\]\.keys\[0\]\.secret: must be svc_ and 40 letters or digits/,
        ),
        expect.stringMatching(/^seed\.json: orgs\[0\]\.webhooks\[0\]\.url: /),
        expect.stringMatching(/^seed\.json: orgs\[0\]\.webhooks\[0\]\.events/),
        expect.stringMatching(/^seed\.json: orgs\[0\]\.sandboxes\[0\]\.status: must be one of /),
      ]),
    );
    expect(lines).toHaveLength(9);
    expect(lines.join('\n')).not.toMatch(/Invalid|Unrecognized|expected one of/);
  });

  it('says a missing list and a wrong top-level type plainly', async () => {
    expect(await problemsOf({svc_emulator_seed: 1})).toEqual(['seed.json: orgs: is required']);
    expect(await problemsOf({svc_emulator_seed: 1, orgs: {}})).toEqual([
      'seed.json: orgs: must be a list, not an object',
    ]);
    expect(await problemsOf([])).toEqual(['seed.json: must hold a JSON object']);
  });
});

describe('a seed that is not valid JSON', () => {
  const complaint = (text: string) => {
    try {
      parseStateText(text, 'seed.json');
    } catch (err) {
      return (err as Error).message.split('\n')[1]?.trim();
    }
    return undefined;
  };

  it('names the line and column of the mistake, never a character offset, never the text itself', () => {
    const text = '{\n  "svc_emulator_seed": 1,\n  "orgs": [\n    {"name": "x",}\n  ]\n}\n';
    expect(complaint(text)).toBe(
      'seed.json: is not valid JSON: Expected double-quoted property name at line 4, column 18',
    );
    expect(complaint('{"orgs": [1,,2]}')).toMatch(/at line 1, column 13$/);
    expect(complaint('{"secret": tru}')).toMatch(
      /^seed\.json: is not valid JSON: Unexpected token '}' at line 1, column 15$/,
    );
    expect(complaint('{"a": ')).toBe(
      'seed.json: is not valid JSON: the text ends too soon at line 1, column 7',
    );
  });
});
