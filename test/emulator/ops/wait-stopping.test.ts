// What waits on deliveries ends when the emulator stops, answered 503 with what it waited for: a wait for a
// delivery, and a clock move waiting for what it made due (settle). Each used to hold the stop until the server
// dropped its connection, 5 s later, and its client was told only that the emulator could not be reached. What
// stop() does first is engine.closing(); each test calls that alone, so the server is still there to answer.
import {afterEach, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {waitForDelivery} from '../../../src/emulator/ops/wait.js';
import {startHoldReceiver} from '../delivery/hold-receiver.js';
import {answer, startReceiver} from '../delivery/helpers.js';

const LONG_MS = 60_000;

let cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function emulator(): Promise<RunningEmulator> {
  const emu = await startEmulator({port: 0, inMemory: true, clock: 'manual', allowLocalEndpoints: true});
  cleanups.push(() => emu.stop());
  return emu;
}

it('ends the waits for deliveries held when the emulator stops, and those asked for after, with 503 naming the delivery', async () => {
  const emu = await emulator();
  const receiver = await startReceiver(answer(503));
  cleanups.push(() => receiver.close());
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

it('ends a settle waiting on an attempt in flight when the emulator stops, saying the clock did move', async () => {
  const emu = await emulator();
  const receiver = await startHoldReceiver();
  cleanups.push(() => receiver.close());
  await emu.control.createWebhook({url: receiver.url, events: ['sandbox.ready']});
  await emu.control.trigger({type: 'sandbox.ready'});
  await receiver.arrived(1);
  // The attempt is held by the receiver: what is due now is not recorded, so the settle waits.
  const settling = emu.context.engine.settle().catch((err: unknown) => err);
  emu.context.engine.closing();
  expect(await settling).toMatchObject({
    status: 503,
    code: 'vault_unavailable',
    message: 'the emulator is stopping: the clock moved, and what that made due was not waited for',
  });

  const before = Date.parse((await emu.control.clock()).now);
  const moved = await emu.control.advanceClock('1m', {settle: true}).catch((err: unknown) => err);
  expect(moved).toMatchObject({status: 503, code: 'vault_unavailable'});
  expect(Date.parse((await emu.control.clock()).now)).toBe(before + 60_000);
});
