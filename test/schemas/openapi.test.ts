// The OpenAPI document of /v1: generated from the schemas, kept in fixtures/openapi.json, served by the
// emulator, covering every /v1 route it answers, and clean for a third-party linter (Redocly's strictest
// ruleset) and a third-party JSON Schema validator (Ajv, draft 2020-12).
import {readFileSync} from 'node:fs';
import {createConfig, lintFromString} from '@redocly/openapi-core';
import {Ajv2020} from 'ajv/dist/2020.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {createApp, type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {createDeliveryPlugin} from '../../src/emulator/delivery/plugin.js';
import {
  ERROR_STATUS,
  EVENT_TYPES,
  V1_ERROR_CODES,
  WEBHOOK_CREATE_DEPRECATION,
} from '../../src/definitions.js';
import {buildOpenApiDocument, eventComponentName, eventJsonSchema} from '../../src/schemas/openapi.js';
import {eventSample} from '../../src/services/events/sample.js';

const FIXTURE = new URL('../../fixtures/openapi.json', import.meta.url);

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({port: 0, inMemory: true});
});
afterAll(() => emu?.stop());

describe('the OpenAPI document', () => {
  it('is kept in fixtures/openapi.json exactly as the schemas generate it (else run `npm run openapi`)', () => {
    const committed = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    expect(committed).toEqual(buildOpenApiDocument());
  });

  it("passes Redocly's recommended-strict lint", async () => {
    const config = await createConfig({
      extends: ['recommended-strict'],
      // The three writes an API key may not make answer 403 and nothing else, on the service as here: they
      // have no 2xx answer to document. Every other operation has one (checked below).
      rules: {'operation-2xx-response': 'off'},
    });
    const source = readFileSync(FIXTURE, 'utf8');
    const problems = await lintFromString({source, absoluteRef: '/openapi.json', config});
    expect(problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('describes every /v1 route the emulator answers, and no other', () => {
    const app = createApp(emu.context, {plugins: [createDeliveryPlugin()]});
    const served = app.routes
      .filter((r) => r.path.startsWith('/v1/') && r.method !== 'ALL')
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    const documented = Object.entries(buildOpenApiDocument().paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((k) => k !== 'parameters')
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(new Set(documented)).toEqual(new Set(served));
  });

  it('gives every read a 200 with a body, and every write a 403 that names the account page', () => {
    for (const [path, item] of Object.entries(buildOpenApiDocument().paths)) {
      for (const [method, op] of Object.entries(
        item as Record<string, {responses?: Record<string, unknown>}>,
      )) {
        if (method === 'parameters') continue;
        const statuses = Object.keys(op.responses ?? {});
        expect(statuses, `${method} ${path}`).toContain(method === 'get' ? '200' : '403');
        expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['401', '429']));
      }
    }
  });

  it('gives the three refused writes an optional body of any type, JSON declared first for code generators', () => {
    const doc = buildOpenApiDocument();
    const writes = [
      ['/v1/api-keys', 'post'],
      ['/v1/api-keys/{key}', 'delete'],
      ['/v1/webhooks', 'post'],
    ] as const;
    for (const [path, method] of writes) {
      const op = doc.paths[path]?.[method] as {
        requestBody?: {required: boolean; content: Record<string, unknown>};
      };
      expect(op.requestBody, `${method} ${path}`).toMatchObject({
        required: false,
        content: {'application/json': {schema: {}}, '*/*': {schema: {}}},
      });
      // openapi-python-client and hey-api take the first media type: any-type alone made the one skip the
      // operation and the other send `Content-Type: */*`.
      expect(Object.keys(op.requestBody?.content ?? {})[0], `${method} ${path}`).toBe('application/json');
    }
  });

  it('declares application/json first for every operation with a body, and a body for every write', () => {
    const doc = buildOpenApiDocument();
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, {requestBody?: {content: Record<string, unknown>}}>)
        .filter(([method]) => method !== 'parameters')
        .map(([method, op]) => ({where: `${method.toUpperCase()} ${path}`, method, op})),
    );
    const webhookOperations = Object.entries(doc.webhooks).map(([type, item]) => ({
      where: `webhook ${type}`,
      method: 'post',
      op: (item as {post: {requestBody?: {content: Record<string, unknown>}}}).post,
    }));
    for (const {where, method, op} of [...operations, ...webhookOperations]) {
      // A /v1 write takes a body (refused whatever it carries); a read takes none.
      if (method !== 'get') expect(op.requestBody, where).toBeDefined();
      if (!op.requestBody) continue;
      expect(Object.keys(op.requestBody.content)[0], where).toBe('application/json');
    }
  });

  it('names every error code a /v1 answer can carry, 405 method_not_allowed included, in a default answer of every operation', () => {
    const doc = buildOpenApiDocument();
    const error = doc.components.schemas.Error as {
      properties: {error: {properties: {code: {enum: string[]}}}};
    };
    expect(error.properties.error.properties.code.enum).toEqual([...V1_ERROR_CODES]);
    expect(V1_ERROR_CODES).toContain('method_not_allowed');
    for (const code of V1_ERROR_CODES) expect(ERROR_STATUS[code]).toBeGreaterThanOrEqual(400);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(
        item as Record<string, {responses?: Record<string, unknown>}>,
      )) {
        if (method === 'parameters') continue;
        expect(op.responses?.default, `${method} ${path}`).toEqual({$ref: '#/components/responses/Error'});
      }
    }
    expect((doc.info as {description: string}).description).toContain('405 method_not_allowed');
  });

  it('gives the Deprecation header the form of RFC 9745 (@ and Unix seconds), as POST /v1/webhooks sends it', () => {
    const header = (doc: ReturnType<typeof buildOpenApiDocument>) =>
      (doc.components.headers as Record<string, {schema: {pattern: string}}>).Deprecation;
    const pattern = new RegExp(header(buildOpenApiDocument())?.schema.pattern as string);
    expect(WEBHOOK_CREATE_DEPRECATION).toMatch(pattern);
    expect('true').not.toMatch(pattern);
  });

  it('is served by the emulator at /_emulator/openapi.json with the admin token only, naming its own address', async () => {
    // The contract leaves only /_emulator/ready open; the document is a control route like the rest.
    const res = await fetch(`${emu.apiUrl}/_emulator/openapi.json`, {
      headers: {authorization: `Bearer ${emu.adminToken}`},
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(buildOpenApiDocument({serverUrl: emu.apiUrl}));
    const anonymous = await fetch(`${emu.apiUrl}/_emulator/openapi.json`);
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.code).toBe('unauthorized');
    const key = await emu.control.createKey({name: 'not-admin'});
    const withKey = await fetch(`${emu.apiUrl}/_emulator/openapi.json`, {
      headers: {authorization: `Bearer ${key.secret}`},
    });
    expect(withKey.status).toBe(401);
    // The one open path.
    expect(await (await fetch(`${emu.apiUrl}/_emulator/ready`)).json()).toEqual({ready: true});
    expect((await fetch(`${emu.apiUrl}/_emulator/health`)).status).toBe(401);
  });
});

