// The account page address the service names; in the emulator the control commands stand in for it.
import type {EmulatorApp, EmulatorContext} from '../context.js';

export function registerAccountPage(app: EmulatorApp, _ctx: EmulatorContext): void {
  app.get('/account', (c) =>
    c.html(
      '<!doctype html><meta charset="utf-8"><title>svc emulator account page</title>' +
        '<h1>svc emulator</h1><p>Keys and webhook endpoints are managed with ' +
        '<code>svc emulator keys create</code> and <code>svc emulator webhooks create</code>.</p>',
    ),
  );
}
