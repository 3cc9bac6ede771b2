// An advance runs everything that falls due in its window across emulator processes on one PostgreSQL: the move,
// made through a process that sends nothing itself, is seen by the other process's worker, which makes every
// attempt in the window at its own scheduled instant; `settle` answers only once all of them are recorded.
import {randomBytes} from 'node:crypto';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {RETRY_WAITS_MS} from '../../../src/definitions.js';
import {describeNeeding, POSTGRES} from '../../helpers/requirements.js';
import {answer, type Receiver, startReceiver} from '../delivery/helpers.js';
import {type EmulatorProcess, freshSchema, type Schema, startProcess} from './cluster.js';

const START = '2031-07-01T06:00:00.000Z';

function scheduleFrom(firstMs: number): string[] {
  const instants = [firstMs];
  for (const wait of RETRY_WAITS_MS) instants.push((instants.at(-1) as number) + wait);
  return instants.map((ms) => new Date(ms).toISOString());
}

describeNeeding([POSTGRES], 'an advance across processes', () => {
  const vaultKey = randomBytes(32);
  let schema: Schema;
  let receiver: Receiver;
  let moving: EmulatorProcess;
  let sending: EmulatorProcess;

  beforeAll(async () => {
    schema = await freshSchema();
    receiver = await startReceiver(answer(500, 'not yet'));
    // The process moved sends nothing itself (no lane), so every attempt is the other process's.
    moving = await startProcess(schema.url, vaultKey, {
      clock: 'manual',
      clockStart: START,
      signatureClock: 'emulator',
      delivery: {worker: {maxLanes: 0}},
    });
    sending = await startProcess(schema.url, vaultKey, {
      clock: 'manual',
      clockStart: START,
      signatureClock: 'emulator',
    });
  }, 90_000);

  afterAll(async () => {
    await Promise.all([moving?.stop(), sending?.stop()]);
    await receiver?.close();
    await schema?.drop();
  });

  it('walks a failing delivery through all nine attempts in one advance of 1d, made by the other process', {
    timeout: 90_000,
  }, async () => {
    await moving.control.createWebhook({url: `${receiver.url}/hook`, events: ['sandbox.error']});
    const {event} = await moving.control.trigger({type: 'sandbox.error'});
    const first = await moving.control.waitForDelivery({event_id: event?.id as string});
    expect(first.attempts).toHaveLength(1);

    await moving.control.advanceClock('1d', {settle: true});
    // Answered once the other process made and recorded every attempt that fell due in the day.
    const detail = await moving.control.delivery(first.delivery.id);
    expect(detail.delivery.status).toBe('failed');
    const instants = scheduleFrom(Date.parse(START));
    expect(detail.attempts.map((a) => a.started_at)).toEqual(instants);
    expect(detail.attempts.map((a) => a.signature_t)).toEqual(
      instants.map((at) => Math.floor(Date.parse(at) / 1000)),
    );
    expect(receiver.requests.map((q) => q.headers['svc-delivery-attempt'])).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
    ]);
    expect((await sending.control.clock()).now).toBe(new Date(Date.parse(START) + 86_400_000).toISOString());
  });

  it("does the same for an org's own clock moved through the other process", {timeout: 90_000}, async () => {
    const org = await sending.control.createOrg({name: 'walked elsewhere'});
    const r = await startReceiver(answer(500));
    try {
      await moving.control.createWebhook({url: r.url, events: ['sandbox.error'], org_id: org.id});
      const {event} = await moving.control.trigger({type: 'sandbox.error', org_id: org.id});
      const first = await moving.control.waitForDelivery({event_id: event?.id as string});
      const firstAt = Date.parse(first.attempts[0]?.started_at as string);
      await moving.control.advanceClock('1d', {org: org.id, settle: true});
      const detail = await moving.control.delivery(first.delivery.id);
      expect(detail.delivery.status).toBe('failed');
      expect(detail.attempts.map((a) => a.started_at)).toEqual(scheduleFrom(firstAt));
      expect(r.requests).toHaveLength(9);
    } finally {
      await r.close();
    }
  });
});
