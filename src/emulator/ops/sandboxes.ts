// Sandboxes and their events, for the control surface (`svc emulator sandboxes`, `svc trigger`): input checked
// here, the moves made by the SandboxService in one transaction with the event and its deliveries.
import {
  EVENT_TYPES,
  type EventType,
  isId,
  LATEST_DATE_MS,
  MAX_LAST_ERROR_LENGTH,
  MAX_NAME_LENGTH,
  SANDBOX_REQUESTABLE_ACTIONS,
  type SandboxAction,
} from '../../definitions.js';
import {checkSets, type EventSet} from '../../schemas/event-shape.js';
import {parseDuration} from '../clock.js';
import type {MoveResult, SandboxService} from '../sandboxes/service.js';
import type {SandboxRecord} from '../sandboxes/repository.js';
import {notFound} from '../operation-error.js';
import {oneOf, Problems, text} from './validate.js';

const lastErrorOf = (problems: Problems, value: unknown) =>
  text(problems, 'last_error', value, {max: MAX_LAST_ERROR_LENGTH, optional: true, multiline: true});

export async function createSandbox(
  sandboxes: SandboxService,
  input: {orgId: string; name?: unknown; expiresIn?: unknown; nowMs: number},
): Promise<MoveResult> {
  const problems = new Problems();
  const name = text(problems, 'name', input.name, {max: MAX_NAME_LENGTH, optional: true});
  let expiresInMs: number | undefined;
  if (input.expiresIn !== undefined) {
    expiresInMs = typeof input.expiresIn === 'string' ? parseDuration(input.expiresIn) : undefined;
    if (expiresInMs === undefined) problems.add('expires_in', 'must be a duration like 90s, 10m, 3h or 31d');
    else if (input.nowMs + expiresInMs > LATEST_DATE_MS)
      problems.add('expires_in', 'is too long: the sandbox would expire after the year 9999');
  }
  problems.throwIfAny();
  if (!isId('org', input.orgId)) throw notFound('no org with this id');
  return sandboxes.create({orgId: input.orgId, name, expiresInMs});
}

export async function listSandboxes(sandboxes: SandboxService, orgId: string): Promise<SandboxRecord[]> {
  if (!isId('org', orgId)) throw notFound('no org with this id');
  return sandboxes.list(orgId);
}

export async function getSandbox(sandboxes: SandboxService, id: string): Promise<SandboxRecord> {
  if (!isId('sandbox', id)) throw notFound('no sandbox with this id');
  return sandboxes.get(id);
}

/** A requested move (any but `expire`, which only time makes). */
export async function actOnSandbox(
  sandboxes: SandboxService,
  input: {id: string; action: string; lastError?: unknown},
): Promise<MoveResult> {
  if (!isId('sandbox', input.id)) throw notFound('no sandbox with this id');
  if (!(SANDBOX_REQUESTABLE_ACTIONS as readonly string[]).includes(input.action)) {
    throw notFound(`no such sandbox action; use one of ${SANDBOX_REQUESTABLE_ACTIONS.join(', ')}`);
  }
  const problems = new Problems();
  const lastError = lastErrorOf(problems, input.lastError);
  problems.throwIfAny();
  return sandboxes.act(input.id, input.action as SandboxAction, {lastError});
}

/** Emits one event, moving the named sandbox (or a new one) into the state the event implies. */
export async function triggerEvent(
  sandboxes: SandboxService,
  input: {orgId: string; type: unknown; sandboxId?: unknown; lastError?: unknown; set?: unknown},
): Promise<MoveResult> {
  const problems = new Problems();
  const type = oneOf<EventType>(problems, 'type', input.type, EVENT_TYPES);
  const lastError = lastErrorOf(problems, input.lastError);
  if (input.sandboxId !== undefined && typeof input.sandboxId !== 'string') {
    problems.add('sandbox_id', 'must be a string');
  }
  const sets = eventSetsOf(problems, input.set);
  problems.throwIfAny();
  if (input.sandboxId !== undefined && !isId('sandbox', input.sandboxId)) {
    throw notFound('no sandbox with this id');
  }
  if (!isId('org', input.orgId)) throw notFound('no org with this id');
  return sandboxes.trigger({
    orgId: input.orgId,
    type: type as EventType,
    sandboxId: input.sandboxId as string | undefined,
    lastError,
    sets,
  });
}

/** The values a trigger shapes its event with: a list of `{path, value}`, each path one the event may take. */
function eventSetsOf(problems: Problems, value: unknown): EventSet[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((s) => !isSet(s))) {
    problems.add('set', 'must be a list of {"path": "data.sandbox.name", "value": …} objects');
    return undefined;
  }
  const sets = value as EventSet[];
  for (const problem of checkSets(sets)) problems.add(`set.${problem.field}`, problem.message);
  return sets;
}

function isSet(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return typeof (value as {path?: unknown}).path === 'string' && keys.length === 2 && keys.includes('value');
}
