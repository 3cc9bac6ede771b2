// The MCP tool diagnose, driven over stdio by the MCP SDK's own client: `svc webhooks diagnose --json`'s report as
// structured content, from a real emulator in this process (manual clock) delivering to receivers on loopback.
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {BIN, runCommand} from '../helpers/run-cli.js';

let emu: RunningEmulator;
let receiver: Server;
let client: Client;
let env: Record<string, string>;
let stderr = '';
/** Refuses every delivery as too large, as a receiver with a body limit under the events' size does. */
let tooLarge: string;
let healthy: string;
const outputs: string[] = [];

beforeAll(async () => {
  emu = await startEmulator({port: 0, inMemory: true, clock: 'manual', allowLocalEndpoints: true});
  receiver = createServer((req, res) => {
    req.resume();
    if (req.url === '/too-large') res.writeHead(413, {'content-type': 'text/plain'}).end('Payload Too Large');
    else res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  tooLarge = (await emu.control.createWebhook({url: `${base}/too-large`, events: ['sandbox.ready']})).id;
  healthy = (await emu.control.createWebhook({url: `${base}/ok`, events: ['sandbox.ready']})).id;
  const key = await emu.control.createKey({name: 'agent'});
  env = {SVC_API_KEY: key.secret, SVC_API_URL: emu.apiUrl, SVC_EMULATOR_DATA_DIR: emu.dataDir};
  // The first attempts, then a retry of the refused one: the clock moved past each wait, each attempt recorded.
  await emu.control.trigger({type: 'sandbox.ready'});
  await emu.control.advanceClock('1s', {settle: true});
  await emu.control.advanceClock('30s', {settle: true});

  // Spawned: the MCP server serves over its own stdio until its stdin closes.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    env: {PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...env},
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d) => {
    stderr += d;
  });
  client = new Client({name: 'svc-test', version: '1.0.0'});
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await emu?.stop();
  for (const text of [...outputs, stderr]) expect(text).not.toContain(env.SVC_API_KEY);
});

async function diagnose(args: Record<string, unknown>): Promise<CallToolResult> {
  const result = (await client.callTool({name: 'diagnose', arguments: args})) as CallToolResult;
  outputs.push(JSON.stringify(result));
  return result;
}

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

interface Report {
  endpoints: {
    endpoint_id: string;
    evidence: string;
    issues: {cause: string; check: string; attempts: number}[];
  }[];
  issues: number;
  untrusted_fields?: string[];
}

describe('diagnose over MCP', {timeout: 60_000}, () => {
  it('is a read-only tool whose only input is an optional endpoint id', async () => {
    const {tools} = await client.listTools();
    const tool = tools.find((t) => t.name === 'diagnose');
    expect(tool?.annotations?.readOnlyHint).toBe(true);
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(['endpoint_id']);
    expect(tool?.inputSchema.required ?? []).toEqual([]);
    expect(tool?.description).toMatch(/Untrusted fields .*endpoints\[\]\.issues\[\]\.evidence/);
  });

  it('names the body limit of a receiver that answers 413, with large-body as the check', async () => {
    const r = await diagnose({endpoint_id: tooLarge});
    expect(r.isError, text(r)).toBeFalsy();
    const report = r.structuredContent as unknown as Report;
    expect(report.issues).toBe(1);
    const [endpoint] = report.endpoints;
    expect(endpoint).toMatchObject({endpoint_id: tooLarge, evidence: 'attempts'});
    expect(endpoint?.issues).toEqual([
      expect.objectContaining({cause: 'body-limit', check: 'large-body', attempts: 2}),
    ]);
  });

  it('gives the report `svc webhooks diagnose --json` prints, for every endpoint when none is named', async () => {
    const r = await diagnose({});
    const {untrusted_fields, ...report} = r.structuredContent as unknown as Report;
    expect(untrusted_fields).toContain('endpoints[].url');
    const cli = await runCommand(['webhooks', 'diagnose', '--json'], {env});
    outputs.push(cli.stdout, cli.stderr);
    expect(cli.code).toBe(1);
    expect(report).toEqual(JSON.parse(cli.stdout));
    expect(report.endpoints.map((e) => e.endpoint_id).sort()).toEqual([tooLarge, healthy].sort());
  });

  it('finds no issues at a healthy endpoint', async () => {
    const r = await diagnose({endpoint_id: healthy});
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      endpoints: [{endpoint_id: healthy, attempts: 1, failed: 0, issues: []}],
      issues: 0,
    });
  });

  it('answers a malformed id and an unknown one with tool errors that say where ids come from', async () => {
    const bad = await diagnose({endpoint_id: 'we_nope'});
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(
      /not a webhook endpoint id \(they look like we_ followed by \d+ letters and digits\); take one from list_webhook_endpoints/,
    );
    const unknown = await diagnose({endpoint_id: `we_${'0'.repeat(24)}`});
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toBe(
      `no webhook endpoint we_${'0'.repeat(24)} in this org\nNext step: Take the id from list_webhook_endpoints`,
    );
  });
});
