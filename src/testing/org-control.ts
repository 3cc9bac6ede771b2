// The control client of one test file's org: every call acts on that org alone (its clock, its events, its keys
// and endpoints). In a fixture it goes through a client holding the org's own control token, so the emulator
// itself refuses a call for another file's org: a file cannot move another file's time, read its deliveries or
// reset it, by mistake or otherwise.
import type {
  Checkpoint,
  CheckpointDeleted,
  ClockMoveOptions,
  CreatedKey,
  CreatedWebhook,
  DeliveryDetail,
  EmulatorControl,
  OrgClockState,
  RewoundCheckpoint,
  SandboxMove,
  SandboxRecord,
  WaitForDeliveryOptions,
} from '@svc/client';
import type {Duration, SandboxAction} from '../definitions.js';
import type {
  CreateKeyRequest,
  CreateSandboxRequest,
  CreateWebhookRequest,
  SandboxActionRequest,
  TriggerRequest,
} from '../schemas/emulator.js';

type WithoutOrg<T> = Omit<T, 'org_id'>;

export class OrgControl {
  constructor(
    /**
     * The control client the calls go through. In a fixture it holds the org's own control token, which reaches
     * this org alone (anything of another org, or of the whole emulator, is refused with 403 `forbidden`).
     */
    readonly emulator: EmulatorControl,
    readonly orgId: string,
  ) {}

  /** Moves this org's clock only; with `settle`, resolves once the attempts it made due have been made. */
  advanceClock(duration: Duration, options: Omit<ClockMoveOptions, 'org'> = {}): Promise<OrgClockState> {
    return this.emulator.advanceClock(duration, {...options, org: this.orgId});
  }

  setClock(iso: string, options: Omit<ClockMoveOptions, 'org'> = {}): Promise<OrgClockState> {
    return this.emulator.setClock(iso, {...options, org: this.orgId});
  }

  clock(): Promise<OrgClockState> {
    return this.emulator.orgClock(this.orgId);
  }

  trigger(input: WithoutOrg<TriggerRequest>): Promise<SandboxMove> {
    return this.emulator.trigger({...input, org_id: this.orgId});
  }

  createKey(input: WithoutOrg<CreateKeyRequest>): Promise<CreatedKey> {
    return this.emulator.createKey({...input, org_id: this.orgId});
  }

  createWebhook(input: WithoutOrg<CreateWebhookRequest>): Promise<CreatedWebhook> {
    return this.emulator.createWebhook({...input, org_id: this.orgId});
  }

  createSandbox(input: WithoutOrg<CreateSandboxRequest> = {}): Promise<SandboxMove> {
    return this.emulator.createSandbox({...input, org_id: this.orgId});
  }

  sandboxAction(
    id: string,
    action: SandboxAction,
    input: WithoutOrg<SandboxActionRequest> = {},
  ): Promise<SandboxMove> {
    return this.emulator.sandboxAction(id, action, {...input, org_id: this.orgId});
  }

  async listSandboxes(): Promise<SandboxRecord[]> {
    return (await this.emulator.listSandboxes(this.orgId)).data;
  }

  /** Resolves once the emulator has recorded the delivery as asked (pushed by the emulator, not polled). */
  waitForDelivery(options: WaitForDeliveryOptions): Promise<DeliveryDetail> {
    return this.emulator.waitForDelivery(options);
  }

  delivery(id: string): Promise<DeliveryDetail> {
    return this.emulator.delivery(id);
  }

  /** Saves this org's rows, its clock and its pending schedule under a name, to rewind to later. */
  checkpoint(name: string): Promise<Checkpoint> {
    return this.emulator.checkpoint(this.orgId, name);
  }

  /** Puts this org back as the checkpoint saved it (in-flight attempts cancelled); other orgs never notice. */
  rewind(name: string): Promise<RewoundCheckpoint> {
    return this.emulator.rewind(this.orgId, name);
  }

  checkpoints(): Promise<Checkpoint[]> {
    return this.emulator.checkpoints(this.orgId);
  }

  deleteCheckpoint(name: string): Promise<CheckpointDeleted> {
    return this.emulator.deleteCheckpoint(this.orgId, name);
  }

  /** Empties the org (keys, endpoints, sandboxes, events, deliveries) and gives its clock back to the emulator's. */
  reset(): Promise<void> {
    return this.emulator.resetOrg(this.orgId).then(() => undefined);
  }
}
