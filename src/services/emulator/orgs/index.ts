// `svc emulator orgs create|reset|delete`: orgs as the unit of isolation (a test file each, with its own clock).
import type {OrgDeleted, OrgReset} from '@svc/client';
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
