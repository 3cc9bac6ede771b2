// A typed client for the emulator's control surface (/_emulator), used by the CLI's `svc emulator …` commands,
// `svc listen`, the TUI, MCP and test suites. Every answer is parsed with its schema (src/schemas/emulator.ts),
// the same one the emulator's routes answer with; one that does not fit is an error, never a cast.
import type {
  ChaosSettings,
  ClockState,
  ControlToken,
  CreateControlTokenRequest,
  CreatedKey,
  CreatedWebhook,
  CreateKeyRequest,
  CreateOrgRequest,
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
  ImportStateRequest,
  RequestLogPage,
  StateLoadResult,
  StateReset,
} from '../schemas/emulator.js';
import type {Snapshot} from '../schemas/snapshot.js';
import type {Duration} from '../definitions.js';
import type {ClockMoveOptions, WaitForDeliveryOptions} from './control-options.js';
import type {Checkpoint, CheckpointDeleted, ControlCall, RewoundCheckpoint} from './checkpoint-calls.js';
import {ControlRequest, NO_CONTENT} from './control-request.js';
import {EmulatorControlError} from './errors.js';
import type {List, Org} from '../schemas/index.js';
import {SandboxCalls} from './sandbox-calls.js';
import type {FetchLike} from './transport.js';

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

const segment = encodeURIComponent;

/**
 * The calls of sandboxes and their links (trigger, createSandbox, sandboxAction, listSandboxes, createLink,
 * listLinks) are in sandbox-calls.ts, those of one org's checkpoints (checkpoint, rewind, checkpoints,
 * deleteCheckpoint) in checkpoint-calls.ts; how a call reaches the emulator and what its answer becomes, in
 * control-request.ts.
 */
export class EmulatorControl extends SandboxCalls {
  readonly #base: string;
  readonly #request: ControlRequest;

  protected readonly controlCall: ControlCall = (method, path, pick, body) =>
    this.#request.call(method, path, pick, body);

  constructor(options: EmulatorControlOptions) {
    super();
    this.#base = options.url.replace(/\/+$/, '');
    this.#request = new ControlRequest(this.#base, options.adminToken, options.fetch ?? fetch);
  }

  /** The address of the emulator this client talks to. */
  get url(): string {
    return this.#base;
  }

  health(): Promise<Health> {
    return this.#request.call('GET', '/_emulator/health', (s) => s.HealthSchema);
  }

  /** Answers without the admin token: the emulator is up and serving. */
  ready(): Promise<Ready> {
    return this.#request.call('GET', '/_emulator/ready', (s) => s.ReadySchema);
  }

  /** A new, empty org: give each test file its own, with its own keys, endpoints, events and clock. */
  createOrg(input: CreateOrgRequest): Promise<Org> {
    return this.#request.call('POST', '/_emulator/orgs', (s) => s.OrgSchema, input);
  }

  /**
   * A control token narrower than the admin token, shown in this answer only: the token of an org there is
   * (`{org_id}`), a new org with its token (`{new_org: NAME}`), or one that only makes orgs (`{scope: 'new_orgs'}`,
   * what a test run hands its files). A client made with an org's token reaches that org alone.
   */
  createControlToken(input: CreateControlTokenRequest): Promise<ControlToken> {
    return this.#request.call('POST', '/_emulator/control-tokens', (s) => s.ControlTokenSchema, input);
  }

  /** Empties an org (keys, endpoints, sandboxes, links, events, deliveries) and gives its clock back to the emulator's. */
  resetOrg(orgId: string): Promise<OrgReset> {
    return this.#request.call('POST', `/_emulator/orgs/${segment(orgId)}/reset`, (s) => s.OrgResetSchema);
  }

  /** Deletes an org and everything of it (the default org can only be reset). */
  deleteOrg(orgId: string): Promise<OrgDeleted> {
    return this.#request.call('DELETE', `/_emulator/orgs/${segment(orgId)}`, (s) => s.OrgDeletedSchema);
  }

  /** An org's clock: its own when it has one, else the emulator's time. */
  orgClock(orgId: string): Promise<OrgClockState> {
    return this.#request.call('GET', `/_emulator/orgs/${segment(orgId)}/clock`, (s) => s.OrgClockStateSchema);
  }

