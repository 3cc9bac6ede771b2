// `svc emulator deliveries resend` as a person and a script meet it: what each resend got back and where its
// delivery stands after it (text and --json), a receiver fixed and its failed delivery then succeeded, --failed
// leaving what an earlier run recovered, and --limit with its default, its maximum and its refusals.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {RESEND_FAILED_LIMIT, RESEND_FAILED_PAGE} from '../../src/definitions.js';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {type Receiver, startReceiver} from '../emulator/delivery/helpers.js';
import {seedFailedDeliveries} from '../helpers/failed-deliveries.js';
import {runCommand} from '../helpers/run-cli.js';

let root: string;
let emu: RunningEmulator;
let receiver: Receiver;
/** Deliveries whose requests the receiver now answers 200; every other request gets 503. */
const fixedFor = new Set<string>();
const env = () => ({SVC_EMULATOR_DATA_DIR: emu.dataDir, SVC_CONFIG_DIR: join(root, 'config')});
const resend = (...args: string[]) =>
  runCommand(['emulator', 'deliveries', 'resend', ...args], {env: env(), timeoutMs: 60_000});
const json = <T>(text: string) => JSON.parse(text) as T;

interface Outcome {
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  status: string;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-e2e-resend-'));
  receiver = await startReceiver((q, res) => {
    res.writeHead(fixedFor.has(String(q.headers['svc-delivery-id'])) ? 200 : 503);
    res.end();
  });
  emu = await startEmulator({
    port: 0,
    dataDir: join(root, 'emulator'),
    clock: 'manual',
    clockStart: new Date('2031-05-01T12:00:00.000Z'),
    allowLocalEndpoints: true,
  });
});
afterAll(async () => {
  await emu?.stop();
  await receiver?.close();
  await rm(root, {recursive: true, force: true});
});

/**
 * `count` failed deliveries to a new endpoint of the emulator's default org (the org the CLI acts on), the only
 * endpoint subscribed to `type`.
 */
async function failedInDefaultOrg(type: 'sandbox.error' | 'sandbox.stopped', count: number) {
  const hook = await emu.control.createWebhook({url: `${receiver.url}/in`, events: [type]});
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    // A second apart: oldest first is the order they were made in.
    if (i > 0) await emu.control.advanceClock('1s');
    const move = await emu.control.trigger({type});
    ids.push(
      (await emu.control.waitForDelivery({event_id: move.event?.id as string, attempts: 1})).delivery.id,
    );
  }
  // One move of the clock past the last wait: each delivery makes its nine attempts and fails.
  await emu.control.advanceClock('1d', {settle: true});
  for (const id of ids) await emu.control.waitForDelivery({delivery_id: id, status: 'failed'});
  return {hookId: hook.id, ids};
}

