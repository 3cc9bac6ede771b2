// The request log: whoever runs the emulator (admin token) reads why each request was refused, while /v1 gives
// every refused caller the very same 401. Real HTTP on loopback, a manual clock for the times.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type ManualClock, parseDuration} from '../../src/emulator/clock.js';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {RequestLog} from '../../src/emulator/request-log.js';

let emu: RunningEmulator;
const START = new Date('2032-02-02T10:00:00.000Z');

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    inMemory: true,
    clock: 'manual',
    clockStart: START,
    rateLimit: {maxFailures: 8, windowMs: 60_000},
  });
});
afterAll(() => emu?.stop());

const call = (path: string, authorization?: string, method = 'GET') =>
  fetch(`${emu.apiUrl}${path}`, {method, headers: authorization ? {authorization} : {}});

describe('the request log', () => {
  it('names the real reason of every refusal, while /v1 answers them all alike', async () => {
    await emu.control.resetLimiter();
    const after = (await emu.control.logs()).last;
    const good = await emu.control.createKey({name: 'good'});
    const revoked = await emu.control.createKey({name: 'gone'});
    await emu.control.revokeKey(revoked.id);
    const expiring = await emu.control.createKey({name: 'short', expires: '30'});
    (emu.clock as ManualClock).advance(parseDuration('31d') as number);
    const unknown = `svc_${'Unknown'.padEnd(40, '0')}`;

    const refused = [
      await call('/v1/org'),
      await call('/v1/org', 'Bearer not-a-key'),
      await call('/v1/org', `Bearer ${unknown}`),
      await call('/v1/org', `Bearer ${revoked.secret}`),
      await call('/v1/org', `Bearer ${expiring.secret}`),
    ];
    const bodies = await Promise.all(refused.map((r) => r.text()));
    expect(refused.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(bodies).size).toBe(1);
    expect((await call('/v1/api-keys', `Bearer ${good.secret}`, 'POST')).status).toBe(403);
    expect((await call('/_emulator/health', `Bearer ${good.secret}`)).status).toBe(401);

    const entries = (await emu.control.logs({after})).data.filter(
      (e) => e.path !== '/_emulator/keys' && !e.path.endsWith('/revoke'),
    );
    const seen = entries.map((e) => [e.method, e.path, e.status, e.reason, e.key_id, e.key_prefix, e.detail]);
    const expiresAt = new Date(START.getTime() + 30 * 86_400_000).toISOString();
    expect(seen).toEqual([
      ['GET', '/v1/org', 401, 'missing', undefined, undefined, 'no Authorization header'],
      ['GET', '/v1/org', 401, 'malformed', undefined, undefined, expect.stringContaining('Bearer svc_')],
      ['GET', '/v1/org', 401, 'unknown_key', undefined, unknown.slice(0, 8), undefined],
      [
        'GET',
        '/v1/org',
        401,
        'revoked',
        revoked.id,
        revoked.secret.slice(0, 8),
        `revoked at ${START.toISOString()}`,
      ],
      ['GET', '/v1/org', 401, 'expired', expiring.id, expiring.secret.slice(0, 8), `expired at ${expiresAt}`],
      ['POST', '/v1/api-keys', 403, 'forbidden', good.id, good.secret.slice(0, 8), undefined],
      ['GET', '/_emulator/health', 401, 'wrong_admin_token', undefined, undefined, expect.any(String)],
    ]);
    // Times are the emulator's; no entry holds any part of a secret beyond the listed prefix.
    expect(entries.every((e) => e.time === new Date(START.getTime() + 31 * 86_400_000).toISOString())).toBe(
      true,
    );
    const text = JSON.stringify(entries);
    for (const secret of [good.secret, revoked.secret, expiring.secret, unknown])
      expect(text).not.toContain(secret);
  });

  it('says until when an address is rate limited, and logs good requests with their key', async () => {
    await emu.control.resetLimiter();
    const good = await emu.control.createKey({name: 'fine'});
    const {last} = await emu.control.logs();
    expect((await call('/v1/webhooks', `Bearer ${good.secret}`)).status).toBe(200);
    for (let i = 0; i < 9; i++) await call('/v1/org', 'Bearer wrong');
    const entries = (await emu.control.logs({after: last})).data;
    expect(entries[0]).toMatchObject({method: 'GET', path: '/v1/webhooks', status: 200, key_id: good.id});
    expect(entries[0]).not.toHaveProperty('reason');
    const limited = entries.at(-1);
    const until = new Date(emu.clock.now().getTime() + 60_000).toISOString();
    expect(limited).toMatchObject({status: 429, reason: 'rate_limited', detail: `limited until ${until}`});
    await emu.control.resetLimiter();
  });

  it('is read with the admin token only, never with an API key', async () => {
    const key = await emu.control.createKey({name: 'reader'});
    expect((await call('/_emulator/logs', `Bearer ${key.secret}`)).status).toBe(401);
    expect((await call('/_emulator/logs')).status).toBe(401);
    expect((await call('/_emulator/logs', `Bearer ${emu.adminToken}`)).status).toBe(200);
  });

  it('chooses entries by a duration back from the emulator clock, and refuses a bad one', async () => {
    const {last} = await emu.control.logs();
    (emu.clock as ManualClock).advance(parseDuration('1h') as number);
    await call('/v1/org');
    const recent = await emu.control.logs({since: '10m'});
    expect(recent.data.length).toBeGreaterThan(0);
    expect(recent.data.every((e) => e.seq > last)).toBe(true);
    expect((await call('/_emulator/logs?since=yesterday', `Bearer ${emu.adminToken}`)).status).toBe(400);
  });

  it('holds a follower until the next request comes', async () => {
    const {last} = await emu.control.logs();
    const waiting = emu.control.logs({after: last, wait: 20});
    await call('/v1/keys-that-do-not-exist');
    const page = await waiting;
    expect(page.data.map((e) => [e.path, e.status])).toEqual([['/v1/keys-that-do-not-exist', 401]]);
  });
});

