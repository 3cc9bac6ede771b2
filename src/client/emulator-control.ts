// A typed client for the emulator's control surface (/_emulator), used by the CLI's `svc emulator …` commands,
// `svc listen`, the TUI, MCP and test suites. Every answer is parsed with its schema (src/schemas/emulator.ts),
// the same one the emulator's routes answer with; one that does not fit is an error, never a cast.
import type {z} from 'zod';
import type {
  ChaosSettings,
  ClockState,
  ControlToken,
  CreateControlTokenRequest,
  CreatedKey,
  CreatedWebhook,
  CreateKeyRequest,
  CreateLinkRequest,
  CreateOrgRequest,
  CreateSandboxRequest,
  CreateWebhookRequest,
  DeliveryDetail,
  EndpointChaos,
  EndpointHealth,
  Health,
  KeyRecord,
  LimiterReset,
  OrgClockState,
  OrgDeleted,
  OrgReset,
  Ready,
  RegisterRelayRequest,
  RelayMessage,
  RelayRegistration,
  RelayReport,
  ResendFailedRequest,
  ResendFailedResult,
  ResentDelivery,
  SandboxActionRequest,
  SandboxMove,
  SandboxRecord,
  ImportStateRequest,
  RequestLogPage,
  StateLoadResult,
  StateReset,
  TriggerRequest,
} from '../schemas/emulator.js';
import type {Snapshot} from '../schemas/snapshot.js';
import type {Duration, SandboxAction} from '../definitions.js';
import type {ClockMoveOptions, WaitForDeliveryOptions} from './control-options.js';
import {
  CheckpointCalls,
  type Checkpoint,
  type CheckpointDeleted,
  type ControlCall,
  type RewoundCheckpoint,
} from './checkpoint-calls.js';
import {controlErrorOf, isByteStream, ndjsonLines, parseAnswer} from './control-answers.js';
import {EmulatorControlError} from './errors.js';
import type {CreatedSandboxLink, List, Org, SandboxLink} from '../schemas/index.js';
import {
  discard,
  type FetchLike,
  isRedirect,
  NO_REDIRECTS,
  redirectRefusal,
  type ResponseLike,
} from './transport.js';

export type {
  ChaosSettings,
  ClockState,
  CreatedKey,
  CreatedWebhook,
  DeliveryAttempt,
  DeliveryDetail,
  EndpointChaos,
  EndpointHealth,
  KeyRecord,
  OrgClockState,
  OrgDeleted,
  OrgReset,
  Ready,
  RelayDelivery,
  RelayHolder,
  RelayMessage,
  RelayRegistration,
  RelayReport,
  RequestLogEntry,
  ResendFailedResult,
  ResendOutcome,
  ResentDelivery,
  RequestLogPage,
  SandboxMove,
  SandboxRecord,
  SeedLoadResult,
  SnapshotLoadResult,
  StateLoadResult,
  StateReset,
} from '../schemas/emulator.js';

export {EmulatorControlError};
export type {Checkpoint, CheckpointDeleted, RewoundCheckpoint};

export type {ClockMoveOptions, WaitForDeliveryOptions} from './control-options.js';

export interface EmulatorControlOptions {
  url: string;
  /**
   * The admin token of emulator.json, or a control token the emulator issued (`createControlToken`): the token
   * of one org, whose calls the emulator refuses for anything not of that org (403 `forbidden`).
   */
  adminToken: string;
  /** Default: the global fetch. The relay stream needs one whose answer's body can be read as it comes. */
  fetch?: FetchLike;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

type Schemas = typeof import('./control-schemas.js');
/** Picks the schema an answer is parsed with from the schemas, which load with the first call. */
type SchemaOf<T> = (s: Schemas) => z.ZodType<T>;

/** An answer with no body to parse. */
const NO_CONTENT: unique symbol = Symbol('no content');

/**
 * zod and the control surface's schemas load with the first call to the emulator, not with the client: every
 * user of `@svc/client` imports this class, and a read command (or a program that only reads the API) never
 * calls it.
 */
let loadingSchemas: Promise<Schemas> | undefined;
function controlSchemas(): Promise<Schemas> {
  loadingSchemas ??= import('./control-schemas.js');
  return loadingSchemas;
}

const segment = encodeURIComponent;

/** The calls of one org's checkpoints (checkpoint, rewind, checkpoints, deleteCheckpoint) are in checkpoint-calls.ts. */
export class EmulatorControl extends CheckpointCalls {
  readonly #base: string;
  readonly #adminToken: string;
  readonly #fetch: FetchLike;

  protected readonly controlCall: ControlCall = (method, path, pick, body) =>
    this.#call(method, path, pick, body);

  constructor(options: EmulatorControlOptions) {
    super();
    this.#base = options.url.replace(/\/+$/, '');
    this.#adminToken = options.adminToken;
    this.#fetch = options.fetch ?? fetch;
  }

