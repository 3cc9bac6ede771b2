// Runs the MCP server on stdin/stdout until the client closes stdin. stdout carries protocol only.
import type {Readable, Writable} from 'node:stream';
import {UserError} from '../../lib/errors.js';
import type {ClientSettings, CommandSession} from '../../lib/session.js';
import {diagnoseEndpoints} from '../webhooks/diagnose.js';
import {testReceiver} from '../webhooks/test-receiver.js';
import {WEBHOOK_SECRET_ENV} from '../webhooks/verify.js';
import {fetchDeliveryDetail} from './delivery-detail.js';
import {createMcpServer} from './server.js';

export interface ServeMcpOptions {
  env: NodeJS.ProcessEnv;
  version: string;
  /**
   * The command's session, opened afresh for each call (with MCP_CLIENT_SETTINGS), so a `svc login` made while
   * the server runs applies at once.
   */
  openSession: () => Promise<CommandSession>;
  /** The protocol's streams: the command's stdin and stdout. */
  stdin: Readable;
  stdout: Writable;
  /** Lets test_receiver send to receivers off this machine (the user's choice, never the agent's). */
  allowRemoteReceivers?: boolean;
}

/** Calls of an agent should fail fast: one retry, ten seconds per attempt. */
export const MCP_CLIENT_SETTINGS: ClientSettings = {retries: 1, timeoutMs: 10_000};

export async function serveMcp(options: ServeMcpOptions): Promise<void> {
  const {env} = options;
  const {server, drain} = await createMcpServer({
    version: options.version,
    openSession: options.openSession,
    deliveryDetail: (session, orgId, deliveryId) =>
      fetchDeliveryDetail({apiUrl: session.credentials.apiUrl, orgId, deliveryId, env}),
    testReceiver: (input) => {
      if (!env[WEBHOOK_SECRET_ENV]) {
        throw new UserError(
          `test_receiver signs with ${WEBHOOK_SECRET_ENV}, which the MCP server's environment does not set.`,
          {
            code: 'usage',
            suggestions: [
              `Add ${WEBHOOK_SECRET_ENV} (the endpoint's whsec_… signing secret) to the env of the svc entry in the MCP client's configuration, then restart it.`,
            ],
          },
        );
      }
      return testReceiver({...input, env, allowRemote: options.allowRemoteReceivers === true});
    },
    diagnose: async (session, webhookId) => {
      try {
        return await diagnoseEndpoints({client: session.client, webhookId, env});
      } catch (err) {
        // The command's next step names a command; an agent takes ids from a tool.
        if (err instanceof UserError && err.code === 'not_found') {
          throw new UserError(err.message, {
            code: 'not_found',
            suggestions: ['Take the id from list_webhook_endpoints'],
          });
        }
        throw err;
      }
    },
  });
  const {StdioServerTransport} = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const {stdin} = options;
  const transport = new StdioServerTransport(stdin, options.stdout);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  await server.connect(transport);
  // The client ends the session by closing our stdin; calls it made just before still get their answers.
  stdin.once('end', async () => {
    // The last message read may not have reached its handler yet.
    await new Promise((resolve) => setImmediate(resolve));
    await drain();
    await new Promise((resolve) => setImmediate(resolve));
    await server.close();
  });
  await closed;
}