describe('secrets in a path', () => {
  it('are never logged whole: key secrets, signing secrets and link tokens are redacted', async () => {
    const key = await emu.control.createKey({name: 'pasted'});
    const signing = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const token = Buffer.alloc(32, 5).toString('base64url');
    const after = (await emu.control.logs()).last;
    await call(`/v1/webhooks/${key.secret}/deliveries`, `Bearer ${key.secret}`);
    await call(`/v1/webhooks/${encodeURIComponent(signing)}/deliveries?x=1`, `Bearer ${key.secret}`);
    await call(`/_emulator/sandboxes/${token}`, `Bearer ${emu.adminToken}`);
    const paths = (await emu.control.logs({after})).data.map((e) => e.path);
    expect(paths).toEqual([
      '/v1/webhooks/[redacted]/deliveries',
      '/v1/webhooks/[redacted]/deliveries',
      '/_emulator/sandboxes/[redacted]',
    ]);
    const text = JSON.stringify(paths);
    for (const secret of [key.secret, signing, encodeURIComponent(signing), token])
      expect(text).not.toContain(secret);
  });
});

describe('a token in a path', () => {
  it('is never logged: the admin token written into a path (and its query) is redacted', async () => {
    const after = (await emu.control.logs()).last;
    const admin = `Bearer ${emu.adminToken}`;
    await call(`/_emulator/${emu.adminToken}/health?token=${emu.adminToken}`, admin);
    await call(`/_emulator/sandboxes/${encodeURIComponent(emu.adminToken)}`, admin);
    await call(`/v1/webhooks/${emu.adminToken}/deliveries`);
    const entries = (await emu.control.logs({after})).data;
    expect(entries.map((e) => [e.method, e.path, e.status])).toEqual([
      ['GET', '/_emulator/[redacted]/health', 404],
      ['GET', '/_emulator/sandboxes/[redacted]', 404],
      ['GET', '/v1/webhooks/[redacted]/deliveries', 401],
    ]);
    expect(JSON.stringify(entries)).not.toContain(emu.adminToken.slice(4));
  });
});

describe('a RequestLog', () => {
  it('keeps only its newest entries', () => {
    const log = new RequestLog(3);
    for (let i = 1; i <= 5; i++) {
      log.add({
        time: new Date(i * 1000).toISOString(),
        method: 'GET',
        path: `/v1/${i}`,
        status: 200,
        duration_ms: 1,
      });
    }
    expect(log.read().map((e) => e.path)).toEqual(['/v1/3', '/v1/4', '/v1/5']);
    expect(log.read({afterSeq: 4}).map((e) => e.seq)).toEqual([5]);
    expect(log.read({sinceMs: 4000}).map((e) => e.path)).toEqual(['/v1/4', '/v1/5']);
  });
});
