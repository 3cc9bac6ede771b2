// The delivery browser's state on its own: keys, the data each screen shows, and what the state asks the view
// to do, reduced without a terminal. Several keys in one read (or read before the screen shows anything) must
// each see what the keys before them did.
import type {Key} from 'ink';
import {describe, expect, it} from 'vitest';
import type {DeliveryDetail} from '../../../src/client/emulator-control.js';
import type {Delivery, WebhookEndpoint} from '../../../src/schemas/index.js';
import {
  type Action,
  filterOf,
  initialState,
  listView,
  reduce,
  screenKey,
  type TuiState,
} from '../../../src/ui/tui/state.js';

const NO_KEY = {} as Key;

function endpoint(n: number): WebhookEndpoint {
  return {
    id: `we_${String(n).padStart(24, '0')}`,
    url: `https://hooks.example.com/${n}`,
    events: ['sandbox.ready'],
    description: null,
    created_at: '2031-05-01T12:00:00.000Z',
  };
}

function delivery(n: number, over: Partial<Delivery> = {}): Delivery {
  return {
    id: `dlv_${String(n).padStart(24, '0')}`,
    event_id: `evt_${String(n).padStart(24, '0')}`,
    event_type: n % 2 ? 'sandbox.ready' : 'sandbox.error',
    status: 'succeeded',
    attempts: 1,
    created_at: '2031-05-01T12:00:00.000Z',
    last_attempt_at: null,
    next_attempt_at: null,
    last_status_code: 200,
    ...over,
  };
}

const ENDPOINTS = [endpoint(1), endpoint(2), endpoint(3), endpoint(4)];
const DELIVERIES = [delivery(1), delivery(2), delivery(3)];

/** The action the view sends once it shows the current screen's data. */
function shown(
  state: TuiState,
  data: unknown,
  extra: Partial<Extract<Action, {type: 'shown'}>> = {},
): Action {
  return {
    type: 'shown',
    screen: screenKey(state.screen),
    data,
    trouble: false,
    page: 10,
    detailLines: 0,
    ...extra,
  };
}

const keys = (input: string, key: Partial<Key> = {}): Action => ({
  type: 'keys',
  input,
  key: {...NO_KEY, ...key},
});
/** Enter read on its own, as Ink reports it. */
const ENTER = keys('', {return: true});

function run(state: TuiState, ...actions: Action[]): TuiState {
  return actions.reduce(reduce, state);
}

/** A browser showing the endpoints. */
function onEndpoints(canResend = true): TuiState {
  const start = initialState({canResend, page: 10});
  return run(start, shown(start, ENDPOINTS));
}

/** A browser showing the first endpoint's deliveries. */
function onDeliveries(canResend = true): TuiState {
  const s = run(onEndpoints(canResend), ENTER);
  return run(s, shown(s, DELIVERIES));
}

const selected = (s: TuiState) => listView(s).selectedId;

describe('keys read together', () => {
  it('j j j then Enter, in one read, opens the fourth row: each key moves from where the last one left', () => {
    const s = run(onEndpoints(), keys('jjj\r'));
    expect(s.screen).toEqual({name: 'deliveries', endpoint: ENDPOINTS[3]});
  });

  it('the same keys read one at a time do the same', () => {
    const s = run(onEndpoints(), keys('j'), keys('j'), keys('j'), ENTER);
    expect(s.screen).toEqual({name: 'deliveries', endpoint: ENDPOINTS[3]});
  });

  it('/ then text types into the filter, and the rows follow it at once', () => {
    const s = run(onDeliveries(), keys('/error'));
    expect(s.editing).toBe(true);
    expect(filterOf(s)).toBe('error');
    expect(listView(s).rows.map((d) => d.id)).toEqual([DELIVERIES[1]?.id]);
    // Enter keeps the filter, then Enter opens the one row it left.
    const opened = run(s, keys('\r\r'));
    expect(opened.editing).toBe(false);
    expect(opened.screen).toMatchObject({name: 'delivery', deliveryId: DELIVERIES[1]?.id});
  });

  it('backspace and escape read together with text act on the text typed before them', () => {
    const s = run(onDeliveries(), keys('/erx\u007F'));
    expect(filterOf(s)).toBe('er');
    const cleared = run(s, keys('\u001B', {escape: true}));
    expect(filterOf(cleared)).toBe('');
    expect(cleared.editing).toBe(false);
  });

  it('keys read with the one that opened a screen wait for its data, then act on it', () => {
    const opened = run(onEndpoints(), keys('\rjj'));
    expect(opened.screen.name).toBe('deliveries');
    expect(opened.pending.map((p) => p.input)).toEqual(['j', 'j']);
    const loaded = run(opened, shown(opened, DELIVERIES));
    expect(loaded.pending).toEqual([]);
    expect(selected(loaded)).toBe(DELIVERIES[2]?.id);
  });

  it('data shown for a screen left before it came is not taken for the current one', () => {
    const s = onEndpoints();
    const opened = run(s, ENTER);
    const late = run(opened, shown(s, ENDPOINTS.slice(0, 1)));
    expect(late.data).toBeUndefined();
  });

  it('q quits at once while a screen loads; keys after it are not read', () => {
    const loading = initialState({canResend: true});
    const s = run(loading, keys('q'), keys('j'));
    expect(s.quitting).toBe(true);
    expect(s.effects).toEqual([{seq: 1, kind: 'quit'}]);
    expect(run(s, shown(s, ENDPOINTS)).screen).toEqual({name: 'endpoints'});
  });

  it('q during a resend quits; the resend answering afterwards changes nothing the view acts on', () => {
    const s = run(onDeliveries(), keys('rq'));
    expect(s.effects.map((e) => e.kind)).toEqual(['resend', 'quit']);
    expect(s.quitting).toBe(true);
    const afterwards = run(s, {type: 'resendFailed', reason: 'network down'});
    expect(afterwards.quitting).toBe(true);
    expect(afterwards.effects.map((e) => e.kind)).toEqual(['resend', 'quit']);
  });

  it('the help opened and closed in one read leaves the keys after it working', () => {
    const s = run(onEndpoints(), keys('?xj'));
    expect(s.help).toBe(false);
    expect(selected(s)).toBe(ENDPOINTS[1]?.id);
  });
});

