// A rewind across emulator processes on one PostgreSQL: an org rewound through one process is the rewound org on
// the very next request to the other, which had read it before and kept its key and endpoint in memory: the key
// revoked since the checkpoint works again, the endpoint deleted since is listed again, the org's clock is back at
// the checkpoint's time and its delivery has the attempts and next attempt time saved. No waits: each read is the
// next request after the rewind answered.
import {randomBytes} from 'node:crypto';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {RETRY_WAITS_MS} from '../../../src/definitions.js';
import {describeNeeding, POSTGRES} from '../../helpers/requirements.js';
import {answer, type Receiver, startReceiver} from '../delivery/helpers.js';
import {apiGet, type EmulatorProcess, freshSchema, type Schema, startProcess} from './cluster.js';

const START = '2032-03-01T10:00:00.000Z';
const FIRST_WAIT_S = (RETRY_WAITS_MS[0] as number) / 1000;

describeNeeding([POSTGRES], 'a rewind across processes', () => {
  const vaultKey = randomBytes(32);
  let schema: Schema;
  let a: EmulatorProcess;
  let b: EmulatorProcess;
  let receiver: Receiver;

  beforeAll(async () => {
    schema = await freshSchema();
    receiver = await startReceiver(answer(500));
    [a, b] = await Promise.all([
      startProcess(schema.url, vaultKey, {clock: 'manual', clockStart: START}),
      startProcess(schema.url, vaultKey, {clock: 'manual', clockStart: START}),
    ]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await receiver?.close();
    await schema?.drop();
  });

  /** What process `p` answers about the org now: its key, its endpoints, its clock and its delivery. */
  async function seenBy(p: EmulatorProcess, orgId: string, secret: string, deliveryId: string) {
    const key = await apiGet(p.apiUrl, '/v1/org', secret);
    const hooks = key.status === 200 ? await apiGet(p.apiUrl, '/v1/webhooks', secret) : undefined;
    const delivery = await p.control.delivery(deliveryId);
    return {
      keyStatus: key.status,
      endpoints: ((hooks?.body as {data?: {id: string}[]} | undefined)?.data ?? []).map((h) => h.id),
      now: (await p.control.orgClock(orgId)).now,
      attempts: delivery.attempts.length,
      nextAttemptAt: delivery.delivery.next_attempt_at,
    };
  }

  it('is the rewound org on the next request to the other process, either way round', {
    timeout: 90_000,
  }, async () => {
    const org = await a.control.createOrg({name: 'rewound elsewhere'});
    const key = await a.control.createKey({name: 'k', org_id: org.id});
    const hook = await a.control.createWebhook({
      url: receiver.url,
      events: ['sandbox.error'],
      org_id: org.id,
    });
    const move = await a.control.trigger({type: 'sandbox.error', org_id: org.id});
    const first = await a.control.waitForDelivery({event_id: move.event?.id as string, attempts: 1});
    const deliveryId = first.delivery.id;

    const saved = await seenBy(b, org.id, key.secret, deliveryId);
    expect(saved).toMatchObject({keyStatus: 200, endpoints: [hook.id], now: START, attempts: 1});
    expect(await seenBy(a, org.id, key.secret, deliveryId)).toEqual(saved);
    const checkpoint = await a.control.checkpoint(org.id, 'one-attempt');
    expect(checkpoint.clock_now).toBe(START);

    // Each way round: the org moves on through one process (a second attempt, the key revoked, the endpoint and so
    // its delivery deleted) and is rewound through the other.
    for (const [moving, rewinding] of [
      [b, a],
      [a, b],
    ] as const) {
      await moving.control.advanceClock(`${FIRST_WAIT_S}s`, {org: org.id, settle: true});
      expect((await moving.control.delivery(deliveryId)).attempts).toHaveLength(2);
      await moving.control.revokeKey(key.id);
      await moving.control.deleteWebhook(hook.id);
      expect((await apiGet(moving.apiUrl, '/v1/org', key.secret)).status).toBe(401);
      expect((await apiGet(rewinding.apiUrl, '/v1/org', key.secret)).status).toBe(401);

      const rewound = await rewinding.control.rewind(org.id, 'one-attempt');
      expect(rewound.clock_restored).toBe(true);
      // The very next request to the process that did not rewind, then to the one that did.
      expect(await seenBy(moving, org.id, key.secret, deliveryId)).toEqual(saved);
      expect(await seenBy(rewinding, org.id, key.secret, deliveryId)).toEqual(saved);
    }
  });
});
