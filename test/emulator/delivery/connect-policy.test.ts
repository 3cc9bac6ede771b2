// The SSRF guard at delivery time: resolved addresses filtered at connect, IP literals judged before connecting.
import {describe, expect, it} from 'vitest';
import {publicOnlyLookup} from '../../../src/emulator/net/address-policy.js';
import {createDeliveryAgent} from '../../../src/emulator/delivery/delivery-agent.js';
import {sendAttempt} from '../../../src/emulator/delivery/sender.js';
import {startReceiver} from './helpers.js';

function lookupWith(addresses: {address: string; family: number}[], all: boolean) {
  const lookup = publicOnlyLookup(async () => addresses);
  return new Promise<{err: Error | null; result: unknown}>((resolve) =>
    lookup('hooks.example', {all}, (err, result) => resolve({err, result})),
  );
}

describe('publicOnlyLookup', () => {
  it('keeps only public addresses of a name', async () => {
    const mixed = [
      {address: '127.0.0.1', family: 4},
      {address: '93.184.216.34', family: 4},
      {address: '::ffff:10.0.0.1', family: 6},
      {address: 'fd00::1', family: 6},
      {address: '2606:2800:220:1:248:1893:25c8:1946', family: 6},
    ];
    expect((await lookupWith(mixed, true)).result).toEqual([mixed[1], mixed[4]]);
    expect((await lookupWith(mixed, false)).result).toBe('93.184.216.34');
  });

  it('refuses a name with no public address at all', async () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '169.254.169.254',
      '100.64.0.1',
      '::1',
      'fe80::1',
      '::ffff:127.0.0.1',
    ]) {
      const {err} = await lookupWith([{address, family: address.includes(':') ? 6 : 4}], true);
      expect(err?.message, address).toMatch(/public address/);
    }
  });
});

describe('sendAttempt without local endpoints', () => {
  it('refuses IP-literal private hosts and plain http before connecting', async () => {
    const receiver = await startReceiver();
    const dispatcher = createDeliveryAgent({allowLocalEndpoints: false, resolver: async () => []});
    try {
      const options = {dispatcher, timeoutMs: 2_000, maxResponseBytes: 1024, allowLocalEndpoints: false};
      const literal = await sendAttempt(`https://127.0.0.1:${receiver.port}/`, {}, '{}', options);
      expect(literal).toMatchObject({ok: false, statusCode: null});
      expect(literal.error).toMatch(/public address/);
      const mapped = await sendAttempt(`https://[::ffff:7f00:1]:${receiver.port}/`, {}, '{}', options);
      expect(mapped.error).toMatch(/public address/);
      const http = await sendAttempt(`http://93.184.216.34:${receiver.port}/`, {}, '{}', options);
      expect(http.error).toMatch(/https/);
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await dispatcher.close();
      await receiver.close();
    }
  });
});
