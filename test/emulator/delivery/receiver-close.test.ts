// A receiver that stops right after its event: the emulator leaves it no idle keep-alive connection, so the
// receiver's `server.close()` has nothing to wait for.
import {createServer} from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterEach, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

function openConnections(server: ReturnType<typeof createServer>): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((err, count) => (err ? reject(err) : resolve(count))),
  );
}

it('closes its connection to a receiver once the attempt is answered, so the receiver stops at once', async () => {
  emu = await startEmulator({inMemory: true, port: 0, allowLocalEndpoints: true});
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  await emu.control.createWebhook({url, events: ['sandbox.ready']});
  const event = await emu.control.trigger({type: 'sandbox.ready'});
  const detail = await emu.control.waitForDelivery({
    event_id: event.event?.id as string,
    status: 'succeeded',
  });
  expect(detail.attempts).toHaveLength(1);

  // Nothing of the emulator's is left open on the receiver: close() has no connection to wait for.
  expect(await openConnections(server)).toBe(0);
  await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));

  // A resend is one attempt on its own as well.
  const again = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => again.listen(0, '127.0.0.1', resolve));
  const other = `http://127.0.0.1:${(again.address() as AddressInfo).port}/hook`;
  const wh = await emu.control.createWebhook({url: other, events: ['sandbox.error']});
  const failed = await emu.control.trigger({type: 'sandbox.error'});
  const first = await emu.control.waitForDelivery({event_id: failed.event?.id as string});
  expect(first.endpoint_id).toBe(wh.id);
  const resent = await emu.control.resendDelivery(first.delivery.id);
  expect(resent.attempts).toHaveLength(2);
  expect(await openConnections(again)).toBe(0);
  await new Promise<void>((resolve, reject) => again.close((err) => (err ? reject(err) : resolve())));
});
