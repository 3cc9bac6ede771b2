// The delivery browser's screens, keys and states, rendered by Ink into ink-testing-library's terminal, fed by a
// source object whose answers each test sets (the source is the browser's only input).
import {render} from 'ink-testing-library';
import {afterEach, describe, expect, it} from 'vitest';
import type {AttemptDetail, DeliveryDetail, EndpointHealth} from '../../../src/client/emulator-control.js';
import {NetworkError, UnauthorizedError, VaultUnavailableError} from '../../../src/client/errors.js';
import {NotLoggedInError} from '../../../src/auth/resolve.js';
import type {Delivery, WebhookEndpoint} from '../../../src/schemas/index.js';
import type {TuiSource} from '../../../src/services/tui.js';
import {diagnoseDeliveries} from '../../../src/services/webhooks/diagnose.js';
import {App} from '../../../src/ui/tui/app.js';
import {paintEndpoints} from '../../../src/ui/tui/screen.js';

const FAST = {minMs: 10, idleMaxMs: 30, errorMaxMs: 30};
const SIZE = {columns: 100, rows: 24};
const KEYS = {enter: '\r', escape: '\u001B', down: '\u001B[B', up: '\u001B[A', backspace: '\u007F'};

const endpoint: WebhookEndpoint = {
  id: 'we_0123456789abcdefghijklmn',
  url: 'https://hooks.example.com/svc',
  events: ['sandbox.ready', 'sandbox.error'],
  description: null,
  created_at: '2031-05-01T12:00:00.000Z',
};

let seq = 0;
function delivery(over: Partial<Delivery> = {}): Delivery {
  seq += 1;
  const n = String(seq).padStart(4, '0');
  return {
    id: `dlv_${n}AAAAAAAAAAAAAAAAAAAA`,
    event_id: `evt_${n}BBBBBBBBBBBBBBBBBBBB`,
    event_type: 'sandbox.ready',
    status: 'succeeded',
    attempts: 1,
    created_at: new Date(Date.UTC(2031, 4, 1, 12, 0, seq)).toISOString(),
    last_attempt_at: null,
    next_attempt_at: null,
    last_status_code: 200,
    ...over,
  };
}

function attempt(over: Partial<AttemptDetail> = {}): AttemptDetail {
  return {
    attempt: 1,
    started_at: '2031-05-01T12:00:01.000Z',
    signature_t: 1935403201,
    trigger: 'scheduled',
    status_code: 500,
    error: null,
    duration_ms: 12,
    response_body: 'database is down',
    ...over,
  };
}

/** A source whose answers the test changes as it goes; `fail` makes every call reject with that error. */
function fakeSource(init: {emulator?: boolean; endpoints?: WebhookEndpoint[]; deliveries?: Delivery[]} = {}) {
  const state = {
    endpoints: init.endpoints ?? [endpoint],
    deliveries: init.deliveries ?? [],
    details: new Map<string, DeliveryDetail>(),
    fail: undefined as Error | undefined,
    /** While set, a list of deliveries asked for never comes (a slow or stuck link). */
    deliveriesStuck: false,
    resent: [] as string[],
  };
  const guard = async <T,>(value: () => T): Promise<T> => {
    if (state.fail) throw state.fail;
    return value();
  };
  const source: TuiSource = {
    apiUrl: 'http://127.0.0.1:4010',
    emulator: init.emulator ?? true,
    listEndpoints: () => guard(() => state.endpoints),
    listDeliveries: () =>
      state.deliveriesStuck ? new Promise<Delivery[]>(() => undefined) : guard(() => state.deliveries),
  };
  if (init.emulator ?? true) {
    source.deliveryDetail = (id) =>
      guard(() => {
        const d = state.details.get(id);
        if (!d) throw Object.assign(new Error('no delivery with this id'), {code: 'not_found', status: 404});
        return d;
      });
    source.resend = (id) =>
      guard(() => {
        state.resent.push(id);
        const d = state.details.get(id) as DeliveryDetail;
        const next = attempt({
          attempt: d.attempts.length + 1,
          trigger: 'manual',
          status_code: 200,
          response_body: 'ok now',
        });
        const updated = {
          ...d,
          delivery: {...d.delivery, attempts: d.delivery.attempts + 1},
          attempts: [...d.attempts, next],
        };
        state.details.set(id, updated);
        return updated;
      });
  }
  return {source, state};
}

