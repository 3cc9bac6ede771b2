// Under `svc emulator exec`, the fixture's org, the seed and the key exec exports are on one emulator: the one
// at SVC_API_URL, on the port exec was given.
import {expect, inject, it} from 'vitest';
import {setupSvcOrg} from '../../../dist/src/testing/vitest.js';

const svc = setupSvcOrg({events: ['sandbox.ready']});

async function orgName(url: string, secret: string): Promise<string> {
  const res = await fetch(`${url}/v1/org`, {headers: {authorization: `Bearer ${secret}`}});
  expect(res.status).toBe(200);
  return ((await res.json()) as {name: string}).name;
}

it("provides exec's emulator, on exec's port", () => {
  const url = process.env.SVC_API_URL as string;
  expect(inject('svcEmulator').url).toBe(url);
  expect(new URL(url).port).toBe(process.env.EXPECTED_PORT);
});

it("makes the fixture's org there: its key reads it at SVC_API_URL, beside the seed and exec's key", async () => {
  const {org, key} = svc();
  const url = process.env.SVC_API_URL as string;
  expect(await orgName(url, key.secret)).toBe(org.name);
  expect(await orgName(url, process.env.SEED_KEY as string)).toBe('seeded');
  await orgName(url, process.env.SVC_API_KEY as string);
});

it("delivers the fixture's events to its receiver, on its own clock", async () => {
  const {control, receiver} = svc();
  const move = await control.trigger({type: 'sandbox.ready'});
  await control.waitForDelivery({event_id: move.event?.id as string, status: 'succeeded'});
  await control.advanceClock('1m', {settle: true});
  expect(receiver.deliveries.map((d) => d.eventId)).toEqual([move.event?.id]);
  expect((await control.clock()).own).toBe(true);
});
