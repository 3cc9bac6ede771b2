// The MCP tool test_receiver, driven over stdio by the MCP SDK's own client: the verdicts of
// `svc webhooks test-receiver` as structured content, the secret from the server's environment only, and
// receivers off this machine refused unless the user started the server to allow them.
import {createServer, type IncomingMessage, type RequestListener, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {afterAll, describe, expect, it} from 'vitest';
import {RECEIVER_CHECK_IDS} from '../../src/services/webhooks/receiver-checks.js';
import {parseSignatureHeader, verifySignature} from '../../src/webhooks/index.js';
import {createNodeHandler} from '../../src/webhooks/node.js';
import {BIN} from '../helpers/run-cli.js';

const SECRET = 'whsec_bWNwLXRlc3QtcmVjZWl2ZXItc2VjcmV0LTAxMjM0NTY3ODlhYmNkZWY=';
const closers: (() => Promise<void>)[] = [];
const outputs: string[] = [];

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  for (const text of outputs) expect(text).not.toContain(SECRET);
});

async function listen(handler: RequestListener): Promise<{url: string; requests: () => number}> {
  let count = 0;
  const server: Server = createServer((req, res) => {
    count++;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, requests: () => count};
}

async function connect(env: Record<string, string>, args: string[] = []): Promise<Client> {
  // Spawned: the MCP server serves over its own stdio until its stdin closes.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: {PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...env},
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    stderr += d;
  });
  const client = new Client({name: 'svc-test', version: '1.0.0'});
  await client.connect(transport);
  closers.push(async () => {
    await client.close();
    outputs.push(stderr);
  });
  return client;
}

async function call(client: Client, args: Record<string, unknown>): Promise<CallToolResult> {
  const result = (await client.callTool({name: 'test_receiver', arguments: args})) as CallToolResult;
  outputs.push(JSON.stringify(result));
  return result;
}

/** One server for the tests that start it the same way (with the secret, no flags); connected on first use. */
let withSecret: Promise<Client> | undefined;
const serverWithSecret = () => {
  withSecret ??= connect({SVC_WEBHOOK_SECRET: SECRET});
  return withSecret;
};

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

interface Structured {
  checks: {id: string; status: string; got: string; fix: string}[];
  passed: number;
  failed: number;
}

describe('test_receiver over MCP', {timeout: 60_000}, () => {
  it('grades a good receiver and a one-sided one, with the same verdicts as the command', async () => {
    const client = await serverWithSecret();
    const good = await listen(
      createNodeHandler({secret: SECRET, onEvent: () => undefined, onError: () => undefined}),
    );
    const r = await call(client, {url: good.url});
    expect(r.isError).toBeFalsy();
    const report = r.structuredContent as unknown as Structured;
    expect(report.checks.map((c) => c.id)).toEqual(RECEIVER_CHECK_IDS);
    expect(report).toMatchObject({passed: RECEIVER_CHECK_IDS.length, failed: 0});

    const oneSided = await listen((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          const header = req.headers['svc-signature'];
          verifySignature({payload: Buffer.concat(chunks), header, secret: SECRET, toleranceSeconds: 1e9});
          const age = Math.floor(Date.now() / 1000) - parseSignatureHeader(header).timestamp;
          res.writeHead(age > 300 ? 400 : 200).end();
        } catch {
          res.writeHead(400).end();
        }
      });
    });
    const bad = await call(client, {url: oneSided.url, only: ['future-301', 'stale-301']});
    const badReport = bad.structuredContent as unknown as Structured;
    expect(badReport.checks.map((c) => [c.id, c.status])).toEqual([
      ['valid', 'pass'],
      ['stale-301', 'pass'],
      ['future-301', 'fail'],
    ]);
    expect(badReport.checks[2]?.fix).toMatch(/both directions/);
  });

  it('sends nothing off this machine unless the server was started to allow it', async () => {
    const client = await serverWithSecret();
    const r = await call(client, {url: 'https://receiver.example/webhooks'});
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/receiver\.example is not on this machine/);
    expect(text(r)).toMatch(/mcp --allow-remote-receivers/);
  });

  it('a server without SVC_WEBHOOK_SECRET says where to set it, and sends nothing', async () => {
    const client = await connect({});
    const receiver = await listen((_req, res) => res.end());
    const r = await call(client, {url: receiver.url});
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/SVC_WEBHOOK_SECRET/);
    expect(text(r)).toMatch(/MCP client's configuration/);
    expect(receiver.requests()).toBe(0);
  });

  it('an unknown check id is refused by the input schema', async () => {
    const client = await serverWithSecret();
    const r = await call(client, {url: 'http://127.0.0.1:9/webhooks', only: ['everything']}).catch(
      (err: Error) => ({isError: true, content: [{type: 'text' as const, text: err.message}]}),
    );
    expect(r.isError).toBe(true);
    expect(text(r as CallToolResult)).toMatch(/everything|Invalid/);
  });
});
