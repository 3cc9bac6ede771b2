import {Flags} from '@oclif/core';
import {BaseCommand} from '../../lib/base-command.js';

export default class Mcp extends BaseCommand {
  static override summary = 'Serve the org (keys, webhook endpoints, deliveries) to an MCP client over stdio';
  static override description =
    'Read-only, like an API key. The key comes from SVC_API_KEY or `svc login`, never from the client ' +
    'configuration; `svc mcp config --client …` prints the snippet to register it. The test_receiver tool ' +
    'sends test deliveries, signed with SVC_WEBHOOK_SECRET, to a receiver on this machine.';
  static override examples = ['<%= config.bin %> mcp', '<%= config.bin %> mcp config --client claude'];
  // stdout belongs to the protocol: there is no --json, and nothing else may print there.
  static override enableJsonFlag = false;
  static override flags = {
    'allow-remote-receivers': Flags.boolean({
      description: 'let the test_receiver tool send to receivers off this machine (default: loopback only)',
    }),
  };

  async run() {
    const {flags} = await this.parse(Mcp);
    // Anything that logs through console.log (a dependency, a warning) goes to stderr instead.
    console.log = console.error;
    console.info = console.error;
    console.debug = console.error;
    // stdin and stdout carry the protocol.
    const {stdin, stdout} = this.streams();
    if (stdin.isTTY) {
      this.note(
        'svc mcp speaks the Model Context Protocol on stdin and stdout: an MCP client starts it.\n' +
          'Register it with `svc mcp config --client claude|cursor|vscode|codex`. Ctrl-C stops it.',
      );
    }
    const {MCP_CLIENT_SETTINGS, serveMcp} = await import('../../services/mcp/serve.js');
    await serveMcp({
      env: process.env,
      version: this.config.version,
      allowRemoteReceivers: flags['allow-remote-receivers'],
      // Afresh for each call: a `svc login` made while the server runs applies at once.
      openSession: () => this.session({fresh: true, client: MCP_CLIENT_SETTINGS}),
      stdin,
      stdout,
    });
  }
}
