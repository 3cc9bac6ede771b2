// A relay stream ends whichever way its client goes, and holds nothing after: a `svc listen` killed while its
// stream was being opened leaves the relay free for the next run (no --take-over), and a stream asked for while
// the emulator stops ends at once instead of pinging a client that will never read it, which kept a stopped
// emulator's process alive.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {askAndVanish} from '../helpers/relay-ghost.js';

let em: RunningEmulator;
beforeAll(async () => {
  em = await startEmulator({port: 0, inMemory: true, clock: 'manual'});
});
afterAll(() => em?.stop());

const listener = (id: string) => ({id, pid: 4242, host: 'ci-runner'});

/** A run that asks for the relay's stream as `listenerId` and is gone at once; resolves once its route answered. */
async function vanishingRun(endpointId: string, listenerId: string): Promise<void> {
  const seen = em.context.requestLog.last;
  const path = `/_emulator/relay/${endpointId}/stream`;
  await askAndVanish(em.apiUrl, `${path}?listener=${listenerId}&pid=4141&host=gone`, em.adminToken);
  // The request log takes the request once its route has answered: the stream was made (or refused) by then.
  const answered = () => em.context.requestLog.read({afterSeq: seen}).some((e) => e.path === path);
  while (!answered()) await em.context.requestLog.waitForNew(em.context.requestLog.last, 10_000);
}

describe('a relay stream whose client is gone', () => {
  it('holds nothing for a listener that went away while its stream was opened: the next run takes the relay', async () => {
    const relay = await em.control.registerRelay({name: 'vanishing'});
    await vanishingRun(relay.endpoint_id, crypto.randomUUID());
    expect(em.context.engine.relay.holderHere(relay.endpoint_id)).toBeUndefined();

    const next = em.control.relayStream(relay.endpoint_id, {listener: listener(crypto.randomUUID())});
    expect((await next.next()).value).toEqual({type: 'connected', endpoint_id: relay.endpoint_id});
    expect(em.context.engine.relay.holderHere(relay.endpoint_id)?.pid).toBe(4242);
    await next.return(undefined);
  });

  it('ends a stream asked for once the emulator is stopping, and attaches nothing', async () => {
    const stopping = await startEmulator({port: 0, inMemory: true, clock: 'manual'});
    try {
      const relay = await stopping.control.registerRelay({name: 'late'});
      // What stop() does first: the streams end, and the server stops taking connections after.
      stopping.context.engine.closing();
      const messages = [];
      for await (const m of stopping.control.relayStream(relay.endpoint_id, {listener: listener('late-run')}))
        messages.push(m);
      expect(messages).toEqual([{type: 'connected', endpoint_id: relay.endpoint_id}]);
      expect(stopping.context.engine.relay.holderHere(relay.endpoint_id)).toBeUndefined();
    } finally {
      await stopping.stop();
    }
  });
});
