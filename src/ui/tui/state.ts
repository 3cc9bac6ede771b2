// The delivery browser's state and every change to it, as one pure function: `reduce(state, action)`. Keys read
// together (typed faster than a frame, held down, pasted) are reduced one after the other, each from the state
// the one before it left: `j j j` then Enter opens the third row, `/` then text types into the filter, and keys
// read with one that opens a screen wait for that screen's first data. What the state asks the world to do (quit,
// resend, keep a fresher row in a list) it lists in `effects`, which the view carries out.
import type {DeliveryDetail} from '../../schemas/emulator.js';
import type {Key} from 'ink';
import type {Delivery, WebhookEndpoint} from '../../schemas/index.js';
import {attemptOutcome, attemptSucceeded, nextAttemptText} from '../delivery-detail.js';
import {sanitize} from '../text.js';
import {handleKey, type KeyPress, splitKeys} from './keys.js';
import {filterDeliveries, filterEndpoints, keepSelection, scrollTop} from './model.js';
import type {DetailData, Tone} from './screens.js';

export type Screen =
  | {name: 'endpoints'}
  | {name: 'deliveries'; endpoint: WebhookEndpoint}
  | {name: 'delivery'; endpoint: WebhookEndpoint; deliveryId: string};

export interface Message {
  text: string;
  tone?: Tone;
}

/** What the state asks the view to do; each carries its number so the view does it once. */
export type Effect =
  | {seq: number; kind: 'quit'}
  | {seq: number; kind: 'resend'; deliveryId: string}
  /** The list a delivery was opened from takes the row its detail screen last read. */
  | {seq: number; kind: 'keep'; endpoint: WebhookEndpoint; delivery: Delivery};

type EffectBody = Effect extends infer E ? (E extends Effect ? Omit<E, 'seq'> : never) : never;

export interface TuiState {
  screen: Screen;
  /** The row chosen on each list (the id, wherever it moves). */
  selected: {endpoint?: string; delivery?: string};
  filters: {endpoints: string; deliveries: string};
  /** The filter line is being typed. */
  editing: boolean;
  help: boolean;
  message?: Message;
  /** The first line shown of the delivery screen. */
  detailTop: number;
  /** The first row shown of a list. */
  listTop: number;
  /** Where the selected row was, for when it goes away. */
  previousIndex: number;
  /** The current screen's data as last shown (undefined: not loaded yet), and whether loading it failed. */
  data?: unknown;
  trouble: boolean;
  /** Lines of the body; lines of the delivery screen's text. */
  page: number;
  detailLines: number;
  /** The source can resend (an emulator's). */
  canResend: boolean;
  /** Keys read while the screen they act on had no data yet. */
  pending: KeyPress[];
  quitting: boolean;
  effects: Effect[];
  nextSeq: number;
}

export type Action =
  /** What Ink handed over at once: one key, an escape sequence, or several keys read together. */
  | {type: 'keys'; input: string; key: Key}
  /** What the view shows now: the screen's data (as last fetched) and the body's size. */
  | {type: 'shown'; screen: string; data: unknown; trouble: boolean; page: number; detailLines: number}
  | {type: 'resent'; deliveryId: string; detail: DeliveryDetail; nowMs: number}
  | {type: 'resendFailed'; reason: string}
  /** The view has carried out the effects up to this number. */
  | {type: 'done'; seq: number};

export function initialState(options: {canResend: boolean; page?: number}): TuiState {
  return {
    screen: {name: 'endpoints'},
    selected: {},
    filters: {endpoints: '', deliveries: ''},
    editing: false,
    help: false,
    detailTop: 0,
    listTop: 0,
    previousIndex: 0,
    trouble: false,
    page: options.page ?? 10,
    detailLines: 0,
    canResend: options.canResend,
    pending: [],
    quitting: false,
    effects: [],
    nextSeq: 1,
  };
}

export function screenKey(screen: Screen): string {
  if (screen.name === 'endpoints') return 'endpoints';
  if (screen.name === 'deliveries') return `deliveries:${screen.endpoint.id}`;
  return `delivery:${screen.deliveryId}`;
}

/** The rows of the current list as filtered (none on the delivery screen or before the data came). */
export function listRows(
  state: Pick<TuiState, 'screen' | 'data' | 'filters'>,
): WebhookEndpoint[] | Delivery[] {
  if (!Array.isArray(state.data)) return [];
  if (state.screen.name === 'endpoints')
    return filterEndpoints(state.data as WebhookEndpoint[], state.filters.endpoints);
  if (state.screen.name === 'deliveries')
    return filterDeliveries(state.data as Delivery[], state.filters.deliveries);
  return [];
}

