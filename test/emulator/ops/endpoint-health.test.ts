// GET /_emulator/webhook-health: how each endpoint's recent deliveries are going, every endpoint of an org in one
// answer (what the TUI's health column reads), on the embedded database and on PostgreSQL.
// Backends: the health summary is one SQL aggregate over an org's deliveries, which each database groups and orders itself.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import type {EndpointHealth} from '../../../src/client/emulator-control.js';
import {type Receiver, startReceiver} from '../delivery/helpers.js';
import {EMULATOR_BACKENDS} from '../../helpers/emulator-backends.js';
import {describeEachBackend} from '../../helpers/requirements.js';

describeEachBackend(EMULATOR_BACKENDS, 'on $name', (backend) => {
  // One emulator per backend; each test reads only the org it made.
  let emu: RunningEmulator;
  let receiver: Receiver;
  let dispose: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    // /ok answers 200; /down answers 500, so its delivery stays pending with one attempt made.
    receiver = await startReceiver((q, res) => {
      res.writeHead(q.url?.endsWith('/ok') ? 200 : 500, {'content-type': 'text/plain'});
      res.end(q.url?.endsWith('/ok') ? 'ok' : 'database is down');
    });
    const opened = await backend.options();
    dispose = opened.dispose;
    emu = await startEmulator({...opened.options, port: 0, allowLocalEndpoints: true});
  });
  afterAll(async () => {
    await emu?.stop();
    await receiver?.close();
    await dispose?.();
  });

  describe('GET /_emulator/webhook-health', () => {
    it("tells each endpoint of the org its newest delivery and how many recent ones failed, and no other org's", async () => {
      const e = emu;
      const ok = await e.control.createWebhook({url: `${receiver.url}/ok`, events: ['sandbox.error']});
      const down = await e.control.createWebhook({url: `${receiver.url}/down`, events: ['sandbox.error']});
      const quiet = await e.control.createWebhook({url: `${receiver.url}/ok`, events: ['sandbox.stopped']});
      const other = await e.control.createOrg({name: 'Other org'});
      const theirs = await e.control.createWebhook({
        url: `${receiver.url}/ok`,
        events: ['sandbox.error'],
        org_id: other.id,
      });
      const first = await e.control.trigger({type: 'sandbox.error', last_error: 'disk full'});
      const second = await e.control.trigger({type: 'sandbox.error', last_error: 'disk full again'});

      const byId = async () =>
        new Map((await e.control.endpointHealth()).data.map((h) => [h.endpoint_id, h] as const));
      // Each delivery of both events, waited for by id: the one to the healthy endpoint until it succeeds, the one
      // to the failing endpoint until its first attempt is recorded.
      const made = await e.db.query<{id: string; endpoint_id: string}>(
        'SELECT id, endpoint_id FROM deliveries WHERE event_id = ANY($1)',
        [[first.event?.id, second.event?.id]],
      );
      expect(made.rows).toHaveLength(4);
      await Promise.all(
        made.rows.map((d) =>
          e.control.waitForDelivery(
            d.endpoint_id === ok.id
              ? {delivery_id: d.id, status: 'succeeded'}
              : {delivery_id: d.id, attempts: 1},
          ),
        ),
      );
      const health = await byId();
      expect([...health.keys()].sort()).toEqual([ok.id, down.id, quiet.id].sort());
      expect(health.get(ok.id)).toMatchObject({recent: 2, failed: 0, pending: expect.any(Number)});
      expect(health.get(ok.id)?.last).toMatchObject({status: 'succeeded', last_status_code: 200});
      expect(health.get(down.id)).toMatchObject({recent: 2, failed: 0, pending: 2});
      expect(health.get(down.id)?.last).toMatchObject({status: 'pending', last_status_code: 500});
      expect(health.get(quiet.id)).toEqual({
        endpoint_id: quiet.id,
        recent: 0,
        failed: 0,
        pending: 0,
        last: null,
      } satisfies EndpointHealth);

      // Another org's endpoints are its own: asked by org, only those.
      const theirHealth = (await e.control.endpointHealth(other.id)).data;
      expect(theirHealth.map((h) => h.endpoint_id)).toEqual([theirs.id]);
    });

    it('answers only with the admin token', async () => {
      const res = await fetch(`${emu.apiUrl}/_emulator/webhook-health`);
      expect(res.status).toBe(401);
    });
  });
});