let app: ReturnType<typeof render> | undefined;
afterEach(() => {
  app?.unmount();
  app = undefined;
});

/** Told of each frame Ink writes: a test waits for the frame it expects, never on a timer. */
const frameWritten = new Set<() => void>();

/** Renders into the test terminal, whose writes tell the frames' waiters. */
function mount(element: Parameters<typeof render>[0]) {
  app = render(element);
  const write = app.stdout.write;
  app.stdout.write = (frame: string) => {
    write(frame);
    for (const told of [...frameWritten]) told();
  };
  return app;
}

function show(source: TuiSource, size = SIZE) {
  return mount(<App source={source} color={false} size={size} backoff={FAST} />);
}

/** The first frame, this one or one written later, that `check` accepts; fails after 5 s naming the last. */
function until(check: (frame: string) => boolean, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const done = () => {
      frameWritten.delete(look);
      clearTimeout(timer);
    };
    const look = () => {
      const frame = app?.lastFrame() ?? '';
      if (!check(frame)) return;
      done();
      resolve(frame);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`never saw ${what}; last frame:\n${app?.lastFrame() ?? ''}`));
    }, 5_000);
    frameWritten.add(look);
    look();
  });
}

const sees = (text: string) => until((f) => f.includes(text), JSON.stringify(text));

/**
 * Types keys one at a time. Ink handles a key as it is written (its input handler runs and React renders before
 * write returns), so each key sees the screen the one before it left; the turn of the event loop between keys lets
 * anything a key started (a fetch, a timer) begin as it would between keystrokes. What a key changed is then read
 * with `until`, never at a fixed time after it.
 */
async function press(...keys: string[]) {
  for (const key of keys) {
    app?.stdin.write(key);
    await new Promise((r) => setImmediate(r));
  }
}

/** The line of the frame that carries the selection marker. */
const selectedLine = (frame: string) => frame.split('\n').find((l) => l.startsWith('> ')) ?? '';

describe('the endpoints screen', () => {
  it('shows the endpoints with their URL and events, and says which API it reads', async () => {
    show(fakeSource().source);
    const frame = await sees(endpoint.id);
    expect(frame).toContain('https://hooks.example.com/svc');
    expect(frame).toContain('ready,error');
    expect(frame).toContain('http://127.0.0.1:4010 (emulator)');
    expect(frame).toMatch(/refreshed \d\d:\d\d:\d\d/);
    expect(selectedLine(frame)).toContain(endpoint.id);
  });

  it('says how to add an endpoint when there is none', async () => {
    show(fakeSource({endpoints: []}).source);
    await sees('No webhook endpoints yet: add one with `svc emulator webhooks create');
  });

  it('fits every line into 80 columns and 24 rows', async () => {
    mount(<App source={fakeSource().source} color={false} size={{columns: 80, rows: 24}} backoff={FAST} />);
    const frame = await sees(endpoint.id);
    const lines = frame.split('\n');
    expect(lines.length).toBeLessThanOrEqual(24);
    for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(80);
  });
});

