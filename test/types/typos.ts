// Typos a test author makes, each of which must fail to compile (an unused @ts-expect-error fails too), beside the
// same lines spelt right. Checked by types.test.ts with tsc under module nodenext and under bundler.
import {
  type CreatedKey,
  type CreatedWebhook,
  type Delivery,
  type DeliveryDetail,
  type EmulatorControl,
  type Org,
  type SvcEvent,
  createClient,
} from '@svc/client';
import type {RunningEmulator, SandboxMove} from '@svc/cli/emulator';
import type {OrgFixture} from '@svc/cli/testing';

export async function cases(
  control: EmulatorControl,
  key: CreatedKey,
  wh: CreatedWebhook,
  delivery: Delivery,
  detail: DeliveryDetail,
  event: SvcEvent,
  org: Org,
  move: SandboxMove,
  fixture: OrgFixture,
  emulator: RunningEmulator,
): Promise<unknown[]> {
  const seen: unknown[] = [key.secret, wh.secret, delivery.attempts, event.data.sandbox.id, org.name];
  // @ts-expect-error a field no key has
  seen.push(key.secrett);
  // @ts-expect-error deliveries count `attempts`
  seen.push(delivery.attempt_count);
  // @ts-expect-error the endpoint's secret is `secret`
  seen.push(wh.signing_secret);
  // @ts-expect-error the event's data holds `sandbox`
  seen.push(event.data.sandboxx);
  // @ts-expect-error an org has a `name`
  seen.push(org.nmae);
  // @ts-expect-error a detail's attempts are `attempts`
  seen.push(detail.attempt_list);
  // @ts-expect-error a move's event is `event`
  seen.push(move.evnt);

  await control.createWebhook({url: 'https://example.test/hook', events: ['sandbox.ready']});
  // @ts-expect-error not an event type
  await control.createWebhook({url: 'https://example.test/hook', events: ['sandbox.redy']});
  await control.trigger({type: 'sandbox.error'});
  // @ts-expect-error not an event type
  await control.trigger({type: 'sandbox.eror'});
  await control.sandboxAction('sbx_0', 'stop');
  // @ts-expect-error not a sandbox action
  await control.sandboxAction('sbx_0', 'stpo');
  await control.advanceClock('30s', {org: org.id, settle: true});
  await control.advanceClock('1h30m');
  // @ts-expect-error not a duration
  await control.advanceClock('30 seconds');
  // @ts-expect-error settle is a boolean
  await control.advanceClock('30s', {setle: true});
  await control.waitForDelivery({event_id: 'evt_0', status: 'succeeded', attempts: 2, timeout: 5_000});
  // @ts-expect-error not a delivery status
  await control.waitForDelivery({event_id: 'evt_0', status: 'done'});
  // @ts-expect-error one of event_id or delivery_id, not both
  await control.waitForDelivery({event_id: 'evt_0', delivery_id: 'dlv_0'});
  // @ts-expect-error a key expires in 30, 90 or 365 days, or never
  await control.createKey({name: 'ci', expires: '60'});

  const {control: orgControl, receiver, endpoint} = fixture;
  await orgControl.advanceClock('30s', {settle: true});
  // @ts-expect-error the fixture's control acts on its own org
  await orgControl.advanceClock('30s', {org: org.id});
  seen.push(receiver.deliveries[0]?.eventId, endpoint.url);
  // @ts-expect-error the fixture holds `endpoint`
  seen.push(fixture.endpont);

  await using _running = emulator;
  await using _fixture = fixture;
  const client = createClient({apiKey: key.secret, apiUrl: 'https://api.svc.invalid'});
  seen.push(client);
  return seen;
}
