// The type of the emulator's Hono app, apart from the context: the error answers (http-error.ts) need the app's
// type, and the context needs what the errors are answered with; neither has to import the other for it.
import type {Hono} from 'hono';

/** Why a request was refused, when the answer does not say (or says the same for every cause). */
export interface Refusal {
  reason: string;
  /** For people: when the key was revoked or expired, until when the address is limited. */
  detail?: string;
  key_id?: string;
  key_prefix?: string;
}

/** What a request on the control surface may reach, by its token: everything, one org, or making orgs. */
export type ControlScope = {kind: 'admin'} | {kind: 'org'; orgId: string} | {kind: 'new_orgs'};

export type AppEnv = {
  Variables: {
    /** Set by the control surface's authentication for every request it lets through. */
    controlScope: ControlScope;
    key: {id: string; orgId: string; prefix: string};
    /** Why the request was refused, for the request log only: never in the answer. */
    refusal: Refusal;
    /** The status an upgrade request was answered on its own socket (101 when its connection was upgraded). */
    upgraded: number;
  };
};
export type EmulatorApp = Hono<AppEnv>;
