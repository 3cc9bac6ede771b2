// A typed client for the /_emulator control surface, used by the CLI's `svc emulator …` commands and by tests.
import type {EventType, KeyExpiryChoice} from '../src/definitions.js';
import type {Org, SvcEvent} from '../src/schemas/index.js';
import type {DeliveryDetail} from './ops/delivery-detail.js';
import type {SandboxRecord} from './sandboxes/repository.js';

export type {AttemptDetail, DeliveryDetail} from './ops/delivery-detail.js';

export interface CreatedKey {
  id: string;
  name: string;
  prefix: string;
  secret: string;
  created_by: string | null;
  created_at: string;
  expires_at: string | null;
}

export interface KeyRecord {
  id: string;
  name: string;
  prefix: string;
  created_by: string | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  status: 'active' | 'revoked' | 'expired';
}

export interface CreatedWebhook {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  created_at: string;
  secret: string;
  /** What the emulator accepted but wants said, e.g. a host it could not resolve offline. */
  warnings?: string[];
}

export interface ClockState {
  now: string;
  mode: 'real' | 'manual';
}

/** A sandbox move: the sandbox afterwards, the event it emitted (if any) and how many deliveries that made. */
export interface SandboxMove {
  sandbox: SandboxRecord;
  event: SvcEvent | null;
  deliveries: number;
}

export interface RelayRegistration {
  endpoint_id: string;
  name: string;
  events: string[];
  secret: string;
  /** True when this call made the relay endpoint, and so its signing secret: a receiver needs the new one. */
  created?: boolean;
}

export class EmulatorControlError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    /** Each refused input field of an invalid_request, so a caller can tell which one to fix. */
    readonly problems: readonly {field?: string; message: string}[] = [],
  ) {
    super(message);
    this.name = 'EmulatorControlError';
  }
}

export interface EmulatorControlOptions {
  url: string;
  adminToken: string;
  fetch?: typeof fetch;
}

export class EmulatorControl {
  private readonly base: string;
  private readonly adminToken: string;
  private readonly fetchImpl: typeof fetch;

  constructor(options: EmulatorControlOptions) {
    this.base = options.url.replace(/\/+$/, '');
    this.adminToken = options.adminToken;
    this.fetchImpl = options.fetch ?? fetch;
  }

  health(): Promise<{ok: true; org_id: string}> {
    return this.call('GET', '/_emulator/health');
  }

  createOrg(input: {name: string}): Promise<Org> {
    return this.call('POST', '/_emulator/orgs', input);
  }

  createKey(input: {
    name: string;
    expires?: KeyExpiryChoice;
    created_by?: string;
    org_id?: string;
  }): Promise<CreatedKey> {
    return this.call('POST', '/_emulator/keys', input);
  }

  /** `already_revoked`: it was revoked before this call, which changed nothing. */
  revokeKey(id: string): Promise<KeyRecord & {already_revoked?: boolean}> {
    return this.call('POST', `/_emulator/keys/${encodeURIComponent(id)}/revoke`);
  }

  createWebhook(input: {
    url: string;
    events: string[];
    description?: string;
    org_id?: string;
  }): Promise<CreatedWebhook> {
    return this.call('POST', '/_emulator/webhooks', input);
  }

  async deleteWebhook(id: string): Promise<void> {
    await this.call('DELETE', `/_emulator/webhooks/${encodeURIComponent(id)}`);
  }

  clock(): Promise<ClockState> {
    return this.call('GET', '/_emulator/clock');
  }

  advanceClock(duration: string): Promise<ClockState> {
    return this.call('POST', '/_emulator/clock', {advance: duration});
  }

  setClock(iso: string): Promise<ClockState> {
    return this.call('POST', '/_emulator/clock', {set: iso});
  }

  /** Forgets every address's failed authentications, on /v1 and on the control surface. */
  resetLimiter(): Promise<{reset: true}> {
    return this.call('POST', '/_emulator/limiter/reset');
  }

  /** Emits one event, creating a sandbox in the implied state when none is named. */
  trigger(input: {
    type: EventType;
    sandbox_id?: string;
    last_error?: string;
    org_id?: string;
  }): Promise<SandboxMove> {
    return this.call('POST', '/_emulator/trigger', input);
  }

  createSandbox(input: {name?: string; expires_in?: string; org_id?: string} = {}): Promise<SandboxMove> {
    return this.call('POST', '/_emulator/sandboxes', input);
  }

  /** resume, fork, stop, quota-exhausted, disk-limit, crash, fail, standby or wake. */
  sandboxAction(id: string, action: string, input: {last_error?: string} = {}): Promise<SandboxMove> {
    return this.call(
      'POST',
      `/_emulator/sandboxes/${encodeURIComponent(id)}/${encodeURIComponent(action)}`,
      input,
    );
  }

  listSandboxes(orgId?: string): Promise<{data: SandboxRecord[]}> {
    return this.call('GET', `/_emulator/sandboxes${orgId ? `?org_id=${encodeURIComponent(orgId)}` : ''}`);
  }

  /** Finds or creates the relay endpoint `svc listen` receives through; its secret is the same every time. */
  registerRelay(
    input: {name?: string; events?: string[]; org_id?: string; listener?: string} = {},
  ): Promise<RelayRegistration> {
    return this.call('POST', '/_emulator/relay', input);
  }

  /** One delivery with its event and every attempt, oldest first. */
  delivery(id: string): Promise<DeliveryDetail> {
    return this.call('GET', `/_emulator/deliveries/${encodeURIComponent(id)}`);
  }

  /** A new attempt now (trigger manual, freshly signed, the same body); the schedule is left as it was. */
  resendDelivery(id: string): Promise<DeliveryDetail> {
    return this.call('POST', `/_emulator/deliveries/${encodeURIComponent(id)}/resend`);
  }

  /** Any control route, including those the delivery engine adds. */
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {authorization: `Bearer ${this.adminToken}`};
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new EmulatorControlError(
        `could not reach the emulator at ${this.base} (${(err as Error).message}); is it running?`,
        0,
        'unreachable',
      );
    }
    const text = await res.text();
    if (!res.ok) {
      let code = 'error';
      let message = `the emulator answered ${res.status}`;
      let problems: {field?: string; message: string}[] = [];
      try {
        const parsed = JSON.parse(text) as {
          error?: {code?: string; message?: string; problems?: unknown};
        };
        code = parsed.error?.code ?? code;
        message = parsed.error?.message ?? message;
        if (Array.isArray(parsed.error?.problems)) {
          problems = parsed.error.problems.filter(
            (p): p is {field?: string; message: string} =>
              typeof p === 'object' && p !== null && typeof (p as {message?: unknown}).message === 'string',
          );
        }
      } catch {
        // Not our error shape; keep the status-based message.
      }
      throw new EmulatorControlError(message, res.status, code, problems);
    }
    return (text ? JSON.parse(text) : undefined) as T;
  }
}
