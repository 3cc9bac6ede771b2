// `svc emulator orgs create|reset|delete|checkpoint|rewind|checkpoints`: orgs as the unit of isolation (a test file
// each, with its own clock), and their checkpoints.
import type {Checkpoint, OrgDeleted, OrgReset, RewoundCheckpoint} from '@svc/client';
import type {Org} from '../../../schemas/index.js';
import {type At, type ConnectOptions, withControl, withControlAt} from '../connect.js';

/** The org, and the address of the emulator that made it. */
export function createOrg(options: ConnectOptions & {name: string}): Promise<At<Org>> {
  return withControlAt(options, (control) => control.createOrg({name: options.name}));
}

export function resetOrg(options: ConnectOptions & {id: string}): Promise<OrgReset> {
  return withControl(options, (control) => control.resetOrg(options.id));
}

export function deleteOrg(options: ConnectOptions & {id: string}): Promise<OrgDeleted> {
  return withControl(options, (control) => control.deleteOrg(options.id));
}

/** `svc emulator orgs checkpoint ORG NAME`: the org's rows, clock and schedule saved under a name. */
export function checkpointOrg(options: ConnectOptions & {id: string; name: string}): Promise<Checkpoint> {
  return withControl(options, (control) => control.checkpoint(options.id, options.name));
}

/** `svc emulator orgs rewind ORG NAME`: the org put back as the checkpoint saved it. */
export function rewindOrg(options: ConnectOptions & {id: string; name: string}): Promise<RewoundCheckpoint> {
  return withControl(options, (control) => control.rewind(options.id, options.name));
}

/** `svc emulator orgs checkpoints ORG`: the org's checkpoints, oldest first. */
export function listCheckpoints(options: ConnectOptions & {id: string}): Promise<Checkpoint[]> {
  return withControl(options, (control) => control.checkpoints(options.id));
}
