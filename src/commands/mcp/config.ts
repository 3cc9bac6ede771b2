import {Flags} from '@oclif/core';
import {BaseCommand} from '../../lib/base-command.js';
import {currentSvcCommand, mcpServerCommand, runningExecutable} from '../../lib/invocation.js';
import {
  KEY_SOURCES,
  type KeySource,
  MCP_CLIENTS,
  type McpClient,
  mcpConfig,
} from '../../services/mcp/config.js';

export default class McpConfig extends BaseCommand {
  static override summary = 'Print the snippet that adds `svc mcp` to an MCP client';
  static override description =
    'The snippet never contains a key: the server reads your `svc login`, or (with --key-from env) the ' +
    'client passes SVC_API_KEY through from its environment.';
  static override examples = [
    '<%= config.bin %> mcp config --client claude',
    '<%= config.bin %> mcp config --client codex --key-from env',
    '<%= config.bin %> mcp config --client vscode --json',
  ];
  static override flags = {
    client: Flags.string({description: 'the MCP client', options: [...MCP_CLIENTS], required: true}),
    'key-from': Flags.string({
      description: 'where the server gets the key: the stored login, or SVC_API_KEY in the environment',
      options: [...KEY_SOURCES],
      default: 'login',
    }),
  };

  async run() {
    const {flags} = await this.parse(McpConfig);
    // The client starts the server from its own folder and PATH: svc when it is on the PATH, else by absolute paths.
    const run = mcpServerCommand({
      env: process.env,
      cwd: process.cwd(),
      script: process.argv[1],
      executable: runningExecutable(),
    });
    const snippet = mcpConfig(
      flags.client as McpClient,
      flags['key-from'] as KeySource,
      run,
      currentSvcCommand(),
    );
    this.note(`Add this to ${snippet.file}:\n`);
    await this.show(snippet, (s) => s.text);
    this.note(`\n${snippet.next_steps.map((s) => `Then: ${s}`).join('\n')}`);
  }
}
