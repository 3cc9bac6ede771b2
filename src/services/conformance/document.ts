// Checks one HTTP answer against the OpenAPI document: its status is one the operation documents, the headers
// that answer requires are there, and the body matches the answer's JSON Schema (read with zod's JSON Schema
// reader, references and all).
import {z} from 'zod';
import type {OpenApiDocument} from '../../schemas/openapi.js';

export interface Answer {
  status: number;
  headers: {get(name: string): string | null};
  body: string;
}

type Json = Record<string, unknown>;

export class DocumentChecker {
  private readonly schemas = new Map<string, z.ZodType>();
  private readonly defs: Json;

  constructor(private readonly doc: OpenApiDocument) {
    // Component references become $defs references, which the reader resolves within one schema.
    const components = (doc.components.schemas ?? {}) as Json;
    this.defs = JSON.parse(
      JSON.stringify(components).replaceAll('#/components/schemas/', '#/$defs/'),
    ) as Json;
  }

  /** Every problem of `answer` as the answer of `method path` (path as the document writes it); [] when none. */
  problems(method: string, path: string, answer: Answer): string[] {
    const operation = (this.doc.paths[path] as Record<string, Json> | undefined)?.[method.toLowerCase()];
    if (!operation) return [`the document has no ${method.toUpperCase()} ${path}`];
    const responses = (operation.responses ?? {}) as Record<string, Json>;
    const documented = responses[String(answer.status)];
    if (!documented) {
      return [`status ${answer.status} is not one the document gives (${Object.keys(responses).join(', ')})`];
    }
    const response = this.resolve(documented);
    const problems: string[] = [];
    for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
      if (this.resolve(header).required && answer.headers.get(name) === null)
        problems.push(`header ${name} is missing`);
    }
    const content = (response.content as Record<string, {schema?: Json}> | undefined)?.['application/json'];
    if (!content?.schema) return problems;
    if (!/^application\/json\b/i.test(answer.headers.get('content-type') ?? '')) {
      problems.push(
        `content-type is ${answer.headers.get('content-type') ?? 'missing'}, not application/json`,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return [...problems, 'the body is not JSON'];
    }
    const result = this.schemaOf(content.schema).safeParse(body);
    if (!result.success) {
      for (const issue of result.error.issues.slice(0, 5)) {
        problems.push(`body ${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`);
      }
    }
    return problems;
  }

  private schemaOf(schema: Json): z.ZodType {
    const key = JSON.stringify(schema);
    let compiled = this.schemas.get(key);
    if (!compiled) {
      const rooted = JSON.parse(key.replaceAll('#/components/schemas/', '#/$defs/')) as Json;
      compiled = z.fromJSONSchema({...rooted, $defs: this.defs} as Parameters<typeof z.fromJSONSchema>[0]);
      this.schemas.set(key, compiled);
    }
    return compiled;
  }

  /** Follows a `#/components/…` reference. */
  private resolve(value: Json): Json {
    const ref = value.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return value;
    let target: unknown = this.doc;
    for (const part of ref.slice(2).split('/')) target = (target as Json | undefined)?.[part];
    return (target ?? {}) as Json;
  }
}