  /** The address of the emulator this client talks to. */
  get url(): string {
    return this.#base;
  }

  health(): Promise<Health> {
    return this.#call('GET', '/_emulator/health', (s) => s.HealthSchema);
  }

  /** Answers without the admin token: the emulator is up and serving. */
  ready(): Promise<Ready> {
    return this.#call('GET', '/_emulator/ready', (s) => s.ReadySchema);
  }

  /** A new, empty org: give each test file its own, with its own keys, endpoints, events and clock. */
  createOrg(input: CreateOrgRequest): Promise<Org> {
    return this.#call('POST', '/_emulator/orgs', (s) => s.OrgSchema, input);
  }

  /**
   * A control token narrower than the admin token, shown in this answer only: the token of an org there is
   * (`{org_id}`), a new org with its token (`{new_org: NAME}`), or one that only makes orgs (`{scope: 'new_orgs'}`,
   * what a test run hands its files). A client made with an org's token reaches that org alone.
   */
  createControlToken(input: CreateControlTokenRequest): Promise<ControlToken> {
    return this.#call('POST', '/_emulator/control-tokens', (s) => s.ControlTokenSchema, input);
  }

  /** Empties an org (keys, endpoints, sandboxes, links, events, deliveries) and gives its clock back to the emulator's. */
  resetOrg(orgId: string): Promise<OrgReset> {
    return this.#call('POST', `/_emulator/orgs/${segment(orgId)}/reset`, (s) => s.OrgResetSchema);
  }

  /** Deletes an org and everything of it (the default org can only be reset). */
  deleteOrg(orgId: string): Promise<OrgDeleted> {
    return this.#call('DELETE', `/_emulator/orgs/${segment(orgId)}`, (s) => s.OrgDeletedSchema);
  }

  /** An org's clock: its own when it has one, else the emulator's time. */
  orgClock(orgId: string): Promise<OrgClockState> {
    return this.#call('GET', `/_emulator/orgs/${segment(orgId)}/clock`, (s) => s.OrgClockStateSchema);
  }

