// Views a newcomer read wrong, rendered as shipped: the ready message once the org has an owner, and a delivery's
// attempt count on the account page after a resend.
import {describe, expect, it} from 'vitest';
import {DeliveryPage} from '../../src/emulator/web/views/deliveries.js';
import {MAX_DELIVERY_ATTEMPTS} from '../../src/definitions.js';
import {renderReady} from '../../src/ui/emulator.js';

const ready = {
  apiUrl: 'http://127.0.0.1:4010',
  accountUrl: 'http://svc-4010.localhost:4010/account',
  storage: 'in memory',
  orgId: `org_${'0'.repeat(24)}`,
  clockMode: 'real',
  svc: 'svc',
};

describe('the ready message', () => {
  it('says the first address to sign in owns the org only while nobody does', () => {
    expect(renderReady({...ready, owned: false})).toContain('(the first address to sign in owns this org)');
    const owned = renderReady({...ready, owned: true});
    expect(owned).not.toContain('owns this org');
    expect(owned).toContain('/mailbox');
  });
});

describe("the account page's delivery", () => {
  const page = (attempts: number) =>
    String(
      DeliveryPage({
        assets: {css: '/a.css', js: '/a.js'},
        viewer: {
          email: 'a@example.com',
          orgName: 'Acme',
          orgId: ready.orgId,
          role: 'owner',
          csrf: 'x',
          svc: 'svc',
        },
        endpoint: {
          id: `we_${'0'.repeat(24)}`,
          url: 'https://hooks.example.com/svc',
          events: ['sandbox.ready'],
          description: null,
          created_at: '2026-03-01T00:00:00.000Z',
        },
        delivery: {
          id: `dlv_${'0'.repeat(24)}`,
          endpointId: `we_${'0'.repeat(24)}`,
          eventId: `evt_${'0'.repeat(24)}`,
          eventType: 'sandbox.ready',
          status: 'failed',
          attempts,
          createdAt: new Date('2026-03-01T00:00:00Z'),
          nextAttemptAt: null,
          eventBody: '{}',
          attemptList: [],
        },
      }),
    ).replace(/<[^>]+>/g, '');

  it('counts attempts against the schedule, and never more than the schedule holds', () => {
    expect(page(3)).toContain(`3 of ${MAX_DELIVERY_ATTEMPTS}`);
    const resent = page(MAX_DELIVERY_ATTEMPTS + 1);
    expect(resent).not.toContain(`${MAX_DELIVERY_ATTEMPTS + 1} of ${MAX_DELIVERY_ATTEMPTS}`);
    expect(resent).toContain(`${MAX_DELIVERY_ATTEMPTS + 1} (${MAX_DELIVERY_ATTEMPTS} scheduled, 1 resent)`);
  });
});
