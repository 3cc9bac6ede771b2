// GET /_emulator/ready, open to anyone, and GET /_emulator/openapi.json: the OpenAPI 3.1 document of /v1 and of the
// webhooks, generated from the schemas. The contract exempts only the ready route from the admin token, so the
// document takes it like every other control route; `svc emulator openapi` prints the same document with no
// emulator and no token, for code generators and fuzzers.
import {buildOpenApiDocument} from '../../schemas/openapi.js';
import type {Ready} from '../../schemas/emulator.js';
import type {EmulatorApp} from '../context.js';

export const OPENAPI_PATH = '/_emulator/openapi.json';

/** Served without the admin token: says only that the emulator answers, for scripts waiting for it. */
export const READY_PATH = '/_emulator/ready';

/** Registered before the control routes' admin check: the one control path open to anyone. */
export function registerReadyRoute(app: EmulatorApp): void {
  app.get(READY_PATH, (c) => c.json({ready: true} satisfies Ready));
}

/** Registered after the control routes' admin check, which it takes like the rest of them. */
export function registerOpenApiRoute(app: EmulatorApp): void {
  // Built once per server address it is asked through: the document names where /v1 is served.
  const bodies = new Map<string, string>();
  app.get(OPENAPI_PATH, (c) => {
    const origin = new URL(c.req.url).origin;
    let body = bodies.get(origin);
    if (body === undefined) {
      body = JSON.stringify(buildOpenApiDocument({serverUrl: origin}), null, 2);
      // A few addresses at most (localhost, 127.0.0.1, a LAN name); never grows without bound.
      if (bodies.size < 16) bodies.set(origin, body);
    }
    return c.body(body, 200, {'Content-Type': 'application/json'});
  });
}