/** The current screen's filter text ('' on the delivery screen). */
export function filterOf(state: Pick<TuiState, 'screen' | 'filters'>): string {
  if (state.screen.name === 'delivery') return '';
  return state.screen.name === 'endpoints' ? state.filters.endpoints : state.filters.deliveries;
}

export interface ListView {
  rows: WebhookEndpoint[] | Delivery[];
  selectedId?: string;
  /** -1 when nothing is selected. */
  selectedIndex: number;
  /** The first row shown. */
  top: number;
}

/** The list as shown: its rows, the selected one (the same id wherever it moved) and the window over them. */
export function listView(
  state: Pick<TuiState, 'screen' | 'data' | 'filters' | 'selected' | 'previousIndex' | 'listTop' | 'page'>,
): ListView {
  const rows = listRows(state);
  const ids = rows.map((r) => r.id);
  const chosen = state.screen.name === 'endpoints' ? state.selected.endpoint : state.selected.delivery;
  const selectedId =
    state.screen.name === 'delivery' ? undefined : keepSelection(ids, chosen, state.previousIndex);
  const selectedIndex = selectedId === undefined ? -1 : ids.indexOf(selectedId);
  const top = scrollTop(Math.max(selectedIndex, 0), state.page, state.listTop, ids.length);
  return {rows, selectedId, selectedIndex, top};
}

/** The first line of the delivery screen shown, within its text. */
export function detailTopOf(state: Pick<TuiState, 'detailTop' | 'detailLines' | 'page'>): number {
  return Math.min(state.detailTop, Math.max(state.detailLines - state.page, 0));
}

export function reduce(state: TuiState, action: Action): TuiState {
  return settle(step(state, action));
}

function step(state: TuiState, action: Action): TuiState {
  switch (action.type) {
    case 'keys':
      if (state.quitting) return state;
      return splitKeys(action.input, action.key).reduce(readKey, state);
    case 'shown': {
      if (action.screen !== screenKey(state.screen)) return state;
      const same =
        action.data === state.data &&
        action.trouble === state.trouble &&
        Math.max(action.page, 1) === state.page &&
        action.detailLines === state.detailLines;
      if (same && state.pending.length === 0) return state;
      const shown = {
        ...state,
        data: action.data,
        trouble: action.trouble,
        page: Math.max(action.page, 1),
        detailLines: action.detailLines,
      };
      // Keys that waited for this screen's data are read now, in the order they came.
      return loading(shown) ? shown : shown.pending.reduce(readKey, {...shown, pending: []});
    }
    case 'resent':
      return {...state, message: resentMessage(action.deliveryId, action.detail, action.nowMs)};
    case 'resendFailed':
      return {...state, message: {text: `Resend failed: ${action.reason}`, tone: 'red'}};
    case 'done':
      return {...state, effects: state.effects.filter((e) => e.seq > action.seq)};
  }
}

/** The list's window and the selected row's place, kept after every change. */
function settle(state: TuiState): TuiState {
  if (state.screen.name === 'delivery') return state;
  const view = listView(state);
  const previousIndex = view.selectedIndex >= 0 ? view.selectedIndex : state.previousIndex;
  if (previousIndex === state.previousIndex && view.top === state.listTop) return state;
  return {...state, previousIndex, listTop: view.top};
}

/** The screen has no data yet: keys wait for it (the help, or a failed load, does not wait). */
function loading(state: TuiState): boolean {
  return state.data === undefined && !state.trouble && !state.help;
}

function withEffect(state: TuiState, effect: EffectBody): TuiState {
  return {
    ...state,
    effects: [...state.effects, {...effect, seq: state.nextSeq} as Effect],
    nextSeq: state.nextSeq + 1,
  };
}

/** One key: read now, or kept for when the screen's data comes (q still quits at once). */
function readKey(state: TuiState, press: KeyPress): TuiState {
  if (state.quitting) return state;
  if (state.pending.length > 0 || (loading(state) && press.input !== 'q'))
    return {...state, pending: [...state.pending, press]};
  let s = state;
  handleKey(
    press.input,
    press.key,
    {
      help: s.help,
      editing: s.editing,
      filter: filterOf(s),
      filterable: s.screen.name !== 'delivery',
      page: s.page,
    },
    {
      quit: () => {
        s = withEffect({...s, quitting: true, pending: []}, {kind: 'quit'});
      },
      showHelp: () => {
        s = {...s, help: true};
      },
      hideHelp: () => {
        s = {...s, help: false};
      },
      move: (by) => {
        s = settle(move(s, by));
      },
      open: () => {
        s = open(s);
      },
      back: () => {
        s = back(s);
      },
      resend: () => {
        s = resend(s);
      },
      setEditing: (on) => {
        s = {...s, editing: on};
      },
      setFilter: (value) => {
        s = settle(setFilter(s, typeof value === 'string' ? value : value(filterOf(s))));
      },
      clearMessage: () => {
        s = {...s, message: undefined};
      },
    },
  );
  return s;
}