describe('the deliveries screen', () => {
  it('lists deliveries newest first with status, attempts, last code and next attempt; empty says what to trigger', async () => {
    const {source, state} = fakeSource();
    show(source);
    await sees(endpoint.id);
    await press(KEYS.enter);
    await sees('No deliveries yet: try `svc trigger sandbox.ready`');

    const failing = delivery({
      status: 'pending',
      attempts: 3,
      last_status_code: 503,
      next_attempt_at: '2099-01-01T00:00:00Z',
    });
    state.deliveries = [failing, delivery({event_type: 'sandbox.error'})];
    const frame = await sees(failing.id);
    expect(frame).toMatch(/TIME\s+EVENT\s+STATUS\s+ATT\s+CODE\s+NEXT ATTEMPT/);
    expect(selectedLine(frame)).toMatch(/sandbox\.ready\s+pending\s+3\s+503\s+in \d+ years/);
  });

  it('says the day in the TIME column when the rows are not all from one day', async () => {
    const {source, state} = fakeSource();
    const late = delivery({created_at: '2031-05-02T02:09:13.000Z'});
    const early = delivery({created_at: '2031-05-01T00:51:43.000Z'});
    state.deliveries = [late, early];
    show(source);
    await sees(endpoint.id);
    await press(KEYS.enter);
    const frame = await sees(early.id);
    const rows = frame.split('\n').filter((l) => l.includes('dlv_'));
    const days = rows.map((l) => l.match(/^[> ] ([A-Z][a-z]{2} \d\d) \d\d:\d\d {2}sandbox/)?.[1]);
    expect(days.every(Boolean)).toBe(true);
    expect(new Set(days).size).toBe(2);
    expect(frame).toMatch(/TIME\s+EVENT\s+STATUS/);
    // Rows of one day read the time alone.
    state.deliveries = [late];
    await until((f) => /^> \d\d:\d\d:\d\d {2}sandbox/m.test(f), 'the time alone');
  });

  it('keeps the selected delivery selected as new ones arrive above it', async () => {
    const {source, state} = fakeSource();
    const older = delivery();
    const target = delivery({event_type: 'sandbox.error', status: 'failed'});
    state.deliveries = [target, older];
    show(source);
    await sees(endpoint.id);
    await press(KEYS.enter);
    await sees(target.id);
    await press('j', 'k', 'j');
    await until((f) => selectedLine(f).includes(older.id), 'the older row selected');

    const newer = [delivery(), delivery()];
    state.deliveries = [...newer.reverse(), target, older];
    const frame = await sees(newer[0]?.id as string);
    expect(selectedLine(frame)).toContain(older.id);
    // Keys that arrive together (typed fast, held down) each count.
    await press('kk');
    // Each key of the read is taken in turn, a render apart: waited for, not assumed done.
    await until((f) => selectedLine(f).includes(newer[1]?.id as string), 'two rows up');
  });

  it('filters by event type, status or id as you type, and esc clears the filter', async () => {
    const {source, state} = fakeSource();
    const ready = delivery();
    const failed = delivery({event_type: 'sandbox.error', status: 'failed', last_status_code: 500});
    state.deliveries = [failed, ready];
    show(source);
    await sees(endpoint.id);
    await press(KEYS.enter);
    await sees(ready.id);

    await press('/', 'f', 'a', 'i', 'l');
    let frame = await until((f) => !f.includes(ready.id), 'the filter applied');
    expect(frame).toContain(failed.id);
    expect(frame).toContain('filter: fail');
    await press(KEYS.enter);
    await sees('filter: fail (/ to change, esc to clear)');

    await press(
      '/',
      KEYS.backspace,
      KEYS.backspace,
      KEYS.backspace,
      KEYS.backspace,
      ...ready.event_id.slice(0, 8),
    );
    frame = await until((f) => f.includes(ready.id) && !f.includes(failed.id), 'the event id filter');

    await press(KEYS.escape);
    frame = await until((f) => f.includes(ready.id) && f.includes(failed.id), 'the filter cleared');
    await press('/', 'n', 'o', 'p', 'e');
    await sees('No delivery matches “nope”');
  });
});

describe('the endpoint screen’s issues panel', () => {
  /** The source diagnoses as `svc webhooks diagnose` does, from the deliveries and details it serves. */
  function diagnosing(init: Parameters<typeof fakeSource>[0] = {}) {
    const made = fakeSource(init);
    made.source.diagnose = async (e) =>
      diagnoseDeliveries(e, await made.source.listDeliveries(e.id), made.source.deliveryDetail);
    return made;
  }

  it('shows the issues of the selected endpoint above its deliveries, with the reproducing check', async () => {
    const {source, state} = diagnosing();
    const failing = delivery({status: 'failed', attempts: 3, last_status_code: 401});
    const ok = delivery();
    state.deliveries = [failing, ok];
    state.details.set(failing.id, {
      delivery: failing,
      endpoint_id: endpoint.id,
      event: {} as DeliveryDetail['event'],
      attempts: [1, 2, 3].map((n) =>
        attempt({attempt: n, status_code: 401, response_body: 'Invalid signature'}),
      ),
    });
    show(source);
    await sees(endpoint.id);
    await press(KEYS.enter);
    const frame = await sees('Issues (1)');
    expect(frame).toContain(`svc webhooks diagnose ${endpoint.id}`);
    expect(frame).toContain('✗ The receiver refuses the signature of some events only');
    expect(frame).toContain('check reserialized-key-order · 3 attempts of 1 delivery');
    // The deliveries are still listed under it.
    expect(frame).toContain(failing.id.slice(0, 20));
  });

  it('shows nothing for a healthy endpoint', async () => {
    const {source, state} = diagnosing();
    const ok = delivery();
    state.deliveries = [ok];
    let diagnosed = 0;
    const diagnose = source.diagnose?.bind(source);
    source.diagnose = async (e) => {
      const d = await (diagnose as NonNullable<TuiSource['diagnose']>)(e);
      diagnosed++;
      return d;
    };
    show(source);
    await sees(endpoint.id);
    await press(KEYS.enter);
    const frame = await until((f) => f.includes('sandbox.ready') && diagnosed > 0, 'a diagnosed list');
    expect(frame).not.toContain('Issues');
  });
});

