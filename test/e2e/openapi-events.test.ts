// `svc emulator openapi`, `svc events schema` and `svc events sample`, run as a user runs them.
import {readFileSync} from 'node:fs';
import {Ajv2020} from 'ajv/dist/2020.js';
import {describe, expect, it} from 'vitest';
import {EVENT_TYPES} from '../../src/definitions.js';
import {runCommand} from '../helpers/run-cli.js';

const FIXTURE = JSON.parse(readFileSync(new URL('../../fixtures/openapi.json', import.meta.url), 'utf8'));

describe('svc emulator openapi', {timeout: 60_000}, () => {
  it('prints the document the package ships, and names another server when asked', async () => {
    const plain = await runCommand(['emulator', 'openapi']);
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.stdout)).toEqual(FIXTURE);

    const other = await runCommand(['emulator', 'openapi', '--server-url', 'https://api.example.test/']);
    expect(other.code).toBe(0);
    expect(JSON.parse(other.stdout).servers).toEqual([{url: 'https://api.example.test'}]);
  });

  it('refuses a server address that is not http(s), with usage exit 2', async () => {
    const r = await runCommand(['emulator', 'openapi', '--server-url', 'ftp://files.example.test']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--server-url must be an http:// or https:// address');
    expect(r.stdout).toBe('');
  });
});

describe('svc events schema and sample', {timeout: 60_000}, () => {
  it('gives, for every event type, a sample that its schema accepts and another type rejects', async () => {
    const ajv = new Ajv2020({strict: true});
    ajv.addFormat('date-time', {validate: (s: string) => !Number.isNaN(Date.parse(s))});
    const schemas = new Map<string, ReturnType<typeof ajv.compile>>();
    for (const type of EVENT_TYPES) {
      const r = await runCommand(['events', 'schema', type]);
      expect(r.code, r.stderr).toBe(0);
      schemas.set(type, ajv.compile(JSON.parse(r.stdout)));
    }
    for (const type of EVENT_TYPES) {
      const r = await runCommand(['events', 'sample', type, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const sample = JSON.parse(r.stdout);
      expect(sample.type).toBe(type);
      for (const [other, validate] of schemas)
        expect(validate(sample), `${type} against ${other}`).toBe(other === type);
    }
  });

  it('names the event types when given an unknown one', async () => {
    const r = await runCommand(['events', 'sample', 'sandbox.exploded']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('sandbox.ready');
  });
});
