// Reads a scenario file's text (YAML, or JSON, which is YAML too) and checks it against its JSON Schema and the
// rules a schema cannot say (names used before they are made, a time that exists, a `set:` the event's own schema
// refuses): every problem at once, each at its line and column, before any step runs.
import type {ErrorObject} from 'ajv';
import type {Document, Node as YamlNode} from 'yaml';
import type {EventType} from '../definitions.js';
import {parseDuration} from '../schemas/duration.js';
import {shapeEvent} from '../schemas/event-shape.js';
import {sampleEvent} from '../schemas/sample-event.js';
import {parseIsoTime} from '../schemas/timestamp.js';
import {SCENARIO_EXPECTATION_KINDS, SCENARIO_SCHEMA} from './schema.js';
import type {FilePlace, FileProblem, ReadScenario, Scenario} from './types.js';

/** How many copies of one YAML anchor a file may make: plenty for a hand-written file, never a bomb. */
const MAX_YAML_ALIASES = 100;

export type ReadOutcome = {ok: true; read: ReadScenario} | {ok: false; problems: FileProblem[]};

type Segment = string | number;

/** The text of a scenario file, checked: the scenario with its steps' places, or every problem with its place. */
export async function readScenarioText(text: string, file: string): Promise<ReadOutcome> {
  const {LineCounter, parseDocument, isMap, isSeq} = await import('yaml');
  const lines = new LineCounter();
  const doc = parseDocument(text, {lineCounter: lines, uniqueKeys: true, prettyErrors: false});
  const placeOf = (offset: number): FilePlace => {
    const {line, col} = lines.linePos(offset);
    return {line, column: col};
  };
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((e) => ({
        ...placeOf(e.pos[0]),
        path: '',
        message: `is not valid YAML or JSON: ${e.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '')}`,
      })),
    };
  }
  let value: unknown;
  try {
    value = doc.toJS({maxAliasCount: MAX_YAML_ALIASES});
  } catch {
    return {
      ok: false,
      problems: [
        {
          line: 1,
          column: 1,
          path: '',
          message: `expands its YAML aliases too far (more than ${MAX_YAML_ALIASES} copies of one anchor)`,
        },
      ],
    };
  }
  const at = (path: Segment[], key?: string): FilePlace => {
    const node = nodeAt(doc, path, key, isMap);
    return node?.range ? placeOf(node.range[0]) : {line: 1, column: 1};
  };
  const problems = [...(await schemaProblems(value, at)), ...ruleProblems(value, at)];
  if (problems.length > 0) {
    return {ok: false, problems: problems.sort((a, b) => a.line - b.line || a.column - b.column)};
  }
  const stepsNode = doc.get('steps', true);
  const stepPlaces = isSeq(stepsNode)
    ? stepsNode.items.map((item) => placeOf((item as YamlNode).range?.[0] ?? 0))
    : [];
  return {ok: true, read: {file, scenario: value as Scenario, stepPlaces}};
}

/** The node at a path (or the key node of `key` in the map there), else its nearest ancestor. */
function nodeAt(
  doc: Document,
  path: Segment[],
  key: string | undefined,
  isMap: (n: unknown) => n is import('yaml').YAMLMap,
): YamlNode | undefined {
  for (let n = path.length; n >= 0; n--) {
    const node = (n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true)) as YamlNode | undefined;
    if (!node || typeof node !== 'object' || !('range' in node)) continue;
    if (key !== undefined && n === path.length && isMap(node)) {
      const pair = node.items.find((p) => (p.key as {value?: unknown} | null)?.value === key);
      if (pair?.key && typeof pair.key === 'object') return pair.key as YamlNode;
    }
    return node;
  }
  return undefined;
}

