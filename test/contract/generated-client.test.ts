// A client generated from the OpenAPI document the emulator serves, as a team using svc would make one: types
// from openapi-typescript, calls through openapi-fetch. One program that calls every /v1 operation is
// type-checked against the generated types (with two broken copies of the document beside it, in the same
// compile, to show the check sees a missing operation and a body declared only as `*/*`), then run against the
// emulator on loopback with a real key; every answer must be one the document declares.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {pathToFileURL} from 'node:url';
import createClient from 'openapi-fetch';
import openapiTS, {astToString} from 'openapi-typescript';
import ts from 'typescript';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {createDeliveryPlugin} from '../../src/emulator/delivery/plugin.js';
import {createApp, type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import type {OpenApiDocument} from '../../src/schemas/openapi.js';
import {type Receiver, startReceiver} from '../emulator/delivery/helpers.js';
import {openApiChecker} from '../helpers/openapi-check.js';
import type {Exchange} from '../helpers/recording-proxy.js';

const JSON_MEDIA_TYPE = 'application/json';

/** The program a client's author writes against the generated types, with the module it takes them from. */
function clientProgram(schemaModule: string): string {
  return `
import type createClient from 'openapi-fetch';
import type {paths} from './${schemaModule}.js';

// A body a generated client can send as JSON: a document declaring a write's body only as */* fails here.
type TakesJson<Op> = Op extends {requestBody?: infer B}
  ? NonNullable<B> extends {content: {'${JSON_MEDIA_TYPE}': unknown}}
    ? true
    : false
  : false;
export const writesTakeJson: [
  TakesJson<paths['/v1/api-keys']['post']>,
  TakesJson<paths['/v1/api-keys/{key}']['delete']>,
  TakesJson<paths['/v1/webhooks']['post']>,
] = [true, true, true];

export interface Answer {
  status: number;
  data: unknown;
  error: unknown;
}

export interface Options {
  baseUrl: string;
  secret: string;
  fetch: (request: Request) => Promise<Response>;
  key: string;
  webhook: string;
}

const answer = (r: {response: Response; data?: unknown; error?: unknown}): Answer => ({
  status: r.response.status,
  data: r.data,
  error: r.error,
});

export async function callEveryOperation(create: typeof createClient, options: Options) {
  const client = create<paths>({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
    headers: {Authorization: \`Bearer \${options.secret}\`},
  });
  const org = await client.GET('/v1/org');
  const keys = await client.GET('/v1/api-keys');
  const createKey = await client.POST('/v1/api-keys', {body: {name: 'generated'}});
  const revokeKey = await client.DELETE('/v1/api-keys/{key}', {params: {path: {key: options.key}}});
  const webhooks = await client.GET('/v1/webhooks');
  const createWebhook = await client.POST('/v1/webhooks', {
    body: {url: 'https://hooks.example.com/generated', events: ['sandbox.ready']},
  });
  const deliveries = await client.GET('/v1/webhooks/{webhook}/deliveries', {
    params: {path: {webhook: options.webhook}},
  });
  // The records as the generated types name them.
  const typed: {
    orgName: string | undefined;
    keyStatuses: ('active' | 'revoked' | 'expired')[] | undefined;
    webhookUrls: string[] | undefined;
    deliveryStatuses: ('pending' | 'succeeded' | 'failed')[] | undefined;
    refusedCodes: (string | undefined)[];
  } = {
    orgName: org.data?.name,
    keyStatuses: keys.data?.data.map((k) => k.status),
    webhookUrls: webhooks.data?.data.map((w) => w.url),
    deliveryStatuses: deliveries.data?.data.map((d) => d.status),
    refusedCodes: [createKey.error?.error.code, revokeKey.error?.error.code, createWebhook.error?.error.code],
  };
  return {
    typed,
    answers: {
      'GET /v1/org': answer(org),
      'GET /v1/api-keys': answer(keys),
      'POST /v1/api-keys': answer(createKey),
      'DELETE /v1/api-keys/{key}': answer(revokeKey),
      'GET /v1/webhooks': answer(webhooks),
      'POST /v1/webhooks': answer(createWebhook),
      'GET /v1/webhooks/{webhook}/deliveries': answer(deliveries),
    } as Record<string, Answer>,
  };
}
`;
}

interface Answer {
  status: number;
  data: unknown;
  error: unknown;
}
interface ClientProgram {
  callEveryOperation(
    create: typeof createClient,
    options: {
      baseUrl: string;
      secret: string;
      fetch: (request: Request) => Promise<Response>;
      key: string;
      webhook: string;
    },
  ): Promise<{
    typed: {
      orgName?: string;
      keyStatuses?: string[];
      webhookUrls?: string[];
      deliveryStatuses?: string[];
      refusedCodes: (string | undefined)[];
    };
    answers: Record<string, Answer>;
  }>;
}

interface Sent {
  method: string;
  path: string;
  contentType: string | null;
  body: string;
}

type Operation = {
  requestBody?: {content: Record<string, unknown>};
  responses: Record<string, {$ref?: string; content?: Record<string, unknown>}>;
};

let em: RunningEmulator;
let receiver: Receiver;
let doc: OpenApiDocument;
let check: (exchange: Exchange) => string[];
let dir: string;
let secret: string;
let revokedSecret: string;
let keyId: string;
let webhookId: string;
let webhookUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-generated-client-'));
  receiver = await startReceiver();
  em = await startEmulator({port: 0, inMemory: true, allowLocalEndpoints: true, log: () => {}});
  const key = await em.control.createKey({name: 'generated client'});
  secret = key.secret;
  keyId = key.id;
  const revoked = await em.control.createKey({name: 'generated client, revoked'});
  await em.control.revokeKey(revoked.id);
  revokedSecret = revoked.secret;
  webhookUrl = `${receiver.url}/hook`;
  webhookId = (await em.control.createWebhook({url: webhookUrl, events: ['sandbox.ready']})).id;
  const {event} = await em.control.trigger({type: 'sandbox.ready'});
  await em.control.waitForDelivery({event_id: event!.id, status: 'succeeded'});

  const served = await fetch(`${em.apiUrl}/_emulator/openapi.json`, {
    headers: {authorization: `Bearer ${em.adminToken}`},
  });
  doc = (await served.json()) as OpenApiDocument;
  check = await openApiChecker(doc);
});
afterAll(async () => {
  await em?.stop();
  await receiver?.close();
  if (dir) rmSync(dir, {recursive: true, force: true});
});

