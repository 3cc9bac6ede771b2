// Checks recorded /v1 answers against the OpenAPI document with a third-party validator: openapi-backend
// matches the operation and builds each response's body and header schemas, compiled by Ajv for JSON Schema
// 2020-12 (the dialect of OpenAPI 3.1). The document's own shape is checked by the Redocly lint in
// test/schemas/openapi.test.ts; openapi-backend's definition check knows OpenAPI 3.0 only, so it is skipped
// (`quick`, which also compiles each validator when first used).
import {Ajv2020} from 'ajv/dist/2020.js';
import OpenAPIBackend, {SetMatchType} from 'openapi-backend';
import type {Exchange} from './recording-proxy.js';

type Doc = ConstructorParameters<typeof OpenAPIBackend>[0]['definition'];

export async function openApiChecker(document: unknown): Promise<(exchange: Exchange) => string[]> {
  const api = new OpenAPIBackend({
    definition: document as Doc,
    strict: true,
    validate: true,
    quick: true,
    customizeAjv: (_draft7, options) => {
      const ajv = new Ajv2020({...options, strict: false});
      ajv.addFormat('date-time', {validate: (s: string) => !Number.isNaN(Date.parse(s))});
      return ajv as never;
    },
  });
  await api.init();
  return (exchange) => {
    const where = `${exchange.method} ${exchange.url} → ${exchange.status}`;
    const url = new URL(exchange.url, 'http://x');
    const operation = api.matchOperation({method: exchange.method, path: url.pathname, headers: {}});
    if (!operation) return [`${where}: no operation of the document matches`];
    const responses = (operation.responses ?? {}) as Record<string, unknown>;
    if (!(String(exchange.status) in responses)) return [`${where}: status not in the document`];
    const problems: string[] = [];
    if (!/^application\/json\b/.test(exchange.headers['content-type'] ?? '')) {
      problems.push(`${where}: content-type is ${exchange.headers['content-type']}, not application/json`);
    }
    let body: unknown;
    try {
      body = JSON.parse(exchange.body);
    } catch {
      return [`${where}: the body is not JSON`];
    }
    const valid = api.validateResponse(body, operation, exchange.status);
    for (const e of valid.errors ?? []) problems.push(`${where}: body ${e.instancePath} ${e.message}`);
    // superset: every header the document names for this answer must be there (Retry-After, Deprecation).
    const headers = api.validateResponseHeaders(exchange.headers, operation, {
      statusCode: exchange.status,
      setMatchType: SetMatchType.Superset,
    });
    for (const e of headers.errors ?? []) problems.push(`${where}: headers ${e.instancePath} ${e.message}`);
    return problems;
  };
}
