// Relay endpoints of `svc listen` are the emulator's own: they never take one of an org's 10 webhook endpoint
// places, so a suite testing that limit sees what the service does, and they have a limit of their own.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type EmulatorControlError, type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {MAX_ENDPOINTS_PER_ORG, MAX_RELAYS_PER_ORG} from '../../src/definitions.js';

// One emulator for the file; the limits are per org, so each test counts in an org of its own.
let em: RunningEmulator;
beforeAll(async () => {
  em = await startEmulator({
    port: 0,
    inMemory: true,
    lookup: async () => [{address: '93.184.215.14', family: 4}],
  });
});
afterAll(() => em?.stop());

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => err as EmulatorControlError,
  );

describe('relay endpoints and the endpoint limit', () => {
  it(`lets an org running svc listen still add ${MAX_ENDPOINTS_PER_ORG} webhook endpoints`, async () => {
    const {id: org_id} = await em.control.createOrg({name: 'endpoints'});
    await em.control.registerRelay({org_id});
    for (let i = 0; i < MAX_ENDPOINTS_PER_ORG; i++) {
      await em.control.createWebhook({
        url: `https://hooks.example.com/${i}`,
        events: ['sandbox.ready'],
        org_id,
      });
    }
    const err = await refusal(
      em.control.createWebhook({
        url: 'https://hooks.example.com/one-too-many',
        events: ['sandbox.ready'],
        org_id,
      }),
    );
    expect(err?.status).toBe(409);
    expect(err?.message).toContain('relay endpoints of `svc listen` not counted');
    // A relay registers with a full org, and an existing one is found again.
    expect((await em.control.registerRelay({name: 'second', org_id})).name).toBe('second');
    expect((await em.control.registerRelay({org_id})).name).toBe('default');
  });

  it(`refuses more than ${MAX_RELAYS_PER_ORG} relay endpoints, saying why`, async () => {
    const {id: org_id} = await em.control.createOrg({name: 'relays'});
    for (let i = 0; i < MAX_RELAYS_PER_ORG; i++) await em.control.registerRelay({name: `relay-${i}`, org_id});
    const err = await refusal(em.control.registerRelay({name: 'relay-over', org_id}));
    expect(err?.status).toBe(409);
    expect(err?.message).toMatch(/already has 10 relay endpoints; register under one of their names again/);
    // Names already registered still work.
    expect((await em.control.registerRelay({name: 'relay-2', org_id})).name).toBe('relay-2');
  });
});
