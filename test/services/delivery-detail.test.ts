// The one source of a delivery's detail that `svc webhooks deliveries show`, the TUI and MCP read: it finds the
// emulator serving the API address by its emulator.json, reads the detail with the admin token, and shows the
// key's org only its own deliveries. A real emulator on loopback, with a relay endpoint in each of two orgs.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {EmulatorControlError} from '../../src/client/errors.js';
import {readDeliveryDetail} from '../../src/services/webhooks/deliveries/detail.js';

let em: RunningEmulator;
let dataDir: string;
let otherOrg: string;
/** A delivery of each org, to its relay endpoint (no listener: it stays pending, its detail readable). */
const deliveryOf: Record<'home' | 'other', string> = {home: '', other: ''};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-delivery-detail-'));
  em = await startEmulator({port: 0, dataDir, clock: 'manual'});
  otherOrg = (await em.control.createOrg({name: 'Other org'})).id;
  for (const [which, org_id] of [
    ['home', em.orgId],
    ['other', otherOrg],
  ] as const) {
    await em.control.registerRelay({org_id, events: ['sandbox.ready']});
    const moved = await em.control.trigger({type: 'sandbox.ready', org_id});
    expect(moved.deliveries).toBe(1);
    const [row] = (
      await em.db.query<{id: string}>('SELECT id FROM deliveries WHERE event_id = $1', [moved.event?.id])
    ).rows;
    deliveryOf[which] = row?.id as string;
  }
});
afterAll(async () => {
  await em?.stop();
  if (dataDir) await rm(dataDir, {recursive: true, force: true});
});

const read = (orgId: string, deliveryId: string, apiUrl = em.apiUrl) =>
  readDeliveryDetail({apiUrl, orgId, deliveryId, env: {}, dataDir});

async function notFound(promise: Promise<unknown>): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EmulatorControlError);
  expect((err as EmulatorControlError).code).toBe('not_found');
}

describe('readDeliveryDetail', () => {
  it('reads a delivery of the org in use, with its event and attempts', async () => {
    const detail = await read(em.orgId, deliveryOf.home);
    expect(detail?.delivery.id).toBe(deliveryOf.home);
    expect(detail?.event.org_id).toBe(em.orgId);
    expect(detail?.attempts).toEqual([]);
  });

  it('answers another org’s delivery exactly as an unknown one', async () => {
    await notFound(read(em.orgId, deliveryOf.other));
    await notFound(read(em.orgId, 'dlv_000000000000000000000000'));
    await notFound(read(em.orgId, 'not-a-delivery'));
    // The other org reads its own.
    expect((await read(otherOrg, deliveryOf.other))?.event.org_id).toBe(otherOrg);
  });

  it('is undefined when no running emulator serves the API address', async () => {
    const elsewhere = new URL(em.apiUrl);
    elsewhere.port = String(Number(elsewhere.port) === 1 ? 2 : 1);
    expect(await read(em.orgId, deliveryOf.home, elsewhere.origin)).toBeUndefined();
    expect(
      await readDeliveryDetail({
        apiUrl: em.apiUrl,
        orgId: em.orgId,
        deliveryId: deliveryOf.home,
        env: {},
        dataDir: join(dataDir, 'nothing-here'),
      }),
    ).toBeUndefined();
  });
});
