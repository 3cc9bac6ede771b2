// One round of the race check (race.ts), on the wire: a fresh event signed as N attempts of one delivery, sent
// over N connections opened first, each request written but for its last byte and the last bytes then written in
// one loop; then one repeat once every attempt is answered.
import {request as httpRequest} from 'node:http';
import type {Socket} from 'node:net';
import {performance} from 'node:perf_hooks';
import {setTimeout as sleep} from 'node:timers/promises';
import {describeNetworkError, noAnswer, type PostResult, redirectError} from '../../deliver.js';
import {DELIVERY_TIMEOUT_MS, isSuccessStatus, RESPONSE_BODY_LIMIT_BYTES} from '../../definitions.js';
import {newId} from '../../ids.js';
import {sampleEvent} from '../../schemas/sample-event.js';
import {deliveryHeaders, type PostedAnswer, postDelivery, postedAnswer} from './post-delivery.js';

/** How one round went: its event, each racing attempt's answer, the repeat's, and what the probe read. */
export interface Round {
  eventId: string;
  answers: PostedAnswer[];
  repeat: PostedAnswer;
  spreadMs: number;
  applied: number | undefined;
}

/** The least pause between the first bytes of a round's requests and their last ones. */
const RELEASE_PAUSE_MS = 10;

/**
 * One round: every connection opened first, every attempt written but for its last byte, then the last bytes
 * written in one loop (the last-byte synchronisation of race testing), so that the receiver reads every request
 * complete in the same instant; then one repeat once they are answered.
 */
export async function raceRound(ctx: {url: URL; secret: string}, attempts: number): Promise<Round> {
  const event = sampleEvent('sandbox.ready');
  const body = Buffer.from(JSON.stringify(event));
  const deliveryId = newId('delivery');
  const signed = (attempt: number) =>
    deliveryHeaders({
      secret: ctx.secret,
      body,
      timestamp: Math.floor(Date.now() / 1000),
      eventId: event.id,
      eventType: event.type,
      deliveryId,
      attempt,
    });
  const opened = await Promise.allSettled(Array.from({length: attempts}, () => openConnection(ctx.url)));
  const connected = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  try {
    const failure = opened.find((o) => o.status === 'rejected');
    if (failure) {
      const none = postedAnswer(noAnswer(describeNetworkError(failure.reason), 0));
      return {
        eventId: event.id,
        answers: opened.map(() => none),
        repeat: none,
        spreadMs: 0,
        applied: undefined,
      };
    }
    const held = connected.map((c, i) => holdLastByte(ctx.url, c.socket, signed(i + 1), body));
    await Promise.all(held.map((h) => h.ready));
    // A moment for the receiver to accept every connection and read the first bytes (a round trip more for a
    // distant one), so that the last bytes find each request waiting for them.
    await sleep(RELEASE_PAUSE_MS + 2 * Math.max(...connected.map((c) => c.connectMs)));
    const released: number[] = [];
    for (const h of held) released.push(h.release());
    const answers = await Promise.all(held.map((h) => h.answer));
    const repeat = await postDelivery(ctx.url, {headers: signed(attempts + 1), body});
    const spreadMs = Math.max(...released) - Math.min(...released);
    return {eventId: event.id, answers, repeat, spreadMs, applied: undefined};
  } finally {
    for (const c of connected) c.socket.destroy();
  }
}

interface HeldAttempt {
  /** Resolves once everything but the last byte is handed to the connection. */
  ready: Promise<void>;
  /** Writes the last byte; returns when. */
  release(): number;
  answer: Promise<PostedAnswer>;
}

/**
 * One attempt over an open connection with its last byte held back. Not the one poster of src/deliver.ts, which
 * writes a request whole: the same headers (deliveryHeaders), the same verdict (a 2xx within the budget, no
 * redirect followed, the answer read up to the body cap).
 */
function holdLastByte(url: URL, socket: Socket, headers: Record<string, string>, body: Buffer): HeldAttempt {
  let releasedAt = 0;
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const req = httpRequest({
    host: url.hostname,
    port: url.port,
    method: 'POST',
    path: url.pathname + url.search,
    headers: {...headers, host: url.host, 'content-length': String(body.length), connection: 'close'},
    setHost: false,
    createConnection: () => socket,
  });
  const answer = new Promise<PostedAnswer>((resolve) => {
    const elapsed = () => Math.max(0, Math.round(performance.now() - releasedAt));
    let timer: NodeJS.Timeout | undefined;
    const settle = (r: PostResult) => {
      clearTimeout(timer);
      ready();
      resolve(postedAnswer(r));
    };
    req.on('error', (err) => settle(noAnswer(describeNetworkError(err), elapsed())));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        const take = Math.min(chunk.length, RESPONSE_BODY_LIMIT_BYTES - size);
        if (take > 0) chunks.push(chunk.subarray(0, take));
        size += take;
      });
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        settle({
          ok: isSuccessStatus(status),
          statusCode: status,
          error: redirectError(status, res.headers.location),
          durationMs: elapsed(),
          responseBody: Buffer.concat(chunks).toString('utf8'),
        });
      });
      res.on('error', (err) => settle(noAnswer(describeNetworkError(err), elapsed())));
    });
    req.on('finish', () => {
      timer = setTimeout(() => {
        settle(noAnswer(`timed out after ${DELIVERY_TIMEOUT_MS} ms`, elapsed(), {timedOut: true}));
        req.destroy();
      }, DELIVERY_TIMEOUT_MS);
    });
  });
  req.write(body.subarray(0, -1), () => ready());
  return {
    ready: isReady,
    release() {
      releasedAt = performance.now();
      req.end(body.subarray(-1));
      return releasedAt;
    },
    answer,
  };
}

interface Opened {
  socket: Socket;
  /** How long the connection took to open: about one round trip. */
  connectMs: number;
}

/** A connection opened (and for https, its handshake done) before any request is written on it. */
async function openConnection(url: URL): Promise<Opened> {
  const {buildConnector} = await import('undici');
  const connect = buildConnector({timeout: DELIVERY_TIMEOUT_MS});
  const https = url.protocol === 'https:';
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const started = performance.now();
  return new Promise<Opened>((resolve, reject) => {
    connect(
      {hostname, host: url.host, protocol: url.protocol, port: url.port || (https ? '443' : '80')},
      (err, s) =>
        err ? reject(err) : resolve({socket: s as Socket, connectMs: performance.now() - started}),
    );
  });
}
