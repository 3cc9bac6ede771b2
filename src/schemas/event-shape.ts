// Shaping a triggered event (`svc trigger --set PATH=VALUE`, the trigger control route's `set`): each value is
// placed at a dotted path of the event body and the result is checked against the event type's schema and the
// rules the service keeps in a sandbox's fields (a real time, the status the type reports, plain text). One home
// for the rule, so the CLI refuses a bad path before it reaches an emulator and the emulator refuses it again.
import type {z} from 'zod';
import {
  EVENT_SANDBOX_STATUS,
  type EventType,
  MAX_EVENT_SETS,
  MAX_LAST_ERROR_LENGTH,
  MAX_NAME_LENGTH,
  MAX_SHAPED_EVENT_BYTES,
  textProblem,
} from '../definitions.js';
import {eventSchemaFor, type SvcEvent} from './index.js';
import {parseIsoTime} from './timestamp.js';

export interface EventSet {
  /** A dotted path in the event body, such as `data.sandbox.name`. */
  path: string;
  value: unknown;
}

export interface ShapeProblem {
  field: string;
  message: string;
}

/** Paths a shaped event keeps as the emulator made them, each with why. */
const FIXED_PATHS: Readonly<Record<string, string>> = Object.freeze({
  id: 'is made by the emulator, one per event (receivers de-duplicate on it)',
  type: 'is the event type given to trigger; name another type instead',
  org_id: 'is the org the event happens in',
  created_at: "is the emulator clock's time of the event; move the clock instead",
  data: 'is an object of its own; set the fields inside it (data.sandbox.name)',
  'data.sandbox': 'is an object of its own; set its fields (data.sandbox.name)',
  'data.sandbox.id':
    'names the sandbox the event is about; choose that sandbox instead (svc trigger --sandbox)',
});

const SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const UNSAFE_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);

/** The problem with one path, or undefined when values may be set there. */
function pathProblem(path: string): string | undefined {
  const segments = path.split('.');
  if (path === '' || segments.some((s) => !SEGMENT.test(s) || UNSAFE_SEGMENTS.has(s))) {
    return 'is not a dotted path of field names (data.sandbox.name)';
  }
  return FIXED_PATHS[path];
}

/** What this walk reads of a zod schema's definition. */
interface SchemaDef {
  type: string;
  innerType?: {_zod: {def: SchemaDef}};
  shape?: Record<string, {_zod: {def: SchemaDef}}>;
  catchall?: {_zod: {def: SchemaDef}};
}

/** A path's unknown field under an exact object of the schema (a loose object takes any field), if any. */
function unknownField(schema: z.ZodType, segments: readonly string[]): string | undefined {
  let def: SchemaDef | undefined = schema._zod.def as unknown as SchemaDef;
  for (let i = 0; i < segments.length && def; i++) {
    while (def.type === 'optional' && def.innerType) def = def.innerType._zod.def;
    if (def.type !== 'object' || !def.shape) return undefined;
    const field: {_zod: {def: SchemaDef}} | undefined = def.shape[segments[i] as string];
    if (!field || !Object.hasOwn(def.shape, segments[i] as string)) {
      return def.catchall && def.catchall._zod.def.type !== 'never'
        ? undefined
        : segments.slice(0, i + 1).join('.');
    }
    def = field._zod.def;
  }
  return undefined;
}

function place(
  target: Record<string, unknown>,
  segments: readonly string[],
  value: unknown,
): string | undefined {
  let node = target;
  for (const [i, segment] of segments.slice(0, -1).entries()) {
    const next = node[segment];
    if (next === undefined) node[segment] = {};
    else if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      return `goes through ${segments.slice(0, i + 1).join('.')}, which is not an object`;
    }
    node = node[segment] as Record<string, unknown>;
  }
  node[segments.at(-1) as string] = value;
  return undefined;
}

/**
 * What the service itself would refuse in a sandbox's field, by the rules its other ways in apply (a sandbox's name
 * as the control surface takes it, `last_error` as a move takes it, a time as a clock takes it), and a status the
 * event type contradicts. The event's schema reads these fields as any string: a receiver must not break on them.
 */
