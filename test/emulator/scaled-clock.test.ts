// A scaled clock (`--clock scaled:N`, startEmulator's `clock: 'scaled:N'`): the emulator's time runs N times as fast
// as real time, so the retry schedule passes N times as fast, while signatures carry the real time, as with a
// manual clock. One emulator for the file, at 60x and starting years ahead of the real time; the tests wait for
// attempts to arrive, never for a time.
import {afterAll, beforeAll, expect, it} from 'vitest';
import {CLOCK_SCALE, RETRY_WAITS_MS} from '../../src/definitions.js';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {verifySignature} from '../../src/webhooks/index.js';
import {answer, type Receiver, startReceiver} from './delivery/helpers.js';
import {runCommand} from '../helpers/run-cli.js';

const START = new Date('2041-03-01T00:00:00.000Z');
const FIRST_WAIT_MS = RETRY_WAITS_MS[0] as number;

let emu: RunningEmulator;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver(answer(500));
  emu = await startEmulator({
    inMemory: true,
    port: 0,
    clock: 'scaled:60',
    clockStart: START,
    allowLocalEndpoints: true,
  });
});
afterAll(async () => {
  await emu?.stop();
  await receiver?.close();
});

it('makes the retry due 30 s later on the clock once that much scaled time has passed', async () => {
  const control = emu.control;
  expect(await control.clock()).toMatchObject({mode: 'scaled', scale: 60});
  const hook = await control.createWebhook({url: receiver.url, events: ['sandbox.error']});
  const move = await control.trigger({type: 'sandbox.error'});
  const eventId = move.event?.id as string;
  // The second attempt comes by itself (nothing moves the clock): at 60x its 30 s wait passes in half a second.
  const requests = await receiver.until(
    (all) => all.filter((r) => r.headers['svc-event-id'] === eventId).length >= 2,
  );
  const detail = await control.waitForDelivery({event_id: eventId, attempts: 2});
  const [first, second] = detail.attempts;
  // Made when the schedule said, on the emulator's time: 30 s of it after the first, and in the emulator's years.
  expect(
    Date.parse(second?.started_at as string) - Date.parse(first?.started_at as string),
  ).toBeGreaterThanOrEqual(FIRST_WAIT_MS);
  expect(Date.parse(first?.started_at as string)).toBeGreaterThanOrEqual(START.getTime());
  // Signed with the real time: a receiver checking t against its own (real) clock accepts both attempts.
  const secret = hook.secret;
  for (const r of requests.filter((q) => q.headers['svc-event-id'] === eventId)) {
    const header = r.headers['svc-signature'] as string;
    expect(() => verifySignature({payload: r.body, header, secret})).not.toThrow();
  }
});

it('moves an org of its own on a scaled clock, and refuses to move the emulator clock', async () => {
  const control = emu.control;
  const org = await control.createOrg({name: 'ahead'});
  const moved = await control.advanceClock('1d', {org: org.id});
  expect(moved).toMatchObject({org_id: org.id, own: true, mode: 'scaled'});
  await expect(control.advanceClock('1d')).rejects.toMatchObject({
    status: 409,
    message: expect.stringContaining('the clock is scaled'),
  });
});

it('takes --clock scaled:N and refuses a factor outside its bounds before it starts', async () => {
  for (const bad of ['scaled:0', `scaled:${CLOCK_SCALE.max + 1}`, 'scaled:', 'fast']) {
    const run = await runCommand(['emulator', 'start', '--clock', bad, '--in-memory']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('--clock must be real, manual or scaled:N');
  }
  await expect(
    startEmulator({inMemory: true, port: 0, clock: 'scaled:-1' as 'scaled:1'}),
  ).rejects.toMatchObject({
    code: 'invalid_option',
  });
});