describe('svc emulator deliveries resend', {timeout: 120_000}, () => {
  it('says what the resend got back; once the receiver is fixed, the delivery is succeeded', async () => {
    const {ids} = await failedInDefaultOrg('sandbox.error', 1);
    const id = ids[0] as string;

    const failing = await resend(id, '--json');
    expect(failing.code, failing.stderr).toBe(0);
    expect(json<{resend: Outcome; delivery: {status: string}}>(failing.stdout)).toMatchObject({
      resend: {delivery_id: id, attempt: 10, status_code: 503, error: null, status: 'failed'},
      delivery: {status: 'failed', attempts: 10},
    });

    fixedFor.add(id);
    const fixed = await resend(id);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.stdout).toMatch(
      new RegExp(`^Resent ${id} on the emulator at ${emu.apiUrl}: attempt 11 → 200, now succeeded\\.\\n`),
    );
    expect(fixed.stdout).toMatch(
      new RegExp(`Delivery\\s+${id}\\s+succeeded · 11 attempts · last answer 200`),
    );
    expect((await emu.control.delivery(id)).delivery).toMatchObject({
      status: 'succeeded',
      next_attempt_at: null,
    });
  });

  it('--failed says how each went, and a second run leaves what the first recovered', async () => {
    const {hookId, ids} = await failedInDefaultOrg('sandbox.stopped', 3);
    // The receiver is fixed for the first and the last; the middle one still fails.
    fixedFor.add(ids[0] as string);
    fixedFor.add(ids[2] as string);

    const first = await resend('--failed', '--webhook', hookId);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(
      `Resent 3 failed deliveries on the emulator at ${emu.apiUrl}, oldest first:\n` +
        `  ${ids[0]}  attempt 10 → 200, now succeeded\n` +
        `  ${ids[1]}  attempt 10 → 503, still failed\n` +
        `  ${ids[2]}  attempt 10 → 200, now succeeded\n` +
        '2 succeeded, 1 still failed.\n',
    );

    const second = await resend('--failed', '--webhook', hookId, '--json');
    expect(second.code, second.stderr).toBe(0);
    expect(json(second.stdout)).toEqual({
      resent: 1,
      deliveries: [ids[1]],
      outcomes: [{delivery_id: ids[1], attempt: 11, status_code: 503, error: null, status: 'failed'}],
      more: false,
    });
    const sentTo = (id: string | undefined) =>
      receiver.requests.filter((q) => q.headers['svc-delivery-id'] === id).length;
    expect(ids.map(sentTo)).toEqual([10, 11, 10]);
  });

  it('--limit: the default unless given, progress between pages, the maximum, and refusals (exit 2)', async () => {
    const over = RESEND_FAILED_LIMIT.default + 20;
    // In place of the state: the default org now holds one endpoint with that many failed deliveries.
    const seeded = await seedFailedDeliveries(emu.control, {
      url: `${receiver.url}/in`,
      count: over,
      replace: true,
    });
    const before = receiver.requests.length;

    const byDefault = await resend('--failed', '--json');
    expect(byDefault.code, byDefault.stderr).toBe(0);
    const run = json<{resent: number; deliveries: string[]; outcomes: Outcome[]; more: boolean}>(
      byDefault.stdout,
    );
    expect(run.resent).toBe(RESEND_FAILED_LIMIT.default);
    expect(run.deliveries).toEqual(seeded.ids.slice(0, RESEND_FAILED_LIMIT.default));
    expect(run.more).toBe(true);
    expect(byDefault.stderr).toBe('');
    expect(receiver.requests.length - before).toBe(RESEND_FAILED_LIMIT.default);

    // Text: a progress line on stderr after each page another follows (a page is at most RESEND_FAILED_PAGE's),
    // and the outcome of each.
    const all = await resend('--failed', '--limit', String(RESEND_FAILED_LIMIT.max));
    expect(all.code, all.stderr).toBe(0);
    const progress = all.stderr.split('\n').filter(Boolean);
    expect(progress.length).toBeGreaterThanOrEqual(Math.ceil(over / RESEND_FAILED_PAGE.deliveries) - 1);
    const counts = progress.map((line) => {
      const m = /^Resent (\d+) so far \(at most (\d+)\): 0 succeeded, (\d+) still failed…$/.exec(line);
      expect(m, line).not.toBeNull();
      expect(m?.[2]).toBe(String(RESEND_FAILED_LIMIT.max));
      expect(m?.[3]).toBe(m?.[1]);
      return Number(m?.[1]);
    });
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(Math.max(...counts)).toBeLessThan(over);
    expect(all.stdout).toMatch(new RegExp(`^Resent ${over} failed deliveries on the emulator at `));
    expect(all.stdout.split('\n').filter((l) => l.includes('attempt 11 → 503, still failed'))).toHaveLength(
      RESEND_FAILED_LIMIT.default,
    );
    expect(all.stdout).toMatch(new RegExp(`\\n0 succeeded, ${over} still failed\\.\\n$`));

    const two = await resend('--failed', '--limit', '2');
    expect(two.stdout).toContain(
      'More failed deliveries match than --limit 2; the next run starts again with the oldest still failed.',
    );

    const sent = receiver.requests.length;
    for (const bad of [String(RESEND_FAILED_LIMIT.max + 1), '0']) {
      const refused = await resend('--failed', '--limit', bad);
      expect(refused.code, bad).toBe(2);
      expect(refused.stderr).toContain(`--limit must be a whole number from 1 to ${RESEND_FAILED_LIMIT.max}`);
    }
    const notANumber = await resend('--failed', '--limit', 'many');
    expect(notANumber.code).toBe(2);
    const withoutFailed = await resend(seeded.ids[0] as string, '--limit', '5');
    expect(withoutFailed.code).toBe(2);
    expect(withoutFailed.stderr).toMatch(/--failed/);
    expect(receiver.requests.length).toBe(sent);
  });
});
