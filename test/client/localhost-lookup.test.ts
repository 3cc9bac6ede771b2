// A port session called by programs, not browsers: its URL names `link-<label>.localhost`, which Node's and
// Python's resolvers do not resolve on many Linux systems. From Node, @svc/client's localhostLookup makes the URL
// work as it is (node:http and undici); from Python (stdlib only), the loopback form docs/emulator.md gives: the
// request goes to 127.0.0.1 with the link's name in Host. Both reach the app behind the link, over real HTTP.
import {lookup as dnsLookup} from 'node:dns';
import {createServer, get, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {Agent, fetch as undiciFetch} from 'undici';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {localhostLookup} from '../../src/client/index.js';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {PYTHON, PYTHON_PATH, itNeeding} from '../helpers/requirements.js';
import {runProcess} from '../helpers/run-cli.js';

let emu: RunningEmulator;
let app: Server;
let linkUrl: string;

beforeAll(async () => {
  // The app a port session forwards to: it answers with what it was asked.
  app = createServer((req, res) => {
    res.writeHead(200, {'content-type': 'application/json'});
    res.end(JSON.stringify({app: 'behind the link', path: req.url}));
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  emu = await startEmulator({port: 0, inMemory: true, log: () => undefined});
  const {sandbox} = await emu.control.createSandbox({name: 'dev'});
  const key = await emu.control.createKey({name: 'ci'});
  const link = await emu.control.createLink(sandbox.id, {
    kind: 'port',
    key_id: key.id,
    port: (app.address() as AddressInfo).port,
  });
  linkUrl = link.url;
});
afterAll(async () => {
  await emu?.stop();
  await new Promise((resolve) => app?.close(resolve));
});

describe('localhostLookup', () => {
  it('resolves every *.localhost name to 127.0.0.1, in both forms of answer, and leaves other names to Node', async () => {
    const one = await new Promise<[string, number | undefined]>((resolve, reject) =>
      localhostLookup('link-abc.LOCALHOST', {}, (err, address, family) =>
        err ? reject(err) : resolve([address as string, family]),
      ),
    );
    expect(one).toEqual(['127.0.0.1', 4]);
    const all = await new Promise((resolve, reject) =>
      localhostLookup('svc-4010.localhost', {all: true}, (err, addresses) =>
        err ? reject(err) : resolve(addresses),
      ),
    );
    expect(all).toEqual([{address: '127.0.0.1', family: 4}]);
    // Any other name is Node's own answer.
    const node = await new Promise((resolve) => dnsLookup('127.0.0.1', {}, (_e, a) => resolve(a)));
    const ours = await new Promise((resolve) => localhostLookup('127.0.0.1', {}, (_e, a) => resolve(a)));
    expect(ours).toBe(node);
  });
});

describe('a port session called from a program', () => {
  it('is named link-<label>.localhost, which is why programs need one of the two ways', () => {
    expect(new URL(linkUrl).hostname).toMatch(/^link-[0-9a-f]{32}\.localhost$/);
  });

  it('answers node:http with the lookup, at the URL as it was given', async () => {
    const answer = await new Promise<{status: number; body: string}>((resolve, reject) => {
      get(`${linkUrl}from-node?x=1`, {lookup: localhostLookup}, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({status: res.statusCode ?? 0, body}));
      }).on('error', reject);
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({app: 'behind the link', path: '/from-node?x=1'});
  });

  it('answers undici with the lookup in its Agent', async () => {
    const agent = new Agent({connect: {lookup: localhostLookup as never}});
    try {
      const res = await undiciFetch(`${linkUrl}from-undici`, {dispatcher: agent});
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({app: 'behind the link', path: '/from-undici'});
    } finally {
      await agent.close();
    }
  });

  itNeeding([PYTHON], 'answers Python (stdlib only) at 127.0.0.1 with the link name in Host', async () => {
    // The loopback form docs/emulator.md gives, in a program that resolves nothing itself.
    const script = [
      'import json, os, sys, urllib.parse, urllib.request',
      'link = urllib.parse.urlsplit(os.environ["LINK_URL"])',
      'url = f"http://127.0.0.1:{link.port}{link.path}from-python"',
      'req = urllib.request.Request(url, headers={"Host": link.netloc})',
      'with urllib.request.urlopen(req, timeout=10) as res:',
      '    print(res.status, res.read().decode())',
    ].join('\n');
    const result = await runProcess(PYTHON_PATH, ['-c', script], {
      env: {PATH: process.env.PATH, LINK_URL: linkUrl},
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [status, ...rest] = result.stdout.trim().split(' ');
    expect(status).toBe('200');
    expect(JSON.parse(rest.join(' '))).toEqual({app: 'behind the link', path: '/from-python'});
  });
});
