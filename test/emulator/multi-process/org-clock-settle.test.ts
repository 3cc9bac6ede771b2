// An org's own clock across two emulator processes on one PostgreSQL: a move made through one process is the time
// the other keeps for that org (its attempts are made at it), and a move with `settle` answers only once the
// attempts it made due have been made and recorded, even when the other process makes them.
import {randomBytes} from 'node:crypto';
import {createServer} from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {RETRY_WAITS_MS} from '../../../src/definitions.js';
import {describeNeeding, POSTGRES} from '../../helpers/requirements.js';
import {type EmulatorProcess, freshSchema, type Schema, startProcess} from './cluster.js';

const START = '2031-06-01T08:00:00.000Z';
const FIRST_WAIT_S = (RETRY_WAITS_MS[0] as number) / 1000;
/** The receiver takes this long over an answer: long next to a control call, so settle has a wait to keep. */
const SLOW_ANSWER_MS = 500;

describeNeeding([POSTGRES], 'org clocks across processes', () => {
  const vaultKey = randomBytes(32);
  let schema: Schema;
  const processes: EmulatorProcess[] = [];
  let moving: EmulatorProcess;
  let sending: EmulatorProcess;
  const arrivals: {attempt: string}[] = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push({attempt: String(req.headers['svc-delivery-attempt'])});
      setTimeout(() => {
        res.statusCode = 500;
        res.end('not yet');
      }, SLOW_ANSWER_MS);
    });
  });

  beforeAll(async () => {
    schema = await freshSchema();
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    // The process moved sends nothing itself (no lane), so every attempt is the other process's.
    [moving, sending] = await Promise.all([
      startProcess(schema.url, vaultKey, {
        clock: 'manual',
        clockStart: START,
        delivery: {worker: {maxLanes: 0}},
      }),
      startProcess(schema.url, vaultKey, {clock: 'manual', clockStart: START}),
    ]);
    processes.push(moving, sending);
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    await schema?.drop();
  });

  it('is followed by the other process, and settle waits for the attempts the other process makes', {
    timeout: 90_000,
  }, async () => {
    const org = await moving.control.createOrg({name: 'moved elsewhere'});
    const port = (receiver.address() as AddressInfo).port;
    await moving.control.createWebhook({
      url: `http://127.0.0.1:${port}/hook`,
      events: ['sandbox.error'],
      org_id: org.id,
    });
    const event = await moving.control.trigger({type: 'sandbox.error', org_id: org.id});
    const first = await moving.control.waitForDelivery({event_id: event.event?.id as string});
    expect(first.attempts).toHaveLength(1);

    const moved = await moving.control.advanceClock(`${FIRST_WAIT_S}s`, {org: org.id, settle: true});
    // Answered once the other process's attempt, due at the org's new time, was made and recorded.
    const after = await moving.control.delivery(first.delivery.id);
    expect(after.attempts).toHaveLength(2);
    expect(arrivals.map((a) => a.attempt)).toEqual(['1', '2']);
    // The other process keeps the org's time, and made its attempt at it.
    const there = await sending.control.orgClock(org.id);
    expect(there).toMatchObject({org_id: org.id, own: true, now: moved.now});
    expect(after.attempts[1]?.started_at).toBe(moved.now);
    // Neither process's own clock moved.
    expect((await sending.control.clock()).now).toBe(START);
    expect((await moving.control.clock()).now).toBe(START);
  });
});
