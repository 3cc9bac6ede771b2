// The worker's entries for a resend (ops/resend.ts): hold an endpoint so that a resend goes out between its
// scheduled attempts, never beside one, and make one attempt now, outside the schedule, the way a scheduled one
// is made (freshly signed, the same body and headers, at the time of the delivery's org).
import type {Vault} from '../vault.js';
import type {AttemptMaker} from './attempt-maker.js';
import {parseTarget} from './attempt-send.js';
import type {ClaimedDelivery} from './claim.js';
import type {AttemptResult} from './sender.js';
import {endpointSigner, UNREADABLE_SECRET} from './signing.js';

export interface AttemptMade {
  startedAt: Date;
  signatureT: number | null;
  result: AttemptResult;
}

/**
 * Runs `fn` once no lane serves the endpoint, and keeps any lane from starting for it until `fn` is done: attempt
 * numbers cannot collide and the endpoint still sees one request at a time. `released` is told afterwards.
 */
export async function holdEndpoint<T>(
  lanes: Map<string, Promise<void>>,
  endpointId: string,
  fn: () => Promise<T>,
  released: () => void,
): Promise<T> {
  for (let lane = lanes.get(endpointId); lane; lane = lanes.get(endpointId)) {
    await lane.catch(() => undefined);
  }
  const run = fn();
  const held = run.then(
    () => undefined,
    () => undefined,
  );
  lanes.set(endpointId, held);
  try {
    return await run;
  } finally {
    if (lanes.get(endpointId) === held) lanes.delete(endpointId);
    released();
  }
}

/**
 * One attempt of `item` now; the caller holds the endpoint and records the outcome. `cancelled` says, just before
 * the request would start, that the endpoint was deleted meanwhile: then nothing is sent.
 */
export async function attemptNow(
  maker: AttemptMaker,
  vault: Vault,
  item: ClaimedDelivery,
  cancelled: () => boolean = () => false,
): Promise<AttemptMade> {
  const startedAt = new Date(maker.orgNowMs(item));
  if (item.relay && !maker.relay?.isConnected(item.endpointId)) {
    return {
      startedAt,
      signatureT: null,
      result: {
        ok: false,
        statusCode: null,
        error: 'no relay listener attached (is `svc listen` running?)',
        durationMs: 0,
        responseBody: null,
      },
    };
  }
  const signer = endpointSigner(vault, item.secretCiphertext);
  if (!signer) return {startedAt, signatureT: null, result: UNREADABLE_SECRET};
  const t = maker.signatureT(item);
  const dispatcher = item.relay ? undefined : await maker.agent();
  // Deleted means gone: checked last, with no wait before the request starts.
  if (cancelled()) {
    return {
      startedAt,
      signatureT: null,
      result: {
        ok: false,
        statusCode: null,
        error: 'the endpoint was deleted',
        durationMs: 0,
        responseBody: null,
      },
    };
  }
  // A resend stands alone: no attempt to the receiver follows at once, so the connection is not kept.
  const result = await maker.send(item, signer, t, {
    target: parseTarget(item.url),
    dispatcher,
    keepAlive: false,
  });
  return {startedAt, signatureT: t, result};
}