describe('the endpoints screen at wide widths', () => {
  const failing: WebhookEndpoint = {
    ...endpoint,
    id: 'we_FAIL56789abcdefghijklmn',
    url: 'https://down.example.com/hooks',
    description: 'billing, production',
  };

  /** A source that tells every endpoint's health in one call, counting what the browser asks. */
  function healthSource(told: () => Promise<EndpointHealth[]>) {
    const {source, state} = fakeSource({endpoints: [endpoint, failing]});
    const calls = {endpoints: 0, health: 0, deliveries: 0};
    const {listEndpoints, listDeliveries} = source;
    source.listEndpoints = () => {
      calls.endpoints += 1;
      return listEndpoints();
    };
    source.listDeliveries = (id) => {
      calls.deliveries += 1;
      return listDeliveries(id);
    };
    source.endpointHealth = () => {
      calls.health += 1;
      return told();
    };
    return {source, state, calls};
  }

  const health = async (): Promise<EndpointHealth[]> => [
    {endpoint_id: endpoint.id, recent: 12, failed: 0, pending: 0, last: delivery()},
    {
      endpoint_id: failing.id,
      recent: 10,
      failed: 3,
      pending: 1,
      last: delivery({status: 'failed', attempts: 9, last_status_code: 500}),
    },
  ];

  const rowOf = (frame: string, id: string) => frame.split('\n').find((l) => l.includes(id)) ?? '';

  it("at 200 columns shows each endpoint's description and health, all read in one call per refresh", async () => {
    const {source, calls} = healthSource(health);
    show(source, {columns: 200, rows: 24});
    const frame = await sees('failing 500');
    expect(frame).toMatch(/HEALTH\s+DESCRIPTION/);
    expect(rowOf(frame, endpoint.id)).toMatch(/ok · 0\/12 failed\s+-/);
    expect(rowOf(frame, failing.id)).toMatch(/failing 500 · 3\/10 failed\s+billing, production/);
    for (const line of frame.split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(200);
    // Refresh after refresh: one health call each time, never an endpoint's deliveries.
    await until(() => calls.endpoints >= 3, 'three refreshes');
    expect(calls.health).toBeGreaterThanOrEqual(2);
    expect(calls.health).toBeLessThanOrEqual(calls.endpoints);
    expect(calls.deliveries).toBe(0);
  });

  it('at 80 columns shows neither, and never asks for health', async () => {
    const {source, calls} = healthSource(health);
    show(source, {columns: 80, rows: 24});
    const frame = await sees(failing.id);
    await until(() => calls.endpoints >= 3, 'three refreshes');
    expect(frame).not.toContain('HEALTH');
    expect(frame).not.toContain('DESCRIPTION');
    expect(frame).not.toContain('failing');
    expect(calls.health).toBe(0);
    expect(calls.deliveries).toBe(0);
  });

  it('keys read together filter and open beside the health column', async () => {
    const {source, state} = healthSource(health);
    const d = delivery({status: 'failed', attempts: 9, last_status_code: 500});
    state.deliveries = [d];
    show(source, {columns: 200, rows: 24});
    await sees('failing 500');
    await press(`/down${KEYS.enter}`);
    const filtered = await until((f) => !f.includes(endpoint.id), 'the filter');
    expect(selectedLine(filtered)).toMatch(/failing 500 · 3\/10 failed/);
    await press(KEYS.enter);
    await sees(d.id);
  });

  it('reads the health at once when the terminal is widened to show it, not at the next refresh', async () => {
    const {source, calls} = healthSource(health);
    // Refreshes far apart: only the widening can ask for the health within this test.
    const slow = {minMs: 60_000, idleMaxMs: 60_000, errorMaxMs: 60_000};
    mount(<App source={source} color={false} size={{columns: 80, rows: 24}} backoff={slow} />);
    await sees(failing.id);
    expect(calls.health).toBe(0);
    app.rerender(<App source={source} color={false} size={{columns: 200, rows: 24}} backoff={slow} />);
    const frame = await sees('failing 500');
    expect(rowOf(frame, endpoint.id)).toContain('ok · 0/12 failed');
    expect(calls.health).toBe(1);
  });

  it('shows "?" for health it cannot read, and the endpoints all the same', async () => {
    const {source} = healthSource(async () => {
      throw Object.assign(new Error('no such route'), {code: 'not_found', status: 404});
    });
    show(source, {columns: 200, rows: 24});
    const frame = await sees(failing.id);
    expect(rowOf(frame, failing.id)).toMatch(/\?\s+billing, production/);
    expect(frame).not.toContain('Could not load');
  });

  it('without a source that tells health (the service), shows the description only', async () => {
    const {source} = fakeSource({endpoints: [endpoint, failing], emulator: false});
    show(source, {columns: 200, rows: 24});
    const frame = await sees(failing.id);
    expect(frame).toContain('DESCRIPTION');
    expect(frame).not.toContain('HEALTH');
  });
});

describe('the endpoints painted before Ink has loaded', () => {
  it('keep the health column where the browser then shows it, at 200 columns', async () => {
    const described: WebhookEndpoint = {...endpoint, description: 'billing, production'};
    let painted = '';
    paintEndpoints({columns: 200, rows: 24, write: (d: string) => (painted += d)}, [described], {
      health: true,
    });
    const lines = new Map<number, string>();
    for (const m of painted.matchAll(/\u001B\[(\d+);1H([^\u001B]*)\u001B\[K/g))
      lines.set(Number(m[1]), m[2] as string);
    const {source} = fakeSource({endpoints: [described]});
    source.endpointHealth = async () => [
      {endpoint_id: endpoint.id, recent: 1, failed: 0, pending: 0, last: delivery()},
    ];
    show(source, {columns: 200, rows: 24});
    const frame = (await sees('ok · 0/1 failed')).split('\n');
    expect(lines.get(2)?.trimEnd()).toBe(frame[1]?.trimEnd());
    // The health cell is still unknown ("…"); every other cell is where the browser puts it.
    expect(lines.get(3)?.indexOf('billing')).toBe(frame[2]?.indexOf('billing'));
    expect(lines.get(3)).toContain('…');
  });

  it('are the lines the browser then shows, so the first data does not move', async () => {
    const second: WebhookEndpoint = {
      ...endpoint,
      id: 'we_ZZZZ56789abcdefghijklmn',
      url: 'https://two.example.com/',
    };
    const endpoints = [endpoint, second];
    let painted = '';
    paintEndpoints({columns: SIZE.columns, rows: SIZE.rows, write: (d: string) => (painted += d)}, endpoints);
    // Each line is written at its row: "ESC[row;1H" then the text, then erase to the end of the line.
    const lines = new Map<number, string>();
    for (const m of painted.matchAll(/\u001B\[(\d+);1H([^\u001B]*)\u001B\[K/g))
      lines.set(Number(m[1]), m[2] as string);
    show(fakeSource({endpoints}).source);
    const frame = (await sees(second.id)).split('\n');
    for (const row of [2, 3, 4])
      expect(lines.get(row)?.trimEnd(), `row ${row}`).toBe((frame[row - 1] ?? '').trimEnd());
  });
});

describe('keys read together (key repeat on a loaded machine, a slow link, a paste)', () => {
  it('takes two Backspaces in one read as two Backspaces, never as spaces', async () => {
    const {source, state} = fakeSource();
    const failed = delivery({event_type: 'sandbox.error', status: 'failed'});
    state.deliveries = [failed, delivery()];
    show(source);
    await sees(endpoint.id);
    await press(KEYS.enter);
    await sees(failed.id);
    await press('/failed');
    await sees('filter: failed');
    await press(KEYS.backspace + KEYS.backspace);
    await sees('/ filter: fail  (enter keeps it');
    // Enter and Backspace read with text end the filter and go back, as typed one by one.
    await press(`ed${KEYS.enter}`);
    await sees('filter: failed (/ to change, esc to clear)');
  });

  it('opens the row `j` moved to when Enter comes in the same read, and moves on the screen Enter opened', async () => {
    const second: WebhookEndpoint = {
      ...endpoint,
      id: 'we_ZZZZ56789abcdefghijklmn',
      url: 'https://two.example.com/',
    };
    const {source, state} = fakeSource({endpoints: [endpoint, second]});
    const [newer, older] = [delivery(), delivery()];
    state.deliveries = [newer, older] as Delivery[];
    show(source);
    await sees(second.id);
    await press(`j${KEYS.enter}`);
    await sees(`Deliveries · ${second.id}`);
    await press(KEYS.escape);
    await sees('Endpoints');
    await press(`k${KEYS.enter}j`);
    // This endpoint's list is read for the first time: `j` waits for its rows, then moves to the second.
    const frame = await until(
      (f) => f.includes(`Deliveries · ${endpoint.id}`) && selectedLine(f).includes((older as Delivery).id),
      'the second row of the first endpoint selected',
    );
    expect(frame).toContain((newer as Delivery).id);
  });
});

describe('one delivery', () => {
  it('shows each attempt with its answer and the event body, and a resend adds a manual attempt', async () => {
    const {source, state} = fakeSource();
    const d = delivery({status: 'pending', attempts: 1, last_status_code: 500, event_type: 'sandbox.error'});
    state.deliveries = [d];
    state.details.set(d.id, {
      delivery: d,
      endpoint_id: endpoint.id,
      event: {id: d.event_id, type: 'sandbox.error', data: {sandbox: {last_error: 'disk full'}}},
      attempts: [attempt({response_body: '{"error":"database is down"}\nsecond line'})],
    });
    show(source);
    await sees(endpoint.id);
    await press(KEYS.enter);
    await sees(d.id);
    await press(KEYS.enter);
    let frame = await sees('Attempts (1)');
    expect(frame).toMatch(/#1\s+2031-05-01 12:00:01Z\s+scheduled\s+500\s+12 ms\s+t=1935403201/);
    expect(frame).toContain('│ {"error":"database is down"}');
    expect(frame).toContain('│ second line');
    expect(frame).toContain('"last_error": "disk full"');

    await press('r');
    frame = await sees(`Resent ${d.id}: attempt #2 → 200`);
    frame = await sees('Attempts (2)');
    expect(frame).toMatch(/#2\s+.*manual\s+200/);
    expect(state.resent).toEqual([d.id]);

    await press(KEYS.escape);
    await sees('TIME');
  });

  it('going back, the list shows the delivery as its screen last read it, before the list has been read again', async () => {
    const {source, state} = fakeSource();
    const d = delivery({status: 'pending', attempts: 1, last_status_code: 500, event_type: 'sandbox.error'});
    state.deliveries = [d];
    state.details.set(d.id, {
      delivery: d,
      endpoint_id: endpoint.id,
      event: {id: d.event_id, type: 'sandbox.error', data: {}},
      attempts: [attempt()],
    });
    show(source);
    await sees(endpoint.id);
    await press(KEYS.enter);
    expect(selectedLine(await sees(d.id))).toMatch(/pending\s+1\s+500/);
    await press(KEYS.enter);
    await sees('Attempts (1)');
    // The list's next read never comes: only what the delivery's screen read can change its row.
    state.deliveriesStuck = true;
    await press('r');
    await sees('Attempts (2)');
    const drawn = app?.frames.length ?? 0;
    await press(KEYS.escape);
    const frame = await sees('TIME');
    expect(selectedLine(frame)).toContain(d.id);
    expect(selectedLine(frame)).toMatch(/pending\s+2\s+500/);
    // Not even one frame drawn on the way back shows the row as it was before.
    const lists = (app?.frames.slice(drawn) ?? []).filter((f) => f.includes('TIME'));
    expect(lists.length).toBeGreaterThan(0);
    for (const list of lists) expect(selectedLine(list)).toMatch(/pending\s+2\s+500/);
  });

  it('against the service (no emulator) shows the list record and says where attempt detail comes from', async () => {
    const {source, state} = fakeSource({emulator: false});
    const d = delivery({status: 'failed', attempts: 9, last_status_code: 500});
    state.deliveries = [d];
    show(source);
    await sees(endpoint.id);
    await press(KEYS.enter);
    await sees(d.id);
    await press('r');
    await sees('Resend needs the emulator');
    await press(KEYS.enter);
    const frame = await sees('Attempt detail, the event body and resend come from the emulator');
    expect(frame).toMatch(/Status\s+failed · 9 attempts · last answer 500/);
  });
});

describe('what the rows say', () => {
  it('a retry due in a few seconds is ahead, not "just now"; a network error is ERR, not "-"', async () => {
    const {source, state} = fakeSource();
    const soon = delivery({
      status: 'pending',
      attempts: 1,
      last_status_code: null,
      next_attempt_at: new Date(Date.now() + 8_000).toISOString(),
    });
    const fresh = delivery({status: 'pending', attempts: 0, last_status_code: null, next_attempt_at: null});
    state.deliveries = [soon, fresh];
    show(source);
    await sees(endpoint.id);
    await press(KEYS.enter);
    const frame = await sees(soon.id);
    const row = (id: string) => frame.split('\n').find((l) => l.includes(id)) ?? '';
    expect(row(soon.id)).toMatch(/pending\s+1\s+ERR\s+in [5-8] seconds/);
    expect(row(fresh.id)).toMatch(/pending\s+0\s+-\s/);
  });

  it('at 200 columns the endpoints screen has room for the description', async () => {
    const described: WebhookEndpoint = {...endpoint, description: 'billing service, production'};
    show(fakeSource({endpoints: [described]}).source, {columns: 200, rows: 24});
    const frame = await sees(described.id);
    expect(frame).toContain('DESCRIPTION');
    expect(frame).toContain('billing service, production');
  });

  it('after a resend that got through, says the delivery is still scheduled', async () => {
    const {source, state} = fakeSource();
    const d = delivery({
      status: 'pending',
      attempts: 1,
      last_status_code: 500,
      next_attempt_at: new Date(Date.now() + 25_000).toISOString(),
    });
    state.deliveries = [d];
    state.details.set(d.id, {
      delivery: d,
      endpoint_id: endpoint.id,
      event: {id: d.event_id},
      attempts: [attempt()],
    });
    show(source, {columns: 200, rows: 24});
    await sees(endpoint.id);
    await press(KEYS.enter);
    await sees(d.id);
    await press('r');
    await sees(`Resent ${d.id}: attempt #2 → 200`);
    await until(
      (f) => /still pending, the schedule's next attempt is in 2\d seconds/.test(f),
      'the schedule named',
    );
  });
});

describe('states', () => {
  it('not logged in: says so and how to log in', async () => {
    const {source, state} = fakeSource();
    state.fail = new NotLoggedInError('http://127.0.0.1:4010');
    show(source);
    await sees('Not logged in, or the API key was rejected (401).');
    await sees('svc login --api-url http://127.0.0.1:4010');
    state.fail = undefined;
    await sees(endpoint.id);
  });

  it('a rejected key (401) and a missing vault key (503) each get their own screen', async () => {
    const {source, state} = fakeSource();
    state.fail = new UnauthorizedError();
    show(source);
    await sees('(401)');
    state.fail = new VaultUnavailableError();
    await sees('503 vault_unavailable');
  });

  it('network down: keeps the last data, marks it stale, and recovers on its own', async () => {
    const {source, state} = fakeSource();
    show(source);
    await sees(endpoint.id);
    state.fail = new NetworkError('http://127.0.0.1:4010', 'ECONNREFUSED', []);
    let frame = await sees('stale since');
    expect(frame).toContain(endpoint.id);
    expect(frame).toContain('Showing the last data: could not reach http://127.0.0.1:4010: ECONNREFUSED');
    expect(frame).toContain('retrying in');
    state.fail = undefined;
    frame = await until((f) => f.includes('refreshed') && !f.includes('stale'), 'the recovery');
  });

  it('network down before any data: says it cannot reach the API', async () => {
    const {source, state} = fakeSource();
    state.fail = new NetworkError('http://127.0.0.1:4010', 'ECONNREFUSED', []);
    show(source);
    await sees('Cannot reach http://127.0.0.1:4010.');
  });

  it('? shows the keys and any key closes them', async () => {
    show(fakeSource().source);
    await sees(endpoint.id);
    await press('?');
    const frame = await sees('Keys');
    expect(frame).toContain('resend the delivery now');
    // No line of the help starts with a space left over from a wrap.
    const note = frame.split('\n').filter((l) => /Screens refresh|Whole answers/.test(l));
    expect(note.length).toBe(2);
    for (const line of note) expect(line).toMatch(/^(Screens|Whole)/);
    await press('x');
    await sees(endpoint.id);
  });
});
