// Input rules every operation applies before anything reaches the database: problems are collected, so a
// person sees every mistake of a form at once.
import {
  EVENT_TYPES,
  type LocalUrlKind,
  type ProblemCode,
  type TextRule as TextLimits,
  textProblem,
} from '../../definitions.js';
import {invalidInput, type Problem} from '../operation-error.js';

export class Problems {
  readonly list: Problem[] = [];

  add(field: string, message: string, code?: ProblemCode, kind?: LocalUrlKind): void {
    this.list.push(code ? {field, message, code, ...(kind ? {kind} : {})} : {field, message});
  }

  /** Throws every problem collected so far as one 400. */
  throwIfAny(): void {
    if (this.list.length > 0) throw invalidInput(this.list);
  }
}

export interface TextRule extends TextLimits {
  /** Absent or empty is allowed (answered as undefined). */
  optional?: boolean;
}

/** A trimmed text field, or undefined when it is optional and empty; a problem otherwise. */
export function text(problems: Problems, field: string, value: unknown, rule: TextRule): string | undefined {
  if (value === undefined || value === null) {
    if (!rule.optional) problems.add(field, 'is required');
    return undefined;
  }
  if (typeof value !== 'string') {
    problems.add(field, 'must be a string');
    return undefined;
  }
  const trimmed = value.trim();
  if (trimmed === '') {
    if (!rule.optional) problems.add(field, 'must not be empty');
    return undefined;
  }
  const problem = textProblem(trimmed, rule);
  if (problem) {
    problems.add(field, problem);
    return undefined;
  }
  return trimmed;
}

/** One of a fixed set of values. */
export function oneOf<T extends string>(
  problems: Problems,
  field: string,
  value: unknown,
  allowed: readonly T[],
): T | undefined {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  problems.add(field, `must be one of ${allowed.join(', ')}`);
  return undefined;
}

/** A non-empty list of known event types, each once. */
export function eventTypes(problems: Problems, field: string, value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    problems.add(field, `must name at least one event type (${EVENT_TYPES.join(', ')})`);
    return undefined;
  }
  const known = new Set<string>(EVENT_TYPES);
  const seen = new Set<string>();
  let ok = true;
  for (const e of value) {
    if (typeof e !== 'string' || !known.has(e)) {
      problems.add(field, `unknown event type ${JSON.stringify(e)}; known: ${EVENT_TYPES.join(', ')}`);
      ok = false;
    } else if (seen.has(e)) {
      problems.add(field, `event type ${e} is listed twice`);
      ok = false;
    }
    seen.add(e as string);
  }
  return ok ? (value as string[]) : undefined;
}