function move(state: TuiState, by: number): TuiState {
  if (state.screen.name === 'delivery') {
    const max = Math.max(state.detailLines - state.page, 0);
    return {...state, detailTop: Math.min(Math.max(state.detailTop + by, 0), max)};
  }
  const {rows, selectedIndex} = listView(state);
  if (rows.length === 0) return state;
  const next = Math.min(Math.max((selectedIndex < 0 ? 0 : selectedIndex) + by, 0), rows.length - 1);
  const id = rows[next]?.id;
  return state.screen.name === 'endpoints'
    ? {...state, selected: {...state.selected, endpoint: id}}
    : {...state, selected: {...state.selected, delivery: id}};
}

function setFilter(state: TuiState, value: string): TuiState {
  if (state.screen.name === 'delivery') return state;
  const name = state.screen.name === 'endpoints' ? 'endpoints' : 'deliveries';
  return {...state, filters: {...state.filters, [name]: value}};
}

/** A new screen: its data is not known yet (the view shows what it has for it at once). */
function toScreen(state: TuiState, screen: Screen): TuiState {
  return {...state, screen, data: undefined, trouble: false, editing: false, message: undefined};
}

function open(state: TuiState): TuiState {
  const {rows, selectedId} = listView(state);
  if (state.screen.name === 'endpoints') {
    const endpoint = (rows as WebhookEndpoint[]).find((e) => e.id === selectedId);
    if (!endpoint) return {...state, message: undefined};
    return toScreen(
      {...state, selected: {endpoint: endpoint.id, delivery: undefined}, listTop: 0, previousIndex: 0},
      {name: 'deliveries', endpoint},
    );
  }
  if (state.screen.name === 'deliveries' && selectedId) {
    return toScreen(
      {...state, selected: {...state.selected, delivery: selectedId}, detailTop: 0},
      {name: 'delivery', endpoint: state.screen.endpoint, deliveryId: selectedId},
    );
  }
  return {...state, message: undefined};
}

function back(state: TuiState): TuiState {
  const s: TuiState = {...state, message: undefined, editing: false};
  if (s.screen.name === 'delivery') {
    const shown = s.data as DetailData | undefined;
    const fresh = shown && ('detail' in shown ? shown.detail.delivery : shown.listed);
    const kept = fresh ? withEffect(s, {kind: 'keep', endpoint: s.screen.endpoint, delivery: fresh}) : s;
    return toScreen(kept, {name: 'deliveries', endpoint: s.screen.endpoint});
  }
  if (s.screen.name === 'deliveries') return toScreen({...s, listTop: 0}, {name: 'endpoints'});
  return s;
}

function resend(state: TuiState): TuiState {
  const id =
    state.screen.name === 'delivery'
      ? state.screen.deliveryId
      : state.screen.name === 'deliveries'
        ? listView(state).selectedId
        : undefined;
  if (!id) return state;
  if (!state.canResend)
    return {
      ...state,
      message: {
        text: 'Resend needs the emulator: this API address is not a running emulator’s',
        tone: 'yellow',
      },
    };
  return withEffect(
    {...state, message: {text: `Resending ${id}…`, tone: 'cyan'}},
    {kind: 'resend', deliveryId: id},
  );
}

function resentMessage(id: string, detail: DeliveryDetail, nowMs: number): Message {
  const a = detail.attempts.at(-1);
  const outcome = a ? `attempt #${a.attempt} → ${sanitize(attemptOutcome(a))} (${a.duration_ms} ms)` : 'sent';
  // A resend is outside the schedule: a pending delivery keeps its next attempt, which is worth saying.
  const d = detail.delivery;
  const still =
    d.status === 'pending' && d.next_attempt_at
      ? `; still ${d.status}, the schedule's next attempt is ${nextAttemptText(d.next_attempt_at, nowMs)}`
      : '';
  return {text: `Resent ${id}: ${outcome}${still}`, tone: a && attemptSucceeded(a) ? 'green' : 'red'};
}
