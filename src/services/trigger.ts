// `svc trigger`: emits one event in the running emulator, creating a sandbox when none is named.
import {type SandboxMove, EmulatorControlError} from '@svc/client';
import {usageError} from '../lib/errors.js';
import {type EventType, idShapeText, isId} from '../definitions.js';
import {type EventSet, type ShapeProblem, shapeEvent} from '../schemas/event-shape.js';
import {type ConnectOptions, withControl} from './emulator/connect.js';
import {sampleEvent} from '../schemas/sample-event.js';
import {parseEventType} from './events/event-type.js';

export interface TriggerOptions extends ConnectOptions {
  type: string;
  sandboxId?: string;
  lastError?: string;
  /** `--set PATH=VALUE`, each as given. */
  sets?: readonly string[];
  /** The org to act on (`org_…`); default: the emulator's default org. */
  org?: string;
}

/** `PATH=VALUE`: the value is a JSON literal when it parses as one (42, true, null, "x", {...}), else text. */
export function parseSet(text: string): EventSet {
  const at = text.indexOf('=');
  if (at <= 0) {
    throw usageError(`--set ${JSON.stringify(text)} is not PATH=VALUE`, [
      'For example: --set data.sandbox.name=web',
    ]);
  }
  const raw = text.slice(at + 1);
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    // Not JSON: the text itself.
  }
  return {path: text.slice(0, at), value};
}

function shapeError(type: EventType, problems: readonly {field?: string; message: string}[]) {
  return usageError(
    `the shaped event is not a valid event: ${problems.map((p) => `${p.field ?? '(event)'} ${p.message}`).join('; ')}`,
    [`Show the fields and rules of a ${type} event with \`svc events schema ${type}\``],
  );
}

/** Every problem of the sets, found on a sample of the event before anything is sent. */
function checkShape(type: EventType, sets: readonly EventSet[]): void {
  const problems: ShapeProblem[] = shapeEvent(sampleEvent(type), sets).problems;
  if (problems.length > 0) throw shapeError(type, problems);
}

export interface TriggeredAt {
  move: SandboxMove;
  /** The API address of the emulator the event was emitted in. */
  apiUrl: string;
}

export function triggerEvent(options: TriggerOptions): Promise<TriggeredAt> {
  parseEventType(options.type);
  if (options.sandboxId !== undefined && !isId('sandbox', options.sandboxId)) {
    throw usageError(`${JSON.stringify(options.sandboxId)} is not a sandbox id (${idShapeText('sandbox')})`);
  }
  const sets = options.sets?.map(parseSet);
  if (sets?.length) checkShape(options.type as EventType, sets);
  return withControl(options, async (control, info) => {
    try {
      const move = await control.trigger({
        type: options.type as EventType,
        sandbox_id: options.sandboxId,
        last_error: options.lastError,
        set: sets?.length ? sets : undefined,
        org_id: options.org,
      });
      return {move, apiUrl: info.api_url};
    } catch (err) {
      if (!(err instanceof EmulatorControlError)) throw err;
      // The sandbox's own fields can still break a shape the sample allowed: the same rule, said the same way.
      const shapeProblems = err.problems.filter((p) => p.field?.startsWith('set.'));
      if (shapeProblems.length > 0) {
        throw shapeError(
          options.type as EventType,
          shapeProblems.map((p) => ({field: p.field?.slice(4), message: p.message})),
        );
      }
      // The emulator checks what the flags carry (a control character in --last-error): a usage error, exit 2.
      if (err.code === 'invalid_request') throw usageError(err.message);
      throw err;
    }
  });
}
