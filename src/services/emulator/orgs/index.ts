// `svc emulator orgs create|reset|delete`: orgs as the unit of isolation (a test file each, with its own clock).
import type {OrgDeleted, OrgReset} from '@svc/client';
import type {Org} from '../../../schemas/index.js';
import {type ConnectOptions, withControl} from '../connect.js';

export function createOrg(options: ConnectOptions & {name: string}): Promise<Org> {
  return withControl(options, (control) => control.createOrg({name: options.name}));
}

export function resetOrg(options: ConnectOptions & {id: string}): Promise<OrgReset> {
  return withControl(options, (control) => control.resetOrg(options.id));
}

export function deleteOrg(options: ConnectOptions & {id: string}): Promise<OrgDeleted> {
  return withControl(options, (control) => control.deleteOrg(options.id));
}
