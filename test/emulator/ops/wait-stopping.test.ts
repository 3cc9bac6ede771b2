// A wait for a delivery ends when the emulator stops, answered 503 with what it waited for: it used to hold the
// stop until the server dropped its connection (5 s later), and its client was told only that the emulator could
// not be reached. What stop() does first is engine.closing(); the test calls that alone, so the server is still
// there to answer.
import {afterAll, beforeAll, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {waitForDelivery} from '../../../src/emulator/ops/wait.js';
import {answer, type Receiver, startReceiver} from '../delivery/helpers.js';

const LONG_MS = 60_000;

let emu: RunningEmulator;
let receiver: Receiver;
beforeAll(async () => {
  emu = await startEmulator({port: 0, inMemory: true, clock: 'manual', allowLocalEndpoints: true});
  receiver = await startReceiver(answer(503));
});
afterAll(async () => {
  await receiver?.close();
  await emu?.stop();
});

it('ends the waits held when the emulator stops, and those asked for after, with 503 naming the delivery', async () => {
  await emu.control.createWebhook({url: receiver.url, events: ['sandbox.error']});
  const move = await emu.control.trigger({type: 'sandbox.error'});
  const first = await emu.control.waitForDelivery({event_id: move.event?.id as string, attempts: 1});
  const id = first.delivery.id;
  // Its retry is not due on the manual clock: these wait.
  const held = [
    waitForDelivery(emu.context, {delivery_id: id, attempts: 2, timeout_ms: LONG_MS}),
    waitForDelivery(emu.context, {
      event_id: first.delivery.event_id,
      status: 'succeeded',
      timeout_ms: LONG_MS,
    }),
  ];
  emu.context.engine.closing();
  const [byDelivery, byEvent] = await Promise.all(held.map((w) => w.catch((err: unknown) => err)));
  expect(byDelivery).toMatchObject({
    status: 503,
    code: 'vault_unavailable',
    message: `the emulator is stopping: the wait ended before delivery ${id} with 2+ attempts was recorded`,
  });
  expect(byEvent).toMatchObject({
    status: 503,
    message: `the emulator is stopping: the wait ended before a delivery of event ${first.delivery.event_id} with status succeeded was recorded`,
  });

  const asked = await emu.control
    .waitForDelivery({delivery_id: id, attempts: 2, timeout: LONG_MS})
    .catch((err: unknown) => err);
  expect(asked).toMatchObject({status: 503, code: 'vault_unavailable'});
  expect((asked as Error).message).toContain('the emulator is stopping');
});