describe('event schemas', () => {
  const ajv = new Ajv2020({strict: true, allErrors: true});
  ajv.addFormat('date-time', {validate: (s: string) => !Number.isNaN(Date.parse(s))});

  it.each(EVENT_TYPES)('%s: the sample matches the schema, the document has it as a webhook', (type) => {
    const validate = ajv.compile(eventJsonSchema(type));
    const sample = eventSample({type, now: new Date('2026-03-01T12:00:00Z')});
    expect(validate(sample), JSON.stringify(validate.errors)).toBe(true);

    // Another type's body, a missing sandbox and an unknown top-level field are refused.
    const other = EVENT_TYPES.find((t) => t !== type);
    expect(validate({...sample, type: other})).toBe(false);
    expect(validate({...sample, data: {}})).toBe(false);
    expect(validate({...sample, extra: 1})).toBe(false);

    // As strict as the contract: ids in their exact shapes (from the definitions), expires_at a date-time.
    const sandbox = sample.data.sandbox;
    const withSandbox = (patch: Record<string, unknown>) => ({
      ...sample,
      data: {sandbox: {...sandbox, ...patch}},
    });
    expect(validate(withSandbox({id: 'sbx_short'}))).toBe(false);
    expect(validate(withSandbox({id: 'a plain string'}))).toBe(false);
    expect(validate(withSandbox({expires_at: 'next tuesday'}))).toBe(false);
    expect(validate(withSandbox({expires_at: '2026-03-02T12:00:00.000Z'}))).toBe(true);
    expect(validate({...sample, id: `${sample.id}0`})).toBe(false);
    expect(validate({...sample, org_id: `${sample.org_id}0`})).toBe(false);

    const doc = buildOpenApiDocument();
    const hook = doc.webhooks[type] as {post: {requestBody: {content: Record<string, {schema: unknown}>}}};
    expect(hook.post.requestBody.content['application/json']?.schema).toEqual({
      $ref: `#/components/schemas/${eventComponentName(type)}`,
    });
  });
});
