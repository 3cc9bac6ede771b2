// How one delivery reads on the command line: attempts with their answers, next attempt, the event body.
import {describe, expect, it} from 'vitest';
import {painter} from '../../src/lib/output.js';
import {
  attemptOutcome,
  bodyLines,
  nextAttemptText,
  renderDeliveryDetail,
} from '../../src/ui/delivery-detail.js';

const NOW = Date.parse('2031-05-01T12:00:00Z');

describe('the pieces', () => {
  it('says "due now" for a next attempt whose time has come, and a relative time otherwise', () => {
    expect(nextAttemptText('2031-05-01T11:59:00Z', NOW)).toBe('due now');
    expect(nextAttemptText('2031-05-01T12:02:00Z', NOW)).toBe('in 2 minutes');
    expect(nextAttemptText(null, NOW)).toBe('-');
  });

  it('names the status code, or the network error when nothing answered', () => {
    expect(attemptOutcome({status_code: 503, error: null})).toBe('503');
    expect(attemptOutcome({status_code: 302, error: 'redirect (302) not followed'})).toBe(
      '302 redirect (302) not followed',
    );
    expect(attemptOutcome({status_code: null, error: 'ECONNREFUSED: connect refused'})).toBe(
      'ECONNREFUSED: connect refused',
    );
  });

  it('shows an answer as lines with control characters made harmless, cut to a number of lines', () => {
    expect(bodyLines('a\r\nb\u001B[2Jc\n\n')).toEqual(['a', 'b\\u001b[2Jc']);
    expect(bodyLines('1\n2\n3\n4', 2)).toEqual(['1', '2', '… 2 more line(s)']);
    expect(bodyLines(null)).toEqual([]);
  });
});

describe('renderDeliveryDetail', () => {
  const delivery = {
    id: 'dlv_0123456789abcdefghijklmn',
    event_id: 'evt_0123456789abcdefghijklmn',
    event_type: 'sandbox.error',
    status: 'pending' as const,
    attempts: 2,
    created_at: '2031-05-01T11:58:00.000Z',
    last_attempt_at: '2031-05-01T11:59:00.000Z',
    next_attempt_at: '2031-05-01T12:01:00.000Z',
    last_status_code: 500,
  };
  const view = {paint: painter(false), nowMs: NOW};

  it('lists each attempt with trigger, outcome, duration, signature time and answer, then the event', () => {
    const text = renderDeliveryDetail(
      {
        delivery,
        endpoint_id: 'we_0123456789abcdefghijklmn',
        event: {id: delivery.event_id, data: {sandbox: {last_error: 'disk full'}}},
        attempts: [
          {
            attempt: 1,
            started_at: '2031-05-01T11:58:00.000Z',
            signature_t: 1935395880,
            trigger: 'scheduled',
            status_code: 500,
            error: null,
            duration_ms: 12,
            response_body: 'database down',
          },
          {
            attempt: 2,
            started_at: '2031-05-01T11:59:00.000Z',
            signature_t: 1935395940,
            trigger: 'manual',
            status_code: null,
            error: 'timed out after 10000 ms',
            duration_ms: 10000,
            response_body: null,
          },
        ],
      },
      view,
      'http://127.0.0.1:4010',
    );
    expect(text).toContain('pending · 2 attempts · last answer 500 · next in 1 minute');
    expect(text).toMatch(/#1\s+2031-05-01 11:58:00Z\s+scheduled\s+500\s+12 ms\s+t=1935395880/);
    expect(text).toContain('│ database down');
    expect(text).toMatch(/#2\s+.*manual\s+timed out after 10000 ms\s+10000 ms/);
    expect(text).toContain('"last_error": "disk full"');
    expect(text).not.toContain('\u001B[');
  });

  it('without attempt detail (the service), says where it comes from', () => {
    const text = renderDeliveryDetail(
      {delivery, endpoint_id: 'we_0123456789abcdefghijklmn', event: null, attempts: null},
      view,
      'https://api.svc.dev',
    );
    expect(text).toContain('Attempt detail and the event body come from the emulator');
    expect(text).toContain('https://api.svc.dev lists deliveries only');
    expect(text).not.toContain('Event body');
  });

  it('without attempt detail at a loopback address, says no running emulator serves it', () => {
    const text = renderDeliveryDetail(
      {delivery, endpoint_id: 'we_0123456789abcdefghijklmn', event: null, attempts: null},
      view,
      'http://127.0.0.1:4020',
    );
    expect(text).toContain('no running emulator serves http://127.0.0.1:4020');
    expect(text).not.toContain('lists deliveries only');
  });
});
