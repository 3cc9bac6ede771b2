// The system and clock lanes of `svc doctor`, each fault planted: an old or ended Node.js line, a server whose
// Date header is off by more than the signature tolerance, an emulator's manual clock far from the wall clock.
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterEach, describe, expect, it} from 'vitest';
import {SIGNATURE_TOLERANCE_SECONDS} from '../../../src/definitions.js';
import {checkApiClock, checkEmulatorClock} from '../../../src/services/doctor/clock.js';
import {checkNodeVersion} from '../../../src/services/doctor/system.js';

const NOW = new Date('2026-11-27T12:00:00Z');

describe('system: node', () => {
  it('warns about a line past its end of life, fails below the minimum, and passes a supported line', () => {
    const ended = checkNodeVersion({version: 'v20.19.1', now: NOW});
    expect(ended).toMatchObject({id: 'node', lane: 'system', status: 'warn'});
    expect(ended.detail).toMatch(/20\.x line reached its end of life on 2026-04-30/);
    expect(ended.fix).toMatch(/22, 24/);
    expect(checkNodeVersion({version: 'v20.10.0', now: NOW})).toMatchObject({status: 'fail'});
    expect(checkNodeVersion({version: 'v18.20.4', now: NOW})).toMatchObject({status: 'fail'});
    const fine = checkNodeVersion({version: 'v22.12.0', now: NOW});
    expect(fine).toEqual({
      id: 'node',
      lane: 'system',
      status: 'ok',
      detail: 'Node.js v22.12.0, supported until 2027-04-30',
    });
    expect(checkNodeVersion({version: 'v20.19.1', now: new Date('2026-01-01T00:00:00Z')}).status).toBe('ok');
  });
});

describe('clock: api_clock', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((r) => server?.close(r) ?? r(undefined));
    server = undefined;
  });

  /** A real server on loopback whose Date header is `offsetMs` away from the real clock. */
  async function serverOffBy(offsetMs: number): Promise<string> {
    const dated = createServer((_req, res) => {
      res.sendDate = false;
      res.setHeader('Date', new Date(Date.now() + offsetMs).toUTCString());
      res.end();
    });
    server = dated;
    await new Promise<void>((r) => dated.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(dated.address() as AddressInfo).port}`;
  }

  const run = (apiUrl: string) => checkApiClock({apiUrl, fetch, nowMs: Date.now, timeoutMs: 15_000});

  it('fails past the signature tolerance, warns past a tenth of it, passes a clock in step', async () => {
    const far = await run(await serverOffBy((SIGNATURE_TOLERANCE_SECONDS + 100) * 1000));
    expect(far).toMatchObject({lane: 'clock', status: 'fail'});
    expect(far.detail).toMatch(/behind .*signature tolerance 300 s.*reject every signature/);
    expect(far.fix).toMatch(/time synchronisation/);
    await new Promise((r) => server?.close(r));
    const ahead = await run(await serverOffBy(-90_000));
    expect(ahead).toMatchObject({status: 'warn', detail: expect.stringMatching(/ahead of/)});
    await new Promise((r) => server?.close(r));
    expect((await run(await serverOffBy(0))).status).toBe('ok');
  });

  it('warns when the API cannot be reached, and leaves a manual emulator clock to its own check', async () => {
    const closed = await serverOffBy(0);
    await new Promise((r) => server?.close(r));
    server = undefined;
    expect(await run(closed)).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/could not reach/),
    });
    const manual = await checkApiClock({
      apiUrl: closed,
      fetch,
      nowMs: Date.now,
      timeoutMs: 15_000,
      manualEmulator: true,
    });
    expect(manual).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/manual clock; see emulator_clock/),
    });
  });
});

describe('clock: emulator_clock', () => {
  it('warns about a manual clock hours from the wall clock, passes one near it and a real clock', () => {
    const apiUrl = 'http://127.0.0.1:4010';
    const far = checkEmulatorClock({
      apiUrl,
      nowMs: NOW.getTime(),
      state: {mode: 'manual', now: '2026-11-27T15:00:00.000Z'},
    });
    expect(far).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/manual clock, 3 h ahead of the wall clock/),
    });
    expect(far.fix).toMatch(/svc emulator clock set/);
    const near = checkEmulatorClock({
      apiUrl,
      nowMs: NOW.getTime(),
      state: {mode: 'manual', now: '2026-11-27T12:01:00.000Z'},
    });
    expect(near.status).toBe('ok');
    expect(
      checkEmulatorClock({apiUrl, nowMs: NOW.getTime(), state: {mode: 'real', now: NOW.toISOString()}})
        .status,
    ).toBe('ok');
  });
});
