// `svc trigger`: emits one event in the running emulator, creating a sandbox when none is named.
import type {SandboxMove} from '../client/emulator-control.js';
import {usageError} from '../lib/errors.js';
import {isId, idShapeText} from '../definitions.js';
import {type ConnectOptions, withControl} from './emulator/connect.js';
import {parseEventType} from './events/event-type.js';

export interface TriggerOptions extends ConnectOptions {
  type: string;
  sandboxId?: string;
  lastError?: string;
}

export function triggerEvent(options: TriggerOptions): Promise<SandboxMove> {
  const type = parseEventType(options.type);
  if (options.sandboxId !== undefined && !isId('sandbox', options.sandboxId)) {
    throw usageError(`${JSON.stringify(options.sandboxId)} is not a sandbox id (${idShapeText('sandbox')})`);
  }
  return withControl(options, (control) =>
    control.trigger({
      type,
      sandbox_id: options.sandboxId,
      last_error: options.lastError,
    }),
  );
}