const SANDBOX_VALUE_RULES: Readonly<Record<string, (value: unknown, type: EventType) => string | undefined>> =
  Object.freeze({
    'data.sandbox.name': (value) => textValueProblem(value, {max: MAX_NAME_LENGTH}),
    'data.sandbox.last_error': (value) =>
      textValueProblem(value, {max: MAX_LAST_ERROR_LENGTH, multiline: true}),
    'data.sandbox.expires_at': (value) => {
      if (typeof value !== 'string') return undefined;
      const at = parseIsoTime(value);
      return typeof at === 'string' ? at : undefined;
    },
    'data.sandbox.status': (value, type) =>
      typeof value !== 'string' || value === EVENT_SANDBOX_STATUS[type]
        ? undefined
        : `must be ${EVENT_SANDBOX_STATUS[type]} in a ${type} event: that is the status the event reports`,
  });

function textValueProblem(value: unknown, rule: {max: number; multiline?: boolean}): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.trim() === '') return 'must not be empty';
  if (value !== value.trim()) return 'must not begin or end with spaces';
  return textProblem(value, rule);
}

/** Every problem of a list of sets, before any is applied: its length, each path, a path given twice. */
export function checkSets(sets: readonly EventSet[]): ShapeProblem[] {
  const problems: ShapeProblem[] = [];
  if (sets.length > MAX_EVENT_SETS) {
    problems.push({field: 'set', message: `must hold at most ${MAX_EVENT_SETS} values`});
  }
  const seen = new Set<string>();
  for (const set of sets) {
    const problem = pathProblem(set.path);
    if (problem) problems.push({field: set.path || '(empty path)', message: problem});
    else if (seen.has(set.path)) problems.push({field: set.path, message: 'is set more than once'});
    seen.add(set.path);
  }
  return problems;
}

/**
 * The event with every value placed, checked against its type's schema: every problem at once, each naming the
 * path and the rule it breaks. `null` removes an optional field (`data.sandbox.last_error=null`).
 */
export function shapeEvent(
  event: SvcEvent,
  sets: readonly EventSet[],
): {event: SvcEvent; problems: []} | {event?: undefined; problems: ShapeProblem[]} {
  const problems = checkSets(sets);
  const refused = new Set(problems.map((p) => p.field));
  const schema = eventSchemaFor(event.type);
  const shaped = structuredClone(event) as unknown as Record<string, unknown>;
  for (const {path, value} of sets) {
    if (refused.has(path) || problems.some((p) => p.field === 'set')) continue;
    const segments = path.split('.');
    const unknown = unknownField(schema, segments);
    if (unknown) {
      const message = `is not a field of a ${event.type} event`;
      problems.push({
        field: path,
        message: unknown === path ? message : `goes through ${unknown}, which ${message}`,
      });
      continue;
    }
    const notObject = place(shaped, segments, value === null ? undefined : value);
    if (notObject) problems.push({field: path, message: notObject});
  }
  for (const {path, value} of sets) {
    if (!Object.hasOwn(SANDBOX_VALUE_RULES, path)) continue;
    const problem = SANDBOX_VALUE_RULES[path]?.(value, event.type);
    if (problem) problems.push({field: path, message: problem});
  }
  if (problems.length > 0) return {problems};
  const parsed = schema.safeParse(JSON.parse(JSON.stringify(shaped)));
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.map((issue) => ({
        field: issue.path.join('.') || '(event)',
        // Each message follows its field: "data.sandbox.name does not fit: invalid input: expected string, …".
        message: `does not fit: ${issue.message.charAt(0).toLowerCase()}${issue.message.slice(1)}`,
      })),
    };
  }
  if (new TextEncoder().encode(JSON.stringify(parsed.data)).length > MAX_SHAPED_EVENT_BYTES) {
    return {
      problems: [{field: 'set', message: `makes the event larger than ${MAX_SHAPED_EVENT_BYTES} bytes`}],
    };
  }
  return {event: parsed.data as SvcEvent, problems: []};
}
