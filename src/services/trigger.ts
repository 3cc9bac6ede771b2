// `svc trigger`: emits one event in the running emulator, creating a sandbox when none is named.
import type {SandboxMove} from '../client/emulator-control.js';
import {EmulatorControlError} from '../client/errors.js';
import {usageError} from '../lib/errors.js';
import {EVENT_TYPES, type EventType, isId} from '../definitions.js';
import {type ConnectOptions, withControl} from './emulator/connect.js';

export interface TriggerOptions extends ConnectOptions {
  type: string;
  sandboxId?: string;
  lastError?: string;
}

export interface TriggeredAt {
  move: SandboxMove;
  /** The API address of the emulator the event was emitted in. */
  apiUrl: string;
}

export function triggerEvent(options: TriggerOptions): Promise<TriggeredAt> {
  if (!(EVENT_TYPES as readonly string[]).includes(options.type)) {
    throw usageError(`unknown event type ${JSON.stringify(options.type)}`, [
      `Use one of: ${EVENT_TYPES.join(', ')}`,
    ]);
  }
  if (options.sandboxId !== undefined && !isId('sandbox', options.sandboxId)) {
    throw usageError(
      `${JSON.stringify(options.sandboxId)} is not a sandbox id (sbx_ followed by 24 letters and digits)`,
    );
  }
  return withControl(options, async (control, info) => ({
    move: await control
      .trigger({
        type: options.type as EventType,
        sandbox_id: options.sandboxId,
        last_error: options.lastError,
      })
      .catch((err: unknown) => {
        // The emulator checks what the flags carry (a control character in --last-error): a usage error, exit 2.
        if (err instanceof EmulatorControlError && err.code === 'invalid_request')
          throw usageError(err.message);
        throw err;
      }),
    apiUrl: info.api_url,
  }));
}
