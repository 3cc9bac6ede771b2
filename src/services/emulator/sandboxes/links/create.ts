// `svc emulator sandboxes links create`: a port session, desktop link or browser URL onto a running sandbox, made on
// behalf of a key as a client holding it would make one; its URL is shown once.
import type {CreatedSandboxLink} from '../../../../schemas/index.js';
import type {SandboxLinkKind} from '../../../../definitions.js';
import {type At, type ConnectOptions, withControlAt} from '../../connect.js';

export interface CreateLinkOptions extends ConnectOptions {
  sandboxId: string;
  kind: SandboxLinkKind;
  keyId: string;
  port?: number;
}

export function createLink(options: CreateLinkOptions): Promise<At<CreatedSandboxLink>> {
  return withControlAt(options, (control) =>
    control.createLink(options.sandboxId, {kind: options.kind, key_id: options.keyId, port: options.port}),
  );
}
