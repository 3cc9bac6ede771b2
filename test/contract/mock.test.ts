// The contract cases against msw handlers of the documented API: in-process fetch is intercepted by
// msw, spawned CLI processes reach the same handlers through a loopback server.
import {setupServer} from 'msw/node';
import {parseDuration} from '../../src/emulator/clock.js';
import {MockApi} from '../helpers/msw-handlers.js';
import {serveHandlers} from '../helpers/msw-server.js';
import {defineContract} from './define.js';

defineContract('msw handlers', async () => {
  const mock = new MockApi();
  const loopback = await serveHandlers(mock.handlers());
  const intercept = setupServer(...mock.handlers());
  intercept.listen({onUnhandledRequest: 'error'});
  return {
    async world() {
      const org = mock.createOrg(`Contract ${Math.random().toString(36).slice(2, 8)}`);
      return {
        apiUrl: loopback.url,
        orgId: org.id,
        mintKey: async (input) => mock.mintKey({org_id: org.id, ...input}),
        revokeKey: async (id) => mock.revokeKey(id),
        createOrg: async (name) => mock.createOrg(name),
        createWebhook: async (input) => mock.createWebhook({org_id: org.id, ...input}),
        trigger: async (type) => mock.trigger(type, org.id),
        advanceClock: async (duration) => {
          mock.state.offsetMs += parseDuration(duration)!;
        },
      };
    },
    async close() {
      intercept.close();
      await loopback.close();
    },
  };
});