/** Every /v1 operation the emulator's router answers, as `METHOD /path/{param}`. */
function routedOperations(): string[] {
  const app = createApp(em.context, {plugins: [createDeliveryPlugin()]});
  return [
    ...new Set(
      app.routes
        .filter((r) => r.path.startsWith('/v1/') && r.method !== 'ALL')
        .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`),
    ),
  ];
}

function operationsOf(document: OpenApiDocument): Map<string, Operation> {
  return new Map(
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, Operation>)
        .filter(([method]) => method !== 'parameters')
        .map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as const),
    ),
  );
}

/** The response the document declares for a status, its `$ref` followed. */
function declaredResponse(op: Operation, status: number): {content?: Record<string, unknown>} {
  const response = op.responses[String(status)] ?? op.responses.default;
  if (!response?.$ref) return response ?? {};
  const name = response.$ref.replace('#/components/responses/', '');
  return (doc.components.responses as Record<string, {content?: Record<string, unknown>}>)[name] ?? {};
}

/** The `error.code` the document allows in a response: the schema's `const`. */
function declaredErrorCode(op: Operation, status: number): unknown {
  const media = declaredResponse(op, status).content?.[JSON_MEDIA_TYPE] as {schema: {$ref: string}};
  const name = media.schema.$ref.replace('#/components/schemas/', '');
  const schema = doc.components.schemas as Record<
    string,
    {properties: {error: {properties: {code: {const?: string}}}}}
  >;
  return schema[name]?.properties.error.properties.code.const;
}

async function generateTypes(name: string, document: unknown): Promise<void> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0]);
  writeFileSync(join(dir, `${name}.d.ts`), astToString(ast));
  writeFileSync(join(dir, `${name}-client.ts`), clientProgram(name));
}

let loaded: Promise<ClientProgram> | undefined;
/** The client program (type-checked in the test below) as JavaScript: its imports are types only. */
function loadProgram(): Promise<ClientProgram> {
  loaded ??= (async () => {
    const js = ts.transpileModule(clientProgram('schema'), {
      compilerOptions: {module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022},
    }).outputText;
    const file = join(dir, 'schema-client.mjs');
    writeFileSync(file, js);
    return (await import(pathToFileURL(file).href)) as ClientProgram;
  })();
  return loaded;
}

/** Runs the client program with this key, recording each exchange. */
async function runProgram(key: string) {
  const program = await loadProgram();
  const sent: Sent[] = [];
  const exchanges: Exchange[] = [];
  const recordingFetch = async (request: Request) => {
    const url = new URL(request.url);
    sent.push({
      method: request.method,
      path: url.pathname,
      contentType: request.headers.get('content-type'),
      body: await request.clone().text(),
    });
    const response = await fetch(request);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    exchanges.push({
      method: request.method,
      url: url.pathname + url.search,
      status: response.status,
      headers,
      body: await response.clone().text(),
    });
    return response;
  };
  const servers = (doc as {servers?: {url: string}[]}).servers ?? [];
  const result = await program.callEveryOperation(createClient, {
    // The served document names the emulator's own address: the client takes it from there.
    baseUrl: servers[0]?.url ?? '',
    secret: key,
    fetch: recordingFetch,
    key: keyId,
    webhook: webhookId,
  });
  return {...result, sent, exchanges};
}

describe('a client generated from the served OpenAPI document (openapi-typescript, openapi-fetch)', () => {
  it('the served document describes every /v1 route the emulator answers, each request body as JSON first', () => {
    const documented = operationsOf(doc);
    expect(new Set(documented.keys())).toEqual(new Set(routedOperations()));
    for (const [where, op] of documented) {
      if (!op.requestBody) continue;
      // Generators take the first media type: `*/*` alone made openapi-python-client skip the operation and
      // hey-api send `Content-Type: */*`.
      expect(Object.keys(op.requestBody.content)[0], where).toBe(JSON_MEDIA_TYPE);
    }
  });

  it('types a program calling every /v1 operation, and fails it for a missing operation or a */*-only body', async () => {
    await generateTypes('schema', doc);
    const missing = structuredClone(doc);
    delete missing.paths['/v1/webhooks/{webhook}/deliveries'];
    await generateTypes('missing', missing);
    const anyBody = structuredClone(doc);
    (anyBody.paths['/v1/webhooks']!.post as Operation).requestBody = {content: {'*/*': {schema: {}}}};
    await generateTypes('any-body', anyBody);

    // One compile for the three programs. openapi-fetch is found where the project installed it.
    const require = createRequire(import.meta.url);
    const program = ts.createProgram({
      rootNames: ['schema', 'missing', 'any-body'].map((name) => join(dir, `${name}-client.ts`)),
      options: {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
        types: [],
        paths: {
          'openapi-fetch': [join(dirname(require.resolve('openapi-fetch/package.json')), 'dist/index.d.mts')],
        },
      },
    });
    const problems = (name: string) =>
      ts
        .getPreEmitDiagnostics(program, program.getSourceFile(join(dir, `${name}-client.ts`)))
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));

    expect(problems('schema')).toEqual([]);
    expect(problems('missing').join('\n')).toContain('/v1/webhooks/{webhook}/deliveries');
    expect(problems('any-body').join('\n')).toMatch(/Type 'true' is not assignable to type 'false'/);
  });

  it('calls every /v1 operation with a real key and gets the answers the document declares', async () => {
    const {typed, answers, sent, exchanges} = await runProgram(secret);
    const documented = operationsOf(doc);
    expect(new Set(Object.keys(answers))).toEqual(new Set(routedOperations()));
    expect(exchanges.flatMap(check)).toEqual([]);

    // One exchange per call, in the order the program makes them.
    expect(exchanges).toHaveLength(Object.keys(answers).length);
    for (const [i, [where, answer]] of Object.entries(answers).entries()) {
      const op = documented.get(where)!;
      const [method] = where.split(' ');
      const exchange = exchanges[i];
      expect(`${exchange?.method} ${exchange?.status}`, where).toBe(`${method} ${answer.status}`);
      // The Content-Type is one the document declares for this answer.
      const declared = Object.keys(declaredResponse(op, answer.status).content ?? {});
      expect(declared, where).toContain(exchange?.headers['content-type']?.split(';')[0]);
      if (method === 'GET') {
        expect(answer.status, where).toBeGreaterThanOrEqual(200);
        expect(answer.status, where).toBeLessThan(300);
        expect(answer.error, where).toBeUndefined();
      } else {
        // A refused write: the status the document gives it, with the code its schema fixes.
        expect(Object.keys(op.responses), where).toContain(String(answer.status));
        expect(answer.status, where).toBe(403);
        expect((answer.error as {error: {code: string}}).error.code, where).toBe(
          declaredErrorCode(op, answer.status),
        );
      }
    }
    // Every body the client sent went as JSON, the media type the document declares first.
    const withBody = sent.filter((s) => s.body !== '');
    expect(withBody.map((s) => `${s.method} ${s.path}`)).toEqual(['POST /v1/api-keys', 'POST /v1/webhooks']);
    for (const s of withBody) expect(s.contentType).toBe(JSON_MEDIA_TYPE);

    expect(typed.orgName).toEqual(expect.any(String));
    expect(typed.keyStatuses).toContain('active');
    expect(typed.webhookUrls).toEqual([webhookUrl]);
    expect(typed.deliveryStatuses).toEqual(['succeeded']);
    expect(typed.refusedCodes).toEqual(['forbidden', 'forbidden', 'forbidden']);
  });

  it('gets the documented 401 on every /v1 operation with a revoked key', async () => {
    const {answers, exchanges} = await runProgram(revokedSecret);
    expect(exchanges.flatMap(check)).toEqual([]);
    const documented = operationsOf(doc);
    for (const [where, answer] of Object.entries(answers)) {
      expect(answer.status, where).toBe(401);
      expect((answer.error as {error: {code: string}}).error.code, where).toBe(
        declaredErrorCode(documented.get(where)!, 401),
      );
    }
  });
});