describe('the lists', () => {
  it('keeps the selected row selected as rows arrive above it', () => {
    const s = run(onDeliveries(), keys('jj'));
    expect(selected(s)).toBe(DELIVERIES[2]?.id);
    const more = run(s, shown(s, [delivery(9), delivery(8), ...DELIVERIES]));
    expect(selected(more)).toBe(DELIVERIES[2]?.id);
    expect(selected(run(more, keys('kk')))).toBe(DELIVERIES[0]?.id);
  });

  it('when the selected row goes, selects the row now at its place', () => {
    const s = run(onDeliveries(), keys('j'));
    const gone = run(s, shown(s, [DELIVERIES[0], DELIVERIES[2]]));
    expect(selected(gone)).toBe(DELIVERIES[2]?.id);
  });

  it('scrolls the window to keep the selection in view, and pages by the body height', () => {
    const many = Array.from({length: 30}, (_, i) => delivery(i + 1));
    const s = run(onDeliveries(), keys('G'));
    const long = run(s, shown(s, many, {page: 5}));
    const end = run(long, keys('G'));
    expect(listView(end).selectedIndex).toBe(29);
    expect(end.listTop).toBe(25);
    const up = run(end, keys('', {pageUp: true}));
    expect(listView(up).selectedIndex).toBe(24);
    expect(up.listTop).toBe(24);
  });

  it('a filter is kept per list; esc clears it before going back', () => {
    const s = run(onDeliveries(), keys('/ready\r'));
    expect(filterOf(s)).toBe('ready');
    const cleared = run(s, keys('', {escape: true}));
    expect(filterOf(cleared)).toBe('');
    expect(cleared.screen.name).toBe('deliveries');
    expect(run(cleared, keys('', {escape: true})).screen).toEqual({name: 'endpoints'});
  });
});

describe('one delivery', () => {
  const detail = (over: Partial<Delivery> = {}): DeliveryDetail => ({
    delivery: delivery(2, {status: 'pending', attempts: 2, ...over}),
    endpoint_id: ENDPOINTS[0]?.id as string,
    event: {type: 'sandbox.error'},
    attempts: [
      {
        attempt: 2,
        started_at: '2031-05-01T12:00:01.000Z',
        signature_t: 1,
        trigger: 'manual',
        status_code: 200,
        error: null,
        duration_ms: 12,
        response_body: 'ok',
      },
    ],
  });

  function onDelivery(): TuiState {
    const s = run(onDeliveries(), keys('j\r'));
    return run(s, shown(s, {detail: detail()}, {page: 5, detailLines: 12}));
  }

  it('scrolls within its text, no further than its last page', () => {
    const s = run(onDelivery(), keys('G'));
    expect(s.detailTop).toBe(7);
    expect(run(s, keys('g')).detailTop).toBe(0);
  });

  it('going back asks the list to keep the delivery as this screen last read it', () => {
    const s = run(onDelivery(), keys('', {escape: true}));
    expect(s.screen.name).toBe('deliveries');
    const keep = s.effects.find((e) => e.kind === 'keep');
    expect(keep).toMatchObject({kind: 'keep', delivery: {id: DELIVERIES[1]?.id, attempts: 2}});
  });

  it('r asks for a resend and says so; its answer becomes the message', () => {
    const s = run(onDelivery(), keys('r'));
    expect(s.effects.at(-1)).toMatchObject({kind: 'resend', deliveryId: DELIVERIES[1]?.id});
    expect(s.message?.text).toContain('Resending');
    const answered = run(s, {
      type: 'resent',
      deliveryId: DELIVERIES[1]?.id as string,
      detail: detail({next_attempt_at: '2031-05-01T12:01:00.000Z'}),
      nowMs: Date.parse('2031-05-01T12:00:30.000Z'),
    });
    expect(answered.message).toEqual({
      text: `Resent ${DELIVERIES[1]?.id}: attempt #2 → 200 (12 ms); still pending, the schedule's next attempt is in 30 seconds`,
      tone: 'green',
    });
  });

  it('r on a source that cannot resend says why and asks for nothing', () => {
    const s = run(onDeliveries(false), keys('r'));
    expect(s.effects).toEqual([]);
    expect(s.message?.text).toContain('Resend needs the emulator');
  });

  it('effects the view has carried out are dropped', () => {
    const s = run(onDelivery(), keys('r'));
    const seq = s.effects.at(-1)?.seq as number;
    expect(run(s, {type: 'done', seq}).effects).toEqual([]);
  });
});
