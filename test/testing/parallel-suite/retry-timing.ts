// The body of each file of the suite: its own org fails every delivery, and the file walks the first retry on its
// own clock, then the rest of the schedule in one move, while the other files walk theirs at the same time: the
// walk the suite timeouts (TEST_TIMEOUTS, in vitest.config.ts) must hold with 4 workers on a busy machine.
import {expect, it} from 'vitest';
import {MAX_DELIVERY_ATTEMPTS, RETRY_WAITS_MS} from '../../../dist/src/definitions.js';
import {setupSvcOrg} from '../../../dist/src/testing/vitest.js';

const FIRST_WAIT_S = (RETRY_WAITS_MS[0] as number) / 1000;

export function retryTimingFile(n: number): void {
  const svc = setupSvcOrg({name: `file ${n}`, events: ['sandbox.error'], respond: 500});

  it(`file ${n}: the first retry comes ${FIRST_WAIT_S} s after the first attempt, on this file's clock`, async () => {
    const {control, receiver} = svc();
    const move = await control.trigger({type: 'sandbox.error', last_error: `file ${n}`});
    const eventId = move.event?.id as string;
    const first = await control.waitForDelivery({event_id: eventId});
    expect(first.attempts).toHaveLength(1);

    // A second short: not due yet, whatever the other files do with their clocks meanwhile.
    await control.advanceClock(`${FIRST_WAIT_S - 1}s`, {settle: true});
    expect((await control.delivery(first.delivery.id)).attempts).toHaveLength(1);

    await control.advanceClock('1s', {settle: true});
    const second = await control.waitForDelivery({
      delivery_id: first.delivery.id,
      attempts: 2,
      timeout: 10_000,
    });
    const [a1, a2] = second.attempts;
    expect(Date.parse(a2?.started_at as string) - Date.parse(a1?.started_at as string)).toBe(
      FIRST_WAIT_S * 1000,
    );

    // Only this file's event reached this file's receiver, verified with its endpoint's secret.
    expect(receiver.rejected).toBe(0);
    expect(receiver.deliveries.map((d) => d.eventId)).toEqual([eventId, eventId]);

    // The rest of the schedule in one move: every attempt falling due in the day is made, and the delivery fails.
    await control.advanceClock('1d', {settle: true});
    const failed = await control.waitForDelivery({delivery_id: first.delivery.id, status: 'failed'});
    expect(failed.attempts).toHaveLength(MAX_DELIVERY_ATTEMPTS);
    expect(receiver.deliveries).toHaveLength(MAX_DELIVERY_ATTEMPTS);
  });
}