/** `steps[2].trigger.type`, as a problem names its place. */
export function dotted(path: Segment[]): string {
  return path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

type At = (path: Segment[], key?: string) => FilePlace;

let compiled: Promise<import('ajv').ValidateFunction> | undefined;
async function validator(): Promise<import('ajv').ValidateFunction> {
  compiled ??= import('ajv').then((mod) => {
    // ajv is CommonJS: its class is the module itself, and also its `default`.
    const Ajv = ((mod.default as unknown as {default?: unknown}).default ??
      mod.default) as unknown as typeof mod.Ajv;
    return new Ajv({allErrors: true, verbose: true, strict: false}).compile(SCENARIO_SCHEMA);
  });
  return compiled;
}

async function schemaProblems(value: unknown, at: At): Promise<FileProblem[]> {
  const validate = await validator();
  if (validate(value)) return [];
  const errors = pickBranches(validate.errors ?? []);
  const seen = new Set<string>();
  const problems: FileProblem[] = [];
  for (const e of errors) {
    const path = pathOf(e.instancePath);
    const {key, message} = describe(e, path);
    const problem = {...at(path, key), path: dotted(key === undefined ? path : [...path, key]), message};
    const id = `${problem.path}\n${message}`;
    if (!seen.has(id)) problems.push(problem);
    seen.add(id);
  }
  return problems;
}

function pathOf(pointer: string): Segment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

const jsonType = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;

/** Whether a value could be meant for a oneOf branch: its JSON type is the branch's. */
function fitsBranch(branch: Record<string, unknown>, data: unknown): boolean {
  const t = jsonType(data);
  if (typeof branch.type === 'string')
    return branch.type === t || (branch.type === 'number' && t === 'integer');
  const values = (branch.enum as unknown[] | undefined) ?? ('const' in branch ? [branch.const] : []);
  return values.some((v) => jsonType(v) === t || (typeof v === 'string' && t === 'string'));
}

/**
 * Of a oneOf's failures, only those of the branch the value was meant for (the one of its type): the others'
 * complaints ("must be string" said of an object) say nothing useful. With no branch of its type, the oneOf alone.
 */
function pickBranches(errors: ErrorObject[]): ErrorObject[] {
  let kept = errors;
  for (const oneOf of errors.filter((e) => e.keyword === 'oneOf')) {
    const branches = (oneOf.schema ?? []) as Record<string, unknown>[];
    const meant = branches.findIndex((b) => fitsBranch(b, oneOf.data));
    const prefix = `${oneOf.schemaPath}/`;
    kept = kept.filter((e) => {
      if (!e.schemaPath.startsWith(prefix)) return true;
      const branch = Number(e.schemaPath.slice(prefix.length).split('/')[0]);
      return branch === meant;
    });
    const inMeant = kept.some((e) => e.schemaPath.startsWith(`${prefix}${meant}/`));
    if (meant >= 0 && inMeant) kept = kept.filter((e) => e !== oneOf);
  }
  return kept;
}

function listed(values: readonly unknown[]): string {
  return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
}

/** A schema error in words; `key` when it is about a key of the map at the path (its place is the key's). */
function describe(e: ErrorObject, path: Segment[]): {key?: string; message: string} {
  const parent = (e.parentSchema ?? {}) as Record<string, unknown>;
  const inStep = path.length === 2 && path[0] === 'steps';
  switch (e.keyword) {
    case 'required':
      return {message: `needs \`${(e.params as {missingProperty: string}).missingProperty}\``};
    case 'additionalProperties': {
      const key = (e.params as {additionalProperty: string}).additionalProperty;
      const known = Object.keys((parent.properties as object | undefined) ?? {}).filter(
        (k) => k !== '$schema',
      );
      const what = inStep ? 'a step' : path.at(-1) === 'expect' ? 'an expectation' : 'a field here';
      return {
        key,
        message: `is not ${what}; ${inStep || what === 'an expectation' ? 'they are' : 'the fields are'}: ${known.join(', ')}`,
      };
    }
    case 'maxProperties':
      return {
        message: inStep
          ? `does one thing: this step has ${Object.keys(e.data as object).join(' and ')}; make each a step of its own`
          : `has too many fields`,
      };
    case 'minProperties':
      return {
        message: inStep
          ? 'is empty: a step names one action (trigger, advance, expect, …)'
          : path.at(-1) === 'expect'
            ? `is empty: name one of ${SCENARIO_EXPECTATION_KINDS.join(', ')}`
            : 'is empty',
      };
    case 'minItems': {
      const limit = (e.params as {limit: number}).limit;
      const noun = path.at(-1) === 'steps' ? 'step' : 'item';
      return {message: `needs at least ${limit} ${noun}${limit === 1 ? '' : 's'}`};
    }
    case 'enum':
      return {message: `must be one of: ${listed((e.params as {allowedValues: unknown[]}).allowedValues)}`};
    case 'const':
      return {message: `must be ${listed([(e.params as {allowedValue: unknown}).allowedValue])}`};
    case 'type':
      return {message: `must be ${article((e.params as {type: string}).type)}`};
    case 'pattern':
      return {
        message: `${JSON.stringify(e.data)} is not ${lower(String(parent.description ?? `of the form ${parent.pattern}`))}`,
      };
    case 'oneOf': {
      const options = ((e.schema ?? []) as Record<string, unknown>[]).map((b) =>
        typeof b.type === 'string' ? article(b.type) : listed((b.enum as unknown[]) ?? [b.const]),
      );
      return {
        message: `must be ${String(parent.description ? lower(String(parent.description)) : options.join(', or '))}`,
      };
    }
    default:
      return {message: e.message ?? 'is not valid'};
  }
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);
const lower = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** The rules beyond the schema, checked on whatever parts of the file have the right shape. */
function ruleProblems(value: unknown, at: At): FileProblem[] {
  const problems: FileProblem[] = [];
  const problem = (path: Segment[], message: string) =>
    problems.push({...at(path), path: dotted(path), message});
  if (!isObject(value)) {
    if (value !== undefined && !isObject(value)) return problems;
    return [{line: 1, column: 1, path: '', message: 'is empty: a scenario has a name, endpoints and steps'}];
  }
  if (typeof value.start === 'string') {
    const t = parseIsoTime(value.start);
    if (typeof t === 'string') problem(['start'], t);
  }
  const receivers = isObject(value.receivers) ? value.receivers : {};
  const endpoints = isObject(value.endpoints) ? value.endpoints : {};
  for (const [name, spec] of Object.entries(endpoints)) {
    if (!isObject(spec)) continue;
    if ((spec.receiver === undefined) === (spec.url === undefined)) {
      problem(
        ['endpoints', name],
        'needs `receiver` (a receiver this file starts) or `url` (one already running), one of them',
      );
    }
    if (typeof spec.receiver === 'string' && !(spec.receiver in receivers)) {
      problem(
        ['endpoints', name, 'receiver'],
        unknownName('receiver', spec.receiver, Object.keys(receivers)),
      );
    }
    if (spec.url !== undefined && spec.path !== undefined) {
      problem(
        ['endpoints', name, 'path'],
        'is for an endpoint to a receiver this file starts; put the path in `url`',
      );
    }
  }
  const steps = Array.isArray(value.steps) ? value.steps : [];
  const names = {
    event: new Set<string>(),
    sandbox: new Set<string>(),
    key: new Set<string>(),
    checkpoint: new Set<string>(),
  };
  const refer = (path: Segment[], kind: keyof typeof names | 'endpoint', name: unknown) => {
    if (typeof name !== 'string') return;
    const known = kind === 'endpoint' ? new Set(Object.keys(endpoints)) : names[kind];
    if (!known.has(name)) {
      problem(path, unknownName(kind, name, [...known], kind === 'endpoint' ? undefined : 'an earlier step'));
    }
  };
  const make = (path: Segment[], kind: keyof typeof names, name: unknown) => {
    if (typeof name !== 'string') return;
    if (names[kind].has(name) && kind !== 'checkpoint')
      problem(path, `names a second ${kind} ${JSON.stringify(name)}; give each its own name`);
    names[kind].add(name);
  };
  steps.forEach((step: unknown, i: number) => {
    if (!isObject(step)) return;
    const [kind, body] = (Object.entries(step)[0] ?? []) as [string, unknown];
    const p = (...rest: Segment[]) => ['steps', i, kind, ...rest];
    const selector = (b: Record<string, unknown>) => {
      refer(p('event'), 'event', b.event);
      refer(p('sandbox'), 'sandbox', b.sandbox);
      if (b.event !== undefined && (b.type !== undefined || b.sandbox !== undefined)) {
        problem(p('event'), 'names the event already: leave out `type` and `sandbox`');
      }
    };
    if (kind === 'trigger' && isObject(body)) {
      refer(p('sandbox'), 'sandbox', body.sandbox);
      if (isObject(body.set) && typeof body.type === 'string') {
        const sets = Object.entries(body.set).map(([path, v]) => ({path, value: v}));
        for (const s of shapeEvent(sampleEvent(body.type as EventType), sets).problems) {
          problem(p('set', ...(s.field in body.set ? [s.field] : [])), `${s.field} ${s.message}`);
        }
      }
      make(p('as'), 'event', body.as);
    } else if (kind === 'set_clock' && typeof body === 'string') {
      const t = parseIsoTime(body);
      if (typeof t === 'string') problem(p(), t);
    } else if ((kind === 'chaos' || kind === 'answer') && isObject(body)) {
      refer(p('endpoint'), 'endpoint', body.endpoint);
      if (kind === 'answer' && typeof body.attempts === 'string') {
        const [a, b] = body.attempts.split('-').map(Number) as [number, number];
        if (!(a >= 1 && b >= a))
          problem(
            p('attempts'),
            `${JSON.stringify(body.attempts)} is no range of attempts: write the first, then the last (1-3)`,
          );
      }
      if (
        kind === 'chaos' &&
        body.off === true &&
        Object.keys(body).some((k) => k !== 'off' && k !== 'endpoint')
      ) {
        problem(p('off'), 'turns chaos off: leave out the settings');
      }
      if (
        kind === 'chaos' &&
        typeof body.delay_min_ms === 'number' &&
        typeof body.delay_max_ms === 'number' &&
        body.delay_min_ms > body.delay_max_ms
      ) {
        problem(p('delay_max_ms'), 'must be at least delay_min_ms');
      }
    } else if (kind === 'resend' && isObject(body)) {
      refer(p('endpoint'), 'endpoint', body.endpoint);
      selector(body);
    } else if (kind === 'create_key' && isObject(body)) {
      make(p('name'), 'key', body.name);
    } else if (kind === 'revoke_key') {
      refer(p(), 'key', body);
    } else if (kind === 'create_sandbox' && isObject(body)) {
      make(p('as'), 'sandbox', body.as);
    } else if (kind === 'sandbox' && isObject(body)) {
      refer(p('sandbox'), 'sandbox', body.sandbox);
      make(p('as'), 'event', body.as);
    } else if (kind === 'checkpoint') {
      make(p(), 'checkpoint', body);
    } else if (kind === 'rewind') {
      refer(p(), 'checkpoint', body);
    } else if (kind === 'expect' && isObject(body)) {
      const kinds = Object.keys(body).filter((k) => k !== 'name');
      if (kinds.length > 1)
        problem(
          p(),
          `holds one expectation: this one has ${kinds.join(' and ')}; make each an expect step of its own`,
        );
      const [which, inner] = (Object.entries(body).find(([k]) => k !== 'name') ?? []) as [string, unknown];
      if (!isObject(inner)) return;
      const q = (...rest: Segment[]) => p(which, ...rest);
      if (which === 'key') refer(q('name'), 'key', inner.name);
      else {
        refer(q('endpoint'), 'endpoint', inner.endpoint);
        refer(q('event'), 'event', inner.event);
        refer(q('sandbox'), 'sandbox', inner.sandbox);
        if (inner.event !== undefined && (inner.type !== undefined || inner.sandbox !== undefined)) {
          problem(q('event'), 'names the event already: leave out `type` and `sandbox`');
        }
      }
      if (which === 'attempt' && inner.status !== undefined && inner.outcome !== undefined) {
        problem(q('outcome'), 'says the same as `status`: give one of them');
      }
      if (which === 'count' && (inner.deliveries === undefined) === (inner.attempts === undefined)) {
        problem(q(), 'counts `deliveries` or `attempts`: give one of them');
      }
      if (which === 'arrives' && typeof inner.within === 'string' && parseDuration(inner.within) === 0) {
        problem(q('within'), 'must be longer than 0');
      }
    }
  });
  return problems;
}

function unknownName(kind: string, name: string, known: string[], where?: string): string {
  const made = where ? ` by ${where}` : '';
  return known.length
    ? `names no ${kind} ${JSON.stringify(name)}${made}; the ${kind}s are: ${known.join(', ')}`
    : where
      ? `names the ${kind} ${JSON.stringify(name)}, but none is made${made}`
      : `names the ${kind} ${JSON.stringify(name)}, but the file has no ${kind}s`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
