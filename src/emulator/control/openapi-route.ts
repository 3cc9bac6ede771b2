// GET /_emulator/ready, and GET /_emulator/openapi.json: the OpenAPI 3.1 document of /v1 and of the webhooks, generated from the
// schemas. It is served without the admin token (registered before it): it describes the public API and holds
// nothing of this emulator's state, so code generators and validators can load it by URL.
import {buildOpenApiDocument} from '../../schemas/openapi.js';
import type {Ready} from '../../schemas/emulator.js';
import type {EmulatorApp} from '../context.js';

export const OPENAPI_PATH = '/_emulator/openapi.json';

/** Served without the admin token too: says only that the emulator answers, for scripts waiting for it. */
export const READY_PATH = '/_emulator/ready';

export function registerOpenApiRoute(app: EmulatorApp): void {
  app.get(READY_PATH, (c) => c.json({ready: true} satisfies Ready));
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
