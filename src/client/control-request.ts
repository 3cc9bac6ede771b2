// How the control client reaches the emulator: one request a call, with the admin token (or a control token) as
// its bearer and no redirect followed, and the answer parsed with the schema the call names; an answer that is
// not 2xx, or does not fit, is an EmulatorControlError. The relay stream's answer is read as it comes.
import type {z} from 'zod';
import {controlErrorOf, isByteStream, ndjsonLines, parseAnswer} from './control-answers.js';
import {EmulatorControlError} from './errors.js';
import {
  discard,
  type FetchLike,
  isRedirect,
  NO_REDIRECTS,
  redirectRefusal,
  type ResponseLike,
} from './transport.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

type Schemas = typeof import('./control-schemas.js');
/** Picks the schema an answer is parsed with from the schemas, which load with the first call. */
export type SchemaOf<T> = (s: Schemas) => z.ZodType<T>;

/** An answer with no body to parse. */
export const NO_CONTENT: unique symbol = Symbol('no content');

/**
 * zod and the control surface's schemas load with the first call to the emulator, not with the client: every
 * user of `@svc/client` imports this class, and a read command (or a program that only reads the API) never
 * calls it.
 */
let loadingSchemas: Promise<Schemas> | undefined;
function controlSchemas(): Promise<Schemas> {
  loadingSchemas ??= import('./control-schemas.js');
  return loadingSchemas;
}

/** The requests of one control client: the emulator's address, the token it sends and the fetch it sends with. */
export class ControlRequest {
  readonly #base: string;
  readonly #adminToken: string;
  readonly #fetch: FetchLike;

  constructor(base: string, adminToken: string, fetchWith: FetchLike) {
    this.#base = base;
    this.#adminToken = adminToken;
    this.#fetch = fetchWith;
  }

  async call<T>(
    method: Method,
    path: string,
    pick: SchemaOf<T> | typeof NO_CONTENT,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    // The schemas load while the request is on the wire.
    const loading = pick === NO_CONTENT ? undefined : controlSchemas();
    loading?.catch(() => {});
    const res = await this.#send(method, path, body, signal);
    if (!res.ok) throw await controlErrorOf(res, controlSchemas);
    const text = await res.text();
    if (pick === NO_CONTENT || !loading) return undefined as T;
    const schema = pick(await loading);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new EmulatorControlError(
        `the emulator's answer to ${method} ${path} is not JSON`,
        res.status,
        'invalid_response',
      );
    }
    return parseAnswer(schema, value, path, res.status);
  }

  /** A GET whose answer is read as it comes (NDJSON, one message a line), each line parsed with its schema. */
  async *lines<T>(path: string, pick: SchemaOf<T>, signal?: AbortSignal): AsyncGenerator<T> {
    const res = await this.#send('GET', path, undefined, signal);
    if (!res.ok || !res.body) throw await controlErrorOf(res, controlSchemas);
    if (!isByteStream(res.body)) {
      throw new EmulatorControlError(
        'the fetch given to the control client hands over no body to read as it comes: the relay stream needs one',
        res.status,
        'invalid_response',
      );
    }
    const schema = pick(await controlSchemas());
    for await (const line of ndjsonLines(res.body)) {
      yield parseAnswer(schema, JSON.parse(line), path, res.status);
    }
  }

  async #send(method: Method, path: string, body?: unknown, signal?: AbortSignal): Promise<ResponseLike> {
    const headers: Record<string, string> = {authorization: `Bearer ${this.#adminToken}`};
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: ResponseLike;
    try {
      res = await this.#fetch(`${this.#base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        // Followed, a 307 or 308 would post the body (a snapshot's secrets, a key's name) and the token elsewhere.
        ...NO_REDIRECTS,
        signal,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new EmulatorControlError(
        `could not reach the emulator at ${this.#base} (${(err as Error).message}); is it running?`,
        0,
        'unreachable',
      );
    }
    if (isRedirect(res.status)) {
      await discard(res);
      throw new EmulatorControlError(
        `${redirectRefusal(`the emulator at ${this.#base}`, res.status)}; is ${this.#base} the emulator's own address (its emulator.json api_url)?`,
        res.status,
        'unexpected_redirect',
      );
    }
    return res;
  }
}
