// Backends: the order is the database's (ORDER BY created_at, then the order rows were created in), and PostgreSQL
// breaks ties and cuts a sorted list by its own plans, which PGlite's need not share.
// Every list of deliveries reads newest first: by creation time, then by the order the emulator created them. On a
// manual clock every delivery of one instant ties on created_at; the last trigger must still read back as data[0],
// and the 100-row cut must keep the 100 newest, on PGlite and PostgreSQL, on both clocks. The clock is a start
// option: one emulator per storage and clock, each for its one test.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {MAX_DELIVERIES_LISTED} from '../../../src/definitions.js';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {DeliverySchema, listOf} from '../../../src/schemas/index.js';
import {EMULATOR_BACKENDS} from '../../helpers/emulator-backends.js';
import {describeEachBackend} from '../../helpers/requirements.js';

describeEachBackend(EMULATOR_BACKENDS, 'on $name', (backend) => {
  describe.each(['manual', 'real'] as const)('on the %s clock', (clock) => {
    let e: RunningEmulator;
    let dispose: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      const opened = await backend.options();
      dispose = opened.dispose;
      // The endpoint's port refuses at once: deliveries are made and stay pending, and nothing leaves the machine.
      e = await startEmulator({...opened.options, port: 0, clock, allowLocalEndpoints: true});
    });
    afterAll(async () => {
      await e?.stop();
      await dispose?.();
    });

    it('puts five triggers made at one instant, among more than 100 deliveries, at positions 0-4 in order', async () => {
      const endpoint = await e.control.createWebhook({
        url: 'http://127.0.0.1:1/d',
        events: ['sandbox.error'],
      });
      // 110 older deliveries, every one at the very instant the triggers will be made (the worst tie there is).
      const instant = new Date(e.clock.nowMs());
      await e.db.query(
        `WITH evt AS (
           INSERT INTO events (id, org_id, type, created_at, body)
           SELECT 'evt_' || lpad(n::text, 24, '0'), $1, 'sandbox.error', $2, '{}' FROM generate_series(1, 110) n
           RETURNING id)
         INSERT INTO deliveries (id, org_id, event_id, endpoint_id, event_type, status, attempts, created_at)
         SELECT 'dlv_' || substr(id, 5), $1, id, $3, 'sandbox.error', 'succeeded', 1, $2 FROM evt ORDER BY id`,
        [e.orgId, instant, endpoint.id],
      );
      if (clock === 'manual') await e.control.setClock(instant.toISOString());
      const events: string[] = [];
      for (let i = 0; i < 5; i++) {
        const move = await e.control.trigger({type: 'sandbox.error', last_error: `failure ${i}`});
        events.push(move.event?.id as string);
      }

      const key = await e.control.createKey({name: 'reader'});
      const res = await fetch(`${e.apiUrl}/v1/webhooks/${endpoint.id}/deliveries`, {
        headers: {authorization: `Bearer ${key.secret}`},
      });
      const list = listOf(DeliverySchema).parse(await res.json());
      expect(list.data).toHaveLength(MAX_DELIVERIES_LISTED);
      expect(list.data.slice(0, 5).map((d) => d.event_id)).toEqual([...events].reverse());
      if (clock === 'manual') expect(new Set(list.data.map((d) => d.created_at)).size).toBe(1);
      // The endpoint's health reads the same newest delivery.
      const health = (await e.control.endpointHealth()).data.find((h) => h.endpoint_id === endpoint.id);
      expect(health?.last?.event_id).toBe(events[4]);
    }, 120_000);
  });
});
