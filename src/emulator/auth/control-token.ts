// Control tokens: credentials of the control surface narrower than the admin token, so a test file can hold one
// without being able to reach another file's org. A token says what it reaches (one org, or only making orgs)
// and carries an HMAC of that under the emulator's admin token: nothing is stored, the emulator that issued it
// (the process holding that admin token) checks it on every request, and it ends with that emulator.
import {createHmac} from 'node:crypto';
import {CONTROL_TOKEN_PREFIX, type ControlTokenScope, isId} from '../../definitions.js';
import type {ControlScope} from '../app-env.js';
import {safeEqual} from '../hash.js';

/** What an issued control token reaches. */
export type IssuedScope = Exclude<ControlScope, {kind: 'admin'}>;

/** The part of a token naming what it reaches, before the MAC: an org id, or this word. */
const NEW_ORGS: ControlTokenScope = 'new_orgs';

function mac(adminToken: string, subject: string): string {
  return createHmac('sha256', adminToken).update(`svc control token\n${subject}`).digest('base64url');
}

/** A token reaching one org (`org`) or only making orgs (`new_orgs`), under this emulator's admin token. */
export function issueControlToken(adminToken: string, scope: IssuedScope): string {
  const subject = scope.kind === 'org' ? scope.orgId : NEW_ORGS;
  return `${CONTROL_TOKEN_PREFIX}${subject}.${mac(adminToken, subject)}`;
}

/** What a token reaches when this emulator issued it; undefined for anything else (a wrong MAC included). */
export function readControlToken(adminToken: string, token: string): IssuedScope | undefined {
  if (!token.startsWith(CONTROL_TOKEN_PREFIX)) return undefined;
  const rest = token.slice(CONTROL_TOKEN_PREFIX.length);
  const dot = rest.indexOf('.');
  if (dot < 0) return undefined;
  const subject = rest.slice(0, dot);
  if (subject !== NEW_ORGS && !isId('org', subject)) return undefined;
  if (!safeEqual(rest.slice(dot + 1), mac(adminToken, subject))) return undefined;
  return subject === NEW_ORGS ? {kind: 'new_orgs'} : {kind: 'org', orgId: subject};
}
