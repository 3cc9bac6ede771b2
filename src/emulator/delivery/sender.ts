// One HTTP attempt of the emulator: its address policy first (https only and no IP-literal private host, unless
// local endpoints are allowed), then the one post of src/deliver.ts through the worker's dispatcher. Whatever
// happens becomes an AttemptResult; nothing here throws.
import type {Dispatcher} from 'undici';
import {describeNetworkError, noAnswer, type PostResult, postDelivery} from '../../deliver.js';
import {checkLiteralHost} from '../net/address-policy.js';

export type AttemptResult = PostResult;

export interface SendOptions {
  dispatcher: Dispatcher;
  timeoutMs: number;
  maxResponseBytes: number;
  /** When false, IP-literal hosts must be public (resolved hosts are checked by the dispatcher). */
  allowLocalEndpoints: boolean;
  /** Aborts the attempt without a verdict (the worker is shutting down); the result then has `aborted`. */
  signal?: AbortSignal;
  /** False: the connection closes after the answer (see PostOptions.keepAlive). */
  keepAlive?: boolean;
}

/** `url` may come parsed (a lane parses its endpoint's URL once). */
export function sendAttempt(
  url: string | URL,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<AttemptResult> {
  let target: URL;
  try {
    target = typeof url === 'string' ? new URL(url) : url;
    if (!options.allowLocalEndpoints) {
      if (target.protocol !== 'https:') throw new Error('only https:// endpoints are delivered to');
      checkLiteralHost(target.hostname);
    }
  } catch (err) {
    return Promise.resolve(noAnswer(describeNetworkError(err), 0));
  }
  return postDelivery(target, headers, body, options);
}
