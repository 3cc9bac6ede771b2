// The stand-in every endpoint of a scenario delivers through: a loopback server that answers an attempt itself
// where an `answer` step told it to ("500 for attempts 1-3", paths the real receiver cannot take), and otherwise
// passes the attempt on to the receiver byte for byte (the same body and headers, so its signature still checks)
// and hands back the receiver's answer. A receiver that cannot be reached gets the emulator no answer either.
import {
  createServer,
  type IncomingMessage,
  request as httpRequest,
  type Server,
  type ServerResponse,
} from 'node:http';
import {request as httpsRequest} from 'node:https';
import type {AddressInfo} from 'node:net';

export interface AnswerRule {
  /** The attempts it answers (Svc-Delivery-Attempt). */
  attempts: ReadonlySet<number>;
  /** The status to answer with, or 'receiver' to pass these attempts on. */
  status: number | 'receiver';
  body?: string;
}

export interface StandIn {
  /** The address to give the emulator for an endpoint. */
  urlFor(endpoint: string): string;
  /** Where an endpoint's attempts go when no rule answers them. */
  route(endpoint: string, target: string): void;
  /** A rule for some attempts of an endpoint; a later rule wins over an earlier one for the attempts it names. */
  answer(endpoint: string, rule: AnswerRule): void;
  /** Forgets every rule of every endpoint. */
  clear(): void;
  close(): Promise<void>;
}

const ATTEMPT_HEADER = 'svc-delivery-attempt';
/** Headers of one hop only: never passed on. */
const HOP_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
]);

/** The attempts a file's `attempts:` names: 3, "1-3" or [1, 2, 4]. */
export function attemptSet(attempts: number | string | readonly number[]): Set<number> {
  if (typeof attempts === 'number') return new Set([attempts]);
  if (Array.isArray(attempts)) return new Set(attempts);
  const [first, last] = String(attempts).split('-').map(Number) as [number, number];
  const set = new Set<number>();
  for (let n = first; n <= last; n++) set.add(n);
  return set;
}

export async function startStandIn(): Promise<StandIn> {
  const targets = new Map<string, string>();
  const rules = new Map<string, AnswerRule[]>();
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/e\/([^/?]+)(.*)$/.exec(req.url ?? '');
    const endpoint = match ? decodeURIComponent(match[1] as string) : undefined;
    const target = endpoint === undefined ? undefined : targets.get(endpoint);
    const body = await readBody(req);
    if (endpoint === undefined || target === undefined) {
      res.writeHead(404).end();
      return;
    }
    const attempt = Number(req.headers[ATTEMPT_HEADER]);
    const rule = (rules.get(endpoint) ?? []).findLast((r) => r.attempts.has(attempt));
    if (rule && rule.status !== 'receiver') {
      res.writeHead(rule.status, {'content-type': 'text/plain'}).end(rule.body ?? '');
      return;
    }
    passOn(req, res, body, new URL(`${target.replace(/\/$/, '')}${match?.[2] || ''}` || '/'));
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    urlFor: (endpoint) => `${base}/e/${encodeURIComponent(endpoint)}`,
    route: (endpoint, target) => targets.set(endpoint, target),
    answer: (endpoint, rule) => rules.set(endpoint, [...(rules.get(endpoint) ?? []), rule]),
    clear: () => rules.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The attempt as it came, to the receiver; its answer back as it came. No answer from it: none to the emulator. */
function passOn(req: IncomingMessage, res: ServerResponse, body: Buffer, url: URL): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value;
  }
  headers['content-length'] = String(body.length);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const out = send(url, {method: req.method, headers}, (answer) => {
    const back: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(name)) back[name] = value;
    }
    res.writeHead(answer.statusCode ?? 502, back);
    answer.pipe(res);
    answer.on('error', () => res.destroy());
  });
  out.on('error', () => res.destroy());
  // The emulator gave up (its budget ran out): so does the stand-in.
  res.on('close', () => {
    if (!res.writableFinished) out.destroy();
  });
  out.end(body);
}
