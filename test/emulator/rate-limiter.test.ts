// The failure limit under parallel guesses, its own budget for the control surface, the clock moving the
// window, and the reset a test suite uses to start afresh.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {AuthFailureLimiter, RateLimitedError} from '../../src/emulator/auth/rate-limiter.js';
import {type ManualClock, manualClock} from '../../src/emulator/clock.js';
import {createApp, type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {limiterClient} from '../../src/emulator/net/client-address.js';

describe('reservations', () => {
  it('lets at most the budget of checks wait on a lookup at once, and refuses the rest once they fail', async () => {
    const limiter = new AuthFailureLimiter(manualClock(new Date('2030-01-01T00:00:00Z')), {
      maxFailures: 3,
      windowMs: 60_000,
    });
    const outcomes = await Promise.all(
      Array.from({length: 50}, async () => {
        try {
          const r = await limiter.reserve('10.0.0.1');
          // Every lookup takes a turn of the event loop and fails, as a wrong key does.
          await new Promise((resolve) => setImmediate(resolve));
          r.failed();
          return 'failed';
        } catch (err) {
          expect(err).toBeInstanceOf(RateLimitedError);
          return 'refused';
        }
      }),
    );
    expect(outcomes.filter((o) => o === 'failed')).toHaveLength(3);
    expect(outcomes.filter((o) => o === 'refused')).toHaveLength(47);
    expect(limiter.retryAfterSeconds('10.0.0.1')).toBe(60);
  });

  it('never refuses a burst of checks that all succeed', async () => {
    const limiter = new AuthFailureLimiter(manualClock(), {maxFailures: 2});
    const outcomes = await Promise.all(
      Array.from({length: 100}, async () => {
        const r = await limiter.reserve('10.0.0.2');
        // A lookup that takes a turn of the event loop, so the checks overlap.
        await new Promise((resolve) => setImmediate(resolve));
        r.succeeded();
        return 'ok';
      }),
    );
    expect(outcomes).toHaveLength(100);
    expect(limiter.retryAfterSeconds('10.0.0.2')).toBe(0);
  });

  it('starts a new window when the manual clock moves past the old one', async () => {
    const clock = manualClock(new Date('2030-01-01T00:00:00Z'));
    const limiter = new AuthFailureLimiter(clock, {maxFailures: 1, windowMs: 60_000});
    (await limiter.reserve('a')).failed();
    await expect(limiter.reserve('a')).rejects.toMatchObject({retryAfterSeconds: 60});
    clock.advance(30_000);
    await expect(limiter.reserve('a')).rejects.toMatchObject({retryAfterSeconds: 30});
    clock.advance(30_000);
    (await limiter.reserve('a')).succeeded();
  });

  it('says in the message when to retry', () => {
    expect(new RateLimitedError(42).message).toBe(
      'too many failed authentication attempts from this address; try again in 42 s',
    );
  });

  it('forgets every failure on reset', async () => {
    const limiter = new AuthFailureLimiter(manualClock(), {maxFailures: 1});
    (await limiter.reserve('b')).failed();
    await expect(limiter.reserve('b')).rejects.toBeInstanceOf(RateLimitedError);
    limiter.reset();
    (await limiter.reserve('b')).succeeded();
  });
});

describe('the emulator under parallel guesses', () => {
  let em: RunningEmulator;
  let secret: string;
  beforeAll(async () => {
    em = await startEmulator({port: 0, inMemory: true, clock: 'manual'});
    secret = (await em.control.createKey({name: 'limits'})).secret;
  });
  afterAll(() => em?.stop());

  const from = (address: string) => ({incoming: {socket: {remoteAddress: address}}});
  const wrong = (i: number) => `Bearer svc_${String(i).padStart(40, 'Q')}`;

  it('answers 200 parallel wrong keys from one address with at most 20 401s, the rest 429 with Retry-After', async () => {
    const app = createApp(em.context);
    const answers = await Promise.all(
      Array.from({length: 200}, (_, i) =>
        app.request('/v1/org', {headers: {authorization: wrong(i)}}, from('10.20.0.1')),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(180);
    for (const a of answers.filter((x) => x.status === 429)) {
      const wait = a.headers.get('retry-after');
      expect(Number(wait)).toBeGreaterThan(0);
      const body = (await a.json()) as {error: {code: string; message: string}};
      expect(body.error.code).toBe('rate_limited');
      expect(body.error.message).toContain(`try again in ${wait} s`);
    }
  });

  it('serves 200 parallel requests with a good key from one address', async () => {
    const app = createApp(em.context);
    const answers = await Promise.all(
      Array.from({length: 200}, () =>
        app.request('/v1/org', {headers: {authorization: `Bearer ${secret}`}}, from('10.20.0.2')),
      ),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
  });

  it('keeps the control surface open while /v1 refuses the address, and the reset route ends the lockout', async () => {
    const app = createApp(em.context);
    const address = from('10.20.0.3');
    for (let i = 0; i < 25; i++) await app.request('/v1/org', {headers: {authorization: wrong(i)}}, address);
    expect(
      (await app.request('/v1/org', {headers: {authorization: `Bearer ${secret}`}}, address)).status,
    ).toBe(429);
    const admin = {authorization: `Bearer ${em.adminToken}`, 'content-type': 'application/json'};
    const created = await app.request(
      '/_emulator/keys',
      {method: 'POST', headers: admin, body: JSON.stringify({name: 'during-lockout'})},
      address,
    );
    expect(created.status).toBe(201);
    const reset = await app.request('/_emulator/limiter/reset', {method: 'POST', headers: admin}, address);
    expect(reset.status).toBe(200);
    expect(
      (await app.request('/v1/org', {headers: {authorization: `Bearer ${secret}`}}, address)).status,
    ).toBe(200);
  });

  it('moves the window when the manual clock moves, even after the control surface was guessed at', async () => {
    const app = createApp(em.context);
    const address = from('10.20.0.4');
    for (let i = 0; i < 25; i++) {
      await app.request('/_emulator/health', {headers: {authorization: 'Bearer adm_wrong'}}, address);
    }
    // Failed admin tokens cost only the control surface's budget.
    expect(
      (await app.request('/v1/org', {headers: {authorization: `Bearer ${secret}`}}, address)).status,
    ).toBe(200);
    const limited = await app.request(
      '/_emulator/health',
      {headers: {authorization: 'Bearer adm_wrong'}},
      address,
    );
    expect(limited.status).toBe(429);
    (em.clock as ManualClock).advance(61_000);
    // A new window: a wrong token is a plain 401 again.
    const after = await app.request(
      '/_emulator/health',
      {headers: {authorization: 'Bearer adm_wrong'}},
      address,
    );
    expect(after.status).toBe(401);
  });

  it('lets the right admin token through a spent control budget, so the operator is never locked out', async () => {
    const app = createApp(em.context);
    const address = from('10.20.0.5');
    for (let i = 0; i < 25; i++) {
      await app.request('/_emulator/health', {headers: {authorization: 'Bearer adm_wrong'}}, address);
      await app.request('/v1/org', {headers: {authorization: wrong(i)}}, address);
    }
    const admin = {authorization: `Bearer ${em.adminToken}`};
    // Wrong tokens stay refused; the right one passes, and so does the reset it makes.
    expect(
      (await app.request('/_emulator/health', {headers: {authorization: 'Bearer adm_x'}}, address)).status,
    ).toBe(429);
    expect((await app.request('/_emulator/health', {headers: admin}, address)).status).toBe(200);
    // A good API key from the limited address stays refused, with the wait and the way out.
    const refused = await app.request('/v1/org', {headers: {authorization: `Bearer ${secret}`}}, address);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as {error: {message: string}}).error.message).toContain(
      '`svc emulator limiter reset`',
    );
    expect(
      (await app.request('/_emulator/limiter/reset', {method: 'POST', headers: admin}, address)).status,
    ).toBe(200);
    expect(
      (await app.request('/v1/org', {headers: {authorization: `Bearer ${secret}`}}, address)).status,
    ).toBe(200);
  });

  it('counts every loopback address as one, so moving within 127.0.0.0/8 starts no new budget', async () => {
    const app = createApp(em.context);
    for (let i = 0; i < 20; i++) {
      await app.request('/v1/org', {headers: {authorization: wrong(i)}}, from(`127.0.${i}.9`));
    }
    for (const other of ['127.0.0.1', '127.255.255.254', '::1', '::ffff:127.3.2.1']) {
      const answer = await app.request('/v1/org', {headers: {authorization: wrong(99)}}, from(other));
      expect(answer.status, other).toBe(429);
    }
    // Other addresses keep their own budgets.
    expect(
      (await app.request('/v1/org', {headers: {authorization: wrong(1)}}, from('10.20.0.6'))).status,
    ).toBe(401);
    await app.request('/_emulator/limiter/reset', {
      method: 'POST',
      headers: {authorization: `Bearer ${em.adminToken}`},
    });
  });
});

describe("the limiter's name for an address", () => {
  it('is one for all loopback forms and the plain address otherwise', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1']) {
      expect(limiterClient(a), a).toBe('loopback');
    }
    expect(limiterClient('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(limiterClient('128.0.0.1')).toBe('128.0.0.1');
    expect(limiterClient('127.example')).toBe('127.example');
  });
});
