// The control client's calls for sandboxes and the links a key opens onto them (POST /_emulator/trigger,
// /_emulator/sandboxes and its moves, /_emulator/sandboxes/{id}/links, GET /_emulator/links), made through the
// client's own request (emulator-control.ts), which parses each answer with its schema (src/schemas/emulator.ts,
// src/schemas/index.ts).
import type {SandboxAction} from '../definitions.js';
import type {
  CreateLinkRequest,
  CreateSandboxRequest,
  SandboxActionRequest,
  SandboxMove,
  SandboxRecord,
  TriggerRequest,
} from '../schemas/emulator.js';
import type {CreatedSandboxLink, List, SandboxLink} from '../schemas/index.js';
import {CheckpointCalls} from './checkpoint-calls.js';

const segment = encodeURIComponent;

/** What EmulatorControl extends with the calls of sandboxes and their links, made through its own request (`controlCall`). */
export abstract class SandboxCalls extends CheckpointCalls {
  /** Emits one event, creating a sandbox in the implied state when none is named. */
  trigger(input: TriggerRequest): Promise<SandboxMove> {
    return this.controlCall('POST', '/_emulator/trigger', (s) => s.SandboxMoveSchema, input);
  }

  createSandbox(input: CreateSandboxRequest = {}): Promise<SandboxMove> {
    return this.controlCall('POST', '/_emulator/sandboxes', (s) => s.SandboxMoveSchema, input);
  }

  /** resume, fork, stop, quota-exhausted, disk-limit, crash, fail, standby or wake. */
  sandboxAction(id: string, action: SandboxAction, input: SandboxActionRequest = {}): Promise<SandboxMove> {
    return this.controlCall(
      'POST',
      `/_emulator/sandboxes/${segment(id)}/${segment(action)}`,
      (s) => s.SandboxMoveSchema,
      input,
    );
  }

  listSandboxes(orgId?: string): Promise<List<SandboxRecord>> {
    const query = orgId ? `?org_id=${segment(orgId)}` : '';
    return this.controlCall('GET', `/_emulator/sandboxes${query}`, (s) => s.listOf(s.SandboxRecordSchema));
  }

  /** Opens a port session, desktop link or browser URL onto a running sandbox on behalf of a key; the URL is shown once. */
  createLink(sandboxId: string, input: CreateLinkRequest): Promise<CreatedSandboxLink> {
    return this.controlCall(
      'POST',
      `/_emulator/sandboxes/${segment(sandboxId)}/links`,
      (s) => s.CreatedSandboxLinkSchema,
      input,
    );
  }

  /** The default org's links (or one sandbox's), newest first, each with its status; never their URLs. */
  listLinks(filter: {sandbox_id?: string; org_id?: string} = {}): Promise<List<SandboxLink>> {
    const query = new URLSearchParams(
      Object.entries(filter).filter((e): e is [string, string] => typeof e[1] === 'string'),
    ).toString();
    return this.controlCall('GET', `/_emulator/links${query ? `?${query}` : ''}`, (s) =>
      s.listOf(s.SandboxLinkSchema),
    );
  }
}
