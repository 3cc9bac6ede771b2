// A seed's shape problems in svc's own words (missing fields, unknown keys, wrong types, values outside a set),
// each at its path, and the document with every misshapen part taken out, so the rules can still be checked on
// the rest and every problem of the file is reported at once.
import type {z} from 'zod';
import {SeedSchema} from '../../schemas/seed.js';
import type {Problem} from '../operation-error.js';
import {formatPath} from './state-file-error.js';

type Path = readonly PropertyKey[];

const TYPE_WORDS: Record<string, string> = {
  string: 'a string (text in quotes)',
  number: 'a number',
  array: 'a list',
  object: 'an object (fields and values)',
  boolean: 'true or false',
};

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  return `${typeof value === 'number' ? 'the number' : typeof value} ${JSON.stringify(value)}`.replace(
    /^boolean /,
    '',
  );
}

function valueAt(document: unknown, path: Path): {found: boolean; value: unknown} {
  let at: unknown = document;
  for (const part of path) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, part))
      return {found: false, value: undefined};
    at = (at as Record<PropertyKey, unknown>)[part];
  }
  return {found: true, value: at};
}

interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
}
const defOf = (schema: z.ZodType) => (schema as unknown as {_zod: {def: SchemaDef}})._zod.def;

/** The part of the seed's schema at a path (indices pass into lists); undefined past its end. */
function schemaAt(path: Path): z.ZodType | undefined {
  let schema: z.ZodType | undefined = SeedSchema;
  for (const part of path) {
    while (schema && defOf(schema).type === 'optional') schema = defOf(schema).innerType;
    if (!schema) return undefined;
    const def = defOf(schema);
    schema = typeof part === 'number' ? def.element : def.shape?.[String(part)];
  }
  return schema;
}

function fieldsAt(path: Path): string[] {
  let schema = schemaAt(path);
  while (schema && defOf(schema).type === 'optional') schema = defOf(schema).innerType;
  return Object.keys((schema && defOf(schema).shape) ?? {});
}

const quoted = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(', ');

function describeIssue(issue: z.core.$ZodIssue, document: unknown): Problem[] {
  const field = formatPath(issue.path);
  const {found, value} = valueAt(document, issue.path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const known = fieldsAt(issue.path);
      return issue.keys.map((key) => ({
        field: formatPath([...issue.path, key]),
        message: `is not a field svc knows here (the fields are: ${known.join(', ')})`,
      }));
    }
    case 'invalid_type':
      if (!found || value === undefined) return [{field, message: 'is required'}];
      return [
        {field, message: `must be ${TYPE_WORDS[issue.expected] ?? issue.expected}, not ${kindOf(value)}`},
      ];
    case 'invalid_value':
      return [
        {
          field,
          message:
            issue.values.length === 1
              ? `must be ${quoted(issue.values)}`
              : `must be one of ${quoted(issue.values)}, not ${JSON.stringify(value) ?? kindOf(value)}`,
        },
      ];
    case 'invalid_union': {
      const description = schemaAt(issue.path)?.description;
      return [{field, message: description ? `must be ${description}` : `is not a value svc accepts here`}];
    }
    default:
      return [{field, message: issue.message}];
  }
}

/** Removes the value at a path (a list keeps its length, so later paths still name the same items). */
function removeAt(document: unknown, path: Path): void {
  if (path.length === 0) return;
  const parent = valueAt(document, path.slice(0, -1)).value;
  if (parent === null || typeof parent !== 'object') return;
  const last = path[path.length - 1] as PropertyKey;
  if (Array.isArray(parent)) parent[last as number] = undefined;
  else delete (parent as Record<PropertyKey, unknown>)[last];
}

export interface SeedShape {
  problems: Problem[];
  /** The document with every misshapen value taken out; its rules can still be checked. */
  usable: unknown;
  /** The fields already reported, so a rule does not report one again. */
  reported: Set<string>;
}

/** Every shape problem of a seed document at once, in svc's words. */
export function checkSeedShape(document: unknown): SeedShape {
  const parsed = SeedSchema.safeParse(document);
  if (parsed.success) return {problems: [], usable: parsed.data, reported: new Set()};
  const usable: unknown = structuredClone(document);
  const problems: Problem[] = [];
  for (const issue of parsed.error.issues) {
    problems.push(...describeIssue(issue, document));
    if (issue.code !== 'unrecognized_keys') removeAt(usable, issue.path);
  }
  return {problems, usable, reported: new Set(problems.map((p) => p.field))};
}