  /**
   * Resolves with the delivery's detail once the emulator has recorded it as asked; the emulator holds the answer
   * and sends it when its delivery engine records the change (nothing is read again and again). Rejects with an
   * EmulatorControlError of code `timeout` when `timeout` runs out first, and with status 503 when the emulator
   * stops first.
   */
  waitForDelivery(options: WaitForDeliveryOptions): Promise<DeliveryDetail> {
    const {timeout, ...rest} = options;
    return this.#request.call('POST', '/_emulator/delivery-wait', (s) => s.DeliveryDetailSchema, {
      ...rest,
      ...(timeout === undefined ? {} : {timeout_ms: timeout}),
    });
  }

  createKey(input: CreateKeyRequest): Promise<CreatedKey> {
    return this.#request.call('POST', '/_emulator/keys', (s) => s.CreatedKeySchema, input);
  }

  revokeKey(id: string): Promise<KeyRecord> {
    return this.#request.call('POST', `/_emulator/keys/${segment(id)}/revoke`, (s) => s.KeyRecordSchema);
  }

  createWebhook(input: CreateWebhookRequest): Promise<CreatedWebhook> {
    return this.#request.call('POST', '/_emulator/webhooks', (s) => s.CreatedWebhookSchema, input);
  }

  async deleteWebhook(id: string): Promise<void> {
    await this.#request.call('DELETE', `/_emulator/webhooks/${segment(id)}`, NO_CONTENT);
  }

  /** An endpoint's delivery chaos; null settings turn it off for the endpoint. */
  setChaos(webhookId: string, settings: ChaosSettings | null): Promise<EndpointChaos> {
    const path = `/_emulator/webhooks/${segment(webhookId)}/chaos`;
    return settings === null
      ? this.#request.call('DELETE', path, (s) => s.EndpointChaosSchema)
      : this.#request.call('PUT', path, (s) => s.EndpointChaosSchema, settings);
  }

  getChaos(webhookId: string): Promise<EndpointChaos> {
    return this.#request.call(
      'GET',
      `/_emulator/webhooks/${segment(webhookId)}/chaos`,
      (s) => s.EndpointChaosSchema,
    );
  }

  clock(): Promise<ClockState> {
    return this.#request.call('GET', '/_emulator/clock', (s) => s.ClockStateSchema);
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
      ? this.#request.call('POST', '/_emulator/clock', (s) => s.ClockStateSchema, body)
      : this.#request.call(
          'POST',
          `/_emulator/orgs/${segment(options.org)}/clock`,
          (s) => s.OrgClockStateSchema,
          body,
        );
  }

  /** Forgets every address's failed authentications, on /v1 and on the control surface. */
  resetLimiter(): Promise<LimiterReset> {
    return this.#request.call('POST', '/_emulator/limiter/reset', (s) => s.LimiterResetSchema);
  }

  /** Finds or creates the relay endpoint `svc listen` receives through; its secret is the same every time. */
  registerRelay(input: RegisterRelayRequest = {}): Promise<RelayRegistration> {
    return this.#request.call('POST', '/_emulator/relay', (s) => s.RelayRegistrationSchema, input);
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
    yield* this.#request.lines(path, (s) => s.RelayMessageSchema, options.signal);
  }

  /** What the local server answered to one relayed attempt, for the delivery's record and its retries. */
  async reportRelayResult(endpointId: string, report: RelayReport): Promise<void> {
    await this.#request.call('POST', `/_emulator/relay/${segment(endpointId)}/results`, NO_CONTENT, report);
  }

  /** How each endpoint's recent deliveries are going, for every endpoint of the org (default: the default org). */
  endpointHealth(orgId?: string): Promise<List<EndpointHealth>> {
    const query = orgId ? `?org_id=${segment(orgId)}` : '';
    return this.#request.call('GET', `/_emulator/webhook-health${query}`, (s) =>
      s.listOf(s.EndpointHealthSchema),
    );
  }

  /** One delivery with its event and every attempt, oldest first. */
  delivery(id: string): Promise<DeliveryDetail> {
    return this.#request.call('GET', `/_emulator/deliveries/${segment(id)}`, (s) => s.DeliveryDetailSchema);
  }

  /**
   * A new attempt now (trigger manual, freshly signed, the same body): the delivery after it, and `resend`, how it
   * went (its answer, and the delivery's state: succeeded when answered 2xx, else as it was).
   */
  resendDelivery(id: string): Promise<ResentDelivery> {
    return this.#request.call(
      'POST',
      `/_emulator/deliveries/${segment(id)}/resend`,
      (s) => s.ResentDeliverySchema,
    );
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
    return this.#request.call(
      'POST',
      '/_emulator/failed-deliveries/resend',
      (s) => s.ResendFailedResultSchema,
      input,
      options.signal,
    );
  }

  /** Loads a seed (or snapshot) document: added to the state (merge) or in its place (replace). */
  importState(input: ImportStateRequest): Promise<StateLoadResult> {
    return this.#request.call('POST', '/_emulator/state/import', (s) => s.StateLoadResultSchema, input);
  }

  /** The whole state as a snapshot document (signing secrets in clear text: keep it owner-only). */
  exportState(): Promise<Snapshot> {
    return this.#request.call('GET', '/_emulator/state/export', (s) => s.SnapshotSchema);
  }

  /** Empties the state: one empty default org, as a fresh data dir starts; the clock stays. */
  resetState(): Promise<StateReset> {
    return this.#request.call('POST', '/_emulator/state/reset', (s) => s.StateResetSchema);
  }

  /** This process's request log: entries after a seq, or since a time or a duration ago; `wait` holds until one comes. */
  logs(query: {since?: string; after?: number; wait?: number} = {}): Promise<RequestLogPage> {
    const params = new URLSearchParams();
    if (query.since !== undefined) params.set('since', query.since);
    if (query.after !== undefined) params.set('after', String(query.after));
    if (query.wait !== undefined) params.set('wait', String(query.wait));
    const q = params.toString();
    return this.#request.call('GET', `/_emulator/logs${q ? `?${q}` : ''}`, (s) => s.RequestLogPageSchema);
  }
}