  /**
   * Resolves with the delivery's detail once the emulator has recorded it as asked; the emulator holds the answer
   * and sends it when its delivery engine records the change (nothing is read again and again). Rejects with an
   * EmulatorControlError of code `timeout` when `timeout` runs out first.
   */
  waitForDelivery(options: WaitForDeliveryOptions): Promise<DeliveryDetail> {
    const {timeout, ...rest} = options;
    return this.#call('POST', '/_emulator/delivery-wait', (s) => s.DeliveryDetailSchema, {
      ...rest,
      ...(timeout === undefined ? {} : {timeout_ms: timeout}),
    });
  }

  createKey(input: CreateKeyRequest): Promise<CreatedKey> {
    return this.#call('POST', '/_emulator/keys', (s) => s.CreatedKeySchema, input);
  }

  revokeKey(id: string): Promise<KeyRecord> {
    return this.#call('POST', `/_emulator/keys/${segment(id)}/revoke`, (s) => s.KeyRecordSchema);
  }

  createWebhook(input: CreateWebhookRequest): Promise<CreatedWebhook> {
    return this.#call('POST', '/_emulator/webhooks', (s) => s.CreatedWebhookSchema, input);
  }

  async deleteWebhook(id: string): Promise<void> {
    await this.#call('DELETE', `/_emulator/webhooks/${segment(id)}`, NO_CONTENT);
  }

  /** An endpoint's delivery chaos; null settings turn it off for the endpoint. */
  setChaos(webhookId: string, settings: ChaosSettings | null): Promise<EndpointChaos> {
    const path = `/_emulator/webhooks/${segment(webhookId)}/chaos`;
    return settings === null
      ? this.#call('DELETE', path, (s) => s.EndpointChaosSchema)
      : this.#call('PUT', path, (s) => s.EndpointChaosSchema, settings);
  }

  getChaos(webhookId: string): Promise<EndpointChaos> {
    return this.#call('GET', `/_emulator/webhooks/${segment(webhookId)}/chaos`, (s) => s.EndpointChaosSchema);
  }

  clock(): Promise<ClockState> {
    return this.#call('GET', '/_emulator/clock', (s) => s.ClockStateSchema);
  }

  /** Moves a manual clock forward (`90s`, `10m`, `3h`, `31d`); with `org`, that org's own clock instead. */
  advanceClock(duration: Duration, options?: ClockMoveOptions & {org?: undefined}): Promise<ClockState>;
  advanceClock(duration: Duration, options: ClockMoveOptions & {org: string}): Promise<OrgClockState>;
  advanceClock(duration: Duration, options: ClockMoveOptions = {}): Promise<ClockState | OrgClockState> {
    return this.#moveClock({advance: duration}, options);
  }

  /** Sets a manual clock to a time (ISO 8601); with `org`, that org's own clock instead. */
  setClock(iso: string, options?: ClockMoveOptions & {org?: undefined}): Promise<ClockState>;
  setClock(iso: string, options: ClockMoveOptions & {org: string}): Promise<OrgClockState>;
  setClock(iso: string, options: ClockMoveOptions = {}): Promise<ClockState | OrgClockState> {
    return this.#moveClock({set: iso}, options);
  }

  #moveClock(
    move: {advance: string} | {set: string},
    options: ClockMoveOptions,
  ): Promise<ClockState | OrgClockState> {
    const body = options.settle ? {...move, settle: true} : move;
    return options.org === undefined
      ? this.#call('POST', '/_emulator/clock', (s) => s.ClockStateSchema, body)
      : this.#call(
          'POST',
          `/_emulator/orgs/${segment(options.org)}/clock`,
          (s) => s.OrgClockStateSchema,
          body,
        );
  }

  /** Forgets every address's failed authentications, on /v1 and on the control surface. */
  resetLimiter(): Promise<LimiterReset> {
    return this.#call('POST', '/_emulator/limiter/reset', (s) => s.LimiterResetSchema);
  }

  /** Emits one event, creating a sandbox in the implied state when none is named. */
  trigger(input: TriggerRequest): Promise<SandboxMove> {
    return this.#call('POST', '/_emulator/trigger', (s) => s.SandboxMoveSchema, input);
  }

  createSandbox(input: CreateSandboxRequest = {}): Promise<SandboxMove> {
    return this.#call('POST', '/_emulator/sandboxes', (s) => s.SandboxMoveSchema, input);
  }

  /** resume, fork, stop, quota-exhausted, disk-limit, crash, fail, standby or wake. */
  sandboxAction(id: string, action: SandboxAction, input: SandboxActionRequest = {}): Promise<SandboxMove> {
    return this.#call(
      'POST',
      `/_emulator/sandboxes/${segment(id)}/${segment(action)}`,
      (s) => s.SandboxMoveSchema,
      input,
    );
  }

  listSandboxes(orgId?: string): Promise<List<SandboxRecord>> {
    const query = orgId ? `?org_id=${segment(orgId)}` : '';
    return this.#call('GET', `/_emulator/sandboxes${query}`, (s) => s.listOf(s.SandboxRecordSchema));
  }

  /** Opens a port session, desktop link or browser URL onto a running sandbox on behalf of a key; the URL is shown once. */
  createLink(sandboxId: string, input: CreateLinkRequest): Promise<CreatedSandboxLink> {
    return this.#call(
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
    return this.#call('GET', `/_emulator/links${query ? `?${query}` : ''}`, (s) =>
      s.listOf(s.SandboxLinkSchema),
    );
  }

  /** Finds or creates the relay endpoint `svc listen` receives through; its secret is the same every time. */
  registerRelay(input: RegisterRelayRequest = {}): Promise<RelayRegistration> {
    return this.#call('POST', '/_emulator/relay', (s) => s.RelayRegistrationSchema, input);
  }

  /**
   * The relay endpoint's deliveries as they come (NDJSON, one message a line): `connected` first, `ping` while
   * idle, then each `delivery`. Ends when the emulator closes the stream; aborting `signal` cuts it. `listener`
   * names the run that streams (with its pid and host, so a second run is told who holds the relay: 409
   * conflict); a deleted relay answers 404 or ends with `deleted`, a relay another run took over ends with
   * `taken_over`.
   */
  async *relayStream(
    endpointId: string,
    options: {signal?: AbortSignal; listener?: {id: string; pid: number; host: string}} = {},
  ): AsyncGenerator<RelayMessage> {
    const who = options.listener
      ? `?${new URLSearchParams({listener: options.listener.id, pid: String(options.listener.pid), host: options.listener.host})}`
      : '';
    const path = `/_emulator/relay/${segment(endpointId)}/stream${who}`;
    const res = await this.#send('GET', path, undefined, options.signal);
    if (!res.ok || !res.body) throw await controlErrorOf(res, controlSchemas);
    if (!isByteStream(res.body)) {
      throw new EmulatorControlError(
        'the fetch given to the control client hands over no body to read as it comes: the relay stream needs one',
        res.status,
        'invalid_response',
      );
    }
    const {RelayMessageSchema} = await controlSchemas();
    for await (const line of ndjsonLines(res.body)) {
      yield parseAnswer(RelayMessageSchema, JSON.parse(line), path, res.status);
    }
  }

  /** What the local server answered to one relayed attempt, for the delivery's record and its retries. */
  async reportRelayResult(endpointId: string, report: RelayReport): Promise<void> {
    await this.#call('POST', `/_emulator/relay/${segment(endpointId)}/results`, NO_CONTENT, report);
  }

  /** How each endpoint's recent deliveries are going, for every endpoint of the org (default: the default org). */
  endpointHealth(orgId?: string): Promise<List<EndpointHealth>> {
    const query = orgId ? `?org_id=${segment(orgId)}` : '';
    return this.#call('GET', `/_emulator/webhook-health${query}`, (s) => s.listOf(s.EndpointHealthSchema));
  }

  /** One delivery with its event and every attempt, oldest first. */
  delivery(id: string): Promise<DeliveryDetail> {
    return this.#call('GET', `/_emulator/deliveries/${segment(id)}`, (s) => s.DeliveryDetailSchema);
  }

  /**
   * A new attempt now (trigger manual, freshly signed, the same body): the delivery after it, and `resend`, how it
   * went (its answer, and the delivery's state: succeeded when answered 2xx, else as it was).
   */
  resendDelivery(id: string): Promise<ResentDelivery> {
    return this.#call('POST', `/_emulator/deliveries/${segment(id)}/resend`, (s) => s.ResentDeliverySchema);
  }

  /**
   * Resends the failed deliveries of the org (of one endpoint, created within `since`), oldest first: one page of
   * at most `limit` per call, each with its outcome; call again with `after: next` to go on (`next` is null when
   * none is left). Aborting `signal` stops the emulator starting more.
   */
  resendFailed(
    input: ResendFailedRequest = {},
    options: {signal?: AbortSignal} = {},
  ): Promise<ResendFailedResult> {
    return this.#call(
      'POST',
      '/_emulator/failed-deliveries/resend',
      (s) => s.ResendFailedResultSchema,
      input,
      options.signal,
    );
  }

  /** Loads a seed (or snapshot) document: added to the state (merge) or in its place (replace). */
  importState(input: ImportStateRequest): Promise<StateLoadResult> {
    return this.#call('POST', '/_emulator/state/import', (s) => s.StateLoadResultSchema, input);
  }

  /** The whole state as a snapshot document (signing secrets in clear text: keep it owner-only). */
  exportState(): Promise<Snapshot> {
    return this.#call('GET', '/_emulator/state/export', (s) => s.SnapshotSchema);
  }

  /** Empties the state: one empty default org, as a fresh data dir starts; the clock stays. */
  resetState(): Promise<StateReset> {
    return this.#call('POST', '/_emulator/state/reset', (s) => s.StateResetSchema);
  }

  /** This process's request log: entries after a seq, or since a time or a duration ago; `wait` holds until one comes. */
  logs(query: {since?: string; after?: number; wait?: number} = {}): Promise<RequestLogPage> {
    const params = new URLSearchParams();
    if (query.since !== undefined) params.set('since', query.since);
    if (query.after !== undefined) params.set('after', String(query.after));
    if (query.wait !== undefined) params.set('wait', String(query.wait));
    const q = params.toString();
    return this.#call('GET', `/_emulator/logs${q ? `?${q}` : ''}`, (s) => s.RequestLogPageSchema);
  }

  async #call<T>(
    method: Method,
    path: string,
    pick: SchemaOf<T> | typeof NO_CONTENT,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    // The schemas load while the request is on the wire.
    const loading = pick === NO_CONTENT ? undefined : controlSchemas();
    loading?.catch(() => {});
    const res = await this.#send(method, path, body, signal);
    if (!res.ok) throw await controlErrorOf(res, controlSchemas);
    const text = await res.text();
    if (pick === NO_CONTENT || !loading) return undefined as T;
    const schema = pick(await loading);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new EmulatorControlError(
        `the emulator's answer to ${method} ${path} is not JSON`,
        res.status,
        'invalid_response',
      );
    }
    return parseAnswer(schema, value, path, res.status);
  }

  async #send(method: Method, path: string, body?: unknown, signal?: AbortSignal): Promise<ResponseLike> {
    const headers: Record<string, string> = {authorization: `Bearer ${this.#adminToken}`};
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: ResponseLike;
    try {
      res = await this.#fetch(`${this.#base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        // Followed, a 307 or 308 would post the body (a snapshot's secrets, a key's name) and the token elsewhere.
        ...NO_REDIRECTS,
        signal,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new EmulatorControlError(
        `could not reach the emulator at ${this.#base} (${(err as Error).message}); is it running?`,
        0,
        'unreachable',
      );
    }
    if (isRedirect(res.status)) {
      await discard(res);
      throw new EmulatorControlError(
        `${redirectRefusal(`the emulator at ${this.#base}`, res.status)}; is ${this.#base} the emulator's own address (its emulator.json api_url)?`,
        res.status,
        'unexpected_redirect',
      );
    }
    return res;
  }
}
