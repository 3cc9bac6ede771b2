// `svc mcp config`: the snippet that registers `svc mcp` with an MCP client. It never holds a key: the
// server reads the stored login, or the client passes SVC_API_KEY through from its own environment.

export const MCP_CLIENTS = ['claude', 'cursor', 'vscode', 'codex'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];
export const KEY_SOURCES = ['login', 'env'] as const;
export type KeySource = (typeof KEY_SOURCES)[number];

export interface McpConfigSnippet {
  client: McpClient;
  /** Where the snippet goes. */
  file: string;
  format: 'json' | 'toml';
  key_source: KeySource;
  /** The snippet as data (for toml, the same table as an object). */
  config: Record<string, unknown>;
  /** The snippet as text, ready to paste. */
  text: string;
  /** What to do before the client starts the server. */
  next_steps: string[];
}

const SERVER_NAME = 'svc';
const ENV_NAMES = ['SVC_API_KEY', 'SVC_API_URL'] as const;

/** How each client writes "the value of this variable in my environment". */
const ENV_REFERENCE: Record<Exclude<McpClient, 'codex'>, (name: string) => string> = {
  claude: (name) => `\${${name}:-}`,
  cursor: (name) => `\${env:${name}}`,
  vscode: (name) => `\${env:${name}}`,
};

const FILES: Record<McpClient, string> = {
  claude: ".mcp.json (project) or add it with `claude mcp add-json svc '…'`",
  cursor: '.cursor/mcp.json (project) or ~/.cursor/mcp.json',
  vscode: '.vscode/mcp.json',
  codex: '~/.codex/config.toml',
};

function tomlString(value: string): string {
  return JSON.stringify(value);
}

export interface McpServerCommand {
  /** What the client starts: `svc`, or node by its absolute path when svc is not on the PATH. */
  command: string;
  /** Arguments before `mcp` (the entry script, when command is node). */
  args: string[];
}

export function mcpConfig(
  client: McpClient,
  keySource: KeySource = 'login',
  run: McpServerCommand = {command: 'svc', args: []},
  svc = 'svc',
): McpConfigSnippet {
  const command = run.command;
  const args = [...run.args, 'mcp'];
  const next_steps =
    keySource === 'login'
      ? [`Log in once on this machine: \`${svc} login < key.txt\` (add --api-url for another address)`]
      : [
          'Export SVC_API_KEY (and SVC_API_URL for another address) in the environment the client starts from',
        ];
  if (client === 'codex') {
    const server: Record<string, unknown> = {command, args};
    if (keySource === 'env') server.env_vars = [...ENV_NAMES];
    const lines = [
      `[mcp_servers.${SERVER_NAME}]`,
      `command = ${tomlString(command)}`,
      `args = [${args.map(tomlString).join(', ')}]`,
    ];
    if (keySource === 'env') lines.push(`env_vars = [${ENV_NAMES.map(tomlString).join(', ')}]`);
    return {
      client,
      file: FILES.codex,
      format: 'toml',
      key_source: keySource,
      config: {mcp_servers: {[SERVER_NAME]: server}},
      text: `${lines.join('\n')}\n`,
      next_steps,
    };
  }
  const server: Record<string, unknown> =
    client === 'vscode' ? {type: 'stdio', command, args} : {command, args};
  if (keySource === 'env') {
    const ref = ENV_REFERENCE[client];
    server.env = Object.fromEntries(ENV_NAMES.map((name) => [name, ref(name)]));
  }
  const config =
    client === 'vscode' ? {servers: {[SERVER_NAME]: server}} : {mcpServers: {[SERVER_NAME]: server}};
  return {
    client,
    file: FILES[client],
    format: 'json',
    key_source: keySource,
    config,
    text: `${JSON.stringify(config, null, 2)}\n`,
    next_steps,
  };
}
