// `POST /_emulator/control-tokens`: control tokens narrower than the admin token (the token of an org there is, a
// new org with its token, or a token that only makes orgs). Which token may ask for which is token-scope.ts's rule.
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {readJsonObject} from '../net/read-json.js';
import {issueToken} from '../ops/control-tokens.js';
import {CONTROL_TOKENS_PATH} from './token-scope.js';

export function registerControlTokenRoutes(app: EmulatorApp, ctx: EmulatorContext): void {
  app.post(CONTROL_TOKENS_PATH, async (c) => {
    const {token, created} = await issueToken(ctx, await readJsonObject(c, ['org_id', 'new_org', 'scope']));
    return c.json(token, created ? 201 : 200);
  });
}
