// The delivery browser: endpoints → the selected endpoint's deliveries → one delivery with its attempts and event.
// Every screen is a fixed frame as tall as the terminal (header, column line, body, status, keys); the frame
// writer puts only the lines that changed on screen.
import {type Key, Text, useApp, useInput, useStdout} from 'ink';
import type React from 'react';
import {useCallback, useEffect, useRef, useState} from 'react';
import type {Delivery, WebhookEndpoint} from '../../schemas/index.js';
import {describeTrouble, type TuiSource} from '../../services/tui-source.js';
import {attemptOutcome, attemptSucceeded, nextAttemptText} from '../delivery-detail.js';
import {sanitize} from '../text.js';
import {
  type Backoff,
  filterDeliveries,
  filterEndpoints,
  keepSelection,
  LIVE_BACKOFF,
  scrollTop,
} from './model.js';
import {
  type DetailData,
  deliveryColumns,
  deliveryRow,
  detailBody,
  emptyLines,
  endpointColumns,
  endpointRow,
  helpLines,
  type Tone,
  troubleLines,
} from './screens.js';
import {CHROME_LINES, Frame, StatusLine} from './frame.js';
import {handleKey, type KeyPress, splitKeys} from './keys.js';
import {type ListedEndpoint, showsHealth} from './layout.js';
import {type Live, useLive} from './use-live.js';

export interface AppProps {
  source: TuiSource;
  color: boolean;
  /** Fixed size (tests); otherwise the terminal's, following resizes. */
  size?: {columns: number; rows: number};
  backoff?: Backoff;
}

type Screen =
  | {name: 'endpoints'}
  | {name: 'deliveries'; endpoint: WebhookEndpoint}
  | {name: 'delivery'; endpoint: WebhookEndpoint; deliveryId: string};

interface Message {
  text: string;
  tone?: Tone;
}

function useTerminalSize(fixed?: {columns: number; rows: number}) {
  const {stdout} = useStdout();
  const read = useCallback(
    () => fixed ?? {columns: stdout.columns || 80, rows: stdout.rows || 24},
    [fixed, stdout],
  );
  const [size, setSize] = useState(read);
  useEffect(() => {
    if (fixed) return;
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [fixed, stdout, read]);
  // A fixed size given anew (a test resizing its terminal) is followed as a resize is.
  return fixed ?? size;
}

function screenKey(screen: Screen): string {
  if (screen.name === 'endpoints') return 'endpoints';
  if (screen.name === 'deliveries') return `deliveries:${screen.endpoint.id}`;
  return `delivery:${screen.deliveryId}`;
}

export function App({source, color, size: fixedSize, backoff = LIVE_BACKOFF}: AppProps): React.ReactElement {
  const {exit} = useApp();
  const size = useTerminalSize(fixedSize);
  const [screen, setScreen] = useState<Screen>({name: 'endpoints'});
  const [selected, setSelected] = useState<{endpoint?: string; delivery?: string}>({});
  const [filters, setFilters] = useState<{endpoints: string; deliveries: string}>({
    endpoints: '',
    deliveries: '',
  });
  const [editing, setEditingState] = useState(false);
  // Read by the key handler, which may run again before the next render.
  const editingNow = useRef(false);
  const setEditing = (value: boolean) => {
    editingNow.current = value;
    setEditingState(value);
  };
  const [help, setHelpState] = useState(false);
  // Like editingNow: a key that opens the help is followed, maybe in the same read, by one that closes it.
  const helpNow = useRef(false);
  const setHelp = (value: boolean) => {
    helpNow.current = value;
    setHelpState(value);
  };
  const [message, setMessage] = useState<Message | undefined>();
  const [detailTop, setDetailTop] = useState(0);
  const [listTop, setListTop] = useState(0);
  const previousIndex = useRef(0);
  const cache = useRef(new Map<string, Live<unknown>>()).current;

  const width = Math.max(size.columns, 20);
  // The health column: one more call per refresh of the endpoints screen, for every endpoint at once.
  const health = showsHealth(width, source.endpointHealth !== undefined);
  const fetcher = useCallback(async (): Promise<unknown> => {
    if (screen.name === 'endpoints') {
      const tell = health ? source.endpointHealth : undefined;
      if (!tell) return source.listEndpoints();
      // Health that cannot be read leaves the endpoints as they are, with a "?" in its column.
      const [endpoints, told] = await Promise.all([source.listEndpoints(), tell().catch(() => null)]);
      const of = new Map(told?.map((h) => [h.endpoint_id, h]));
      return endpoints.map((e): ListedEndpoint => ({...e, health: told ? (of.get(e.id) ?? null) : null}));
    }
    if (screen.name === 'deliveries') return source.listDeliveries(screen.endpoint.id);
    if (source.deliveryDetail) return {detail: await source.deliveryDetail(screen.deliveryId)};
    const list = await source.listDeliveries(screen.endpoint.id);
    return {listed: list.find((d) => d.id === screen.deliveryId)};
  }, [screen, source, health]);
  const [live, refresh] = useLive<unknown>(screenKey(screen), fetcher, cache, backoff);
  // A terminal widened enough for the health column reads it at once, not at the next refresh.
  const healthShown = useRef(health);
  useEffect(() => {
    if (health && !healthShown.current && screen.name === 'endpoints') refresh();
    healthShown.current = health;
  }, [health, refresh, screen.name]);

  const paint = (tone: Tone | undefined) => (color ? tone : undefined);
  const height = Math.max(size.rows, CHROME_LINES + 1);
  const bodyHeight = height - CHROME_LINES;

  // ---- what the current list shows, and which row is selected --------------------------------------------
  const endpoints =
    screen.name === 'endpoints' && Array.isArray(live.data)
      ? filterEndpoints(live.data as WebhookEndpoint[], filters.endpoints)
      : [];
  const deliveries =
    screen.name === 'deliveries' && Array.isArray(live.data)
      ? filterDeliveries(live.data as Delivery[], filters.deliveries)
      : [];
  const rowIds = screen.name === 'endpoints' ? endpoints.map((e) => e.id) : deliveries.map((d) => d.id);
  const selectedId =
    screen.name === 'endpoints'
      ? keepSelection(rowIds, selected.endpoint, previousIndex.current)
      : screen.name === 'deliveries'
        ? keepSelection(rowIds, selected.delivery, previousIndex.current)
        : undefined;
  const selectedIndex = selectedId === undefined ? -1 : rowIds.indexOf(selectedId);
  const top = scrollTop(Math.max(selectedIndex, 0), bodyHeight, listTop, rowIds.length);
  useEffect(() => {
    if (selectedIndex >= 0) previousIndex.current = selectedIndex;
    if (top !== listTop) setListTop(top);
  });

  const detailLines =
    screen.name === 'delivery' ? detailBody(live.data as DetailData | undefined, source, width, paint) : [];
  const maxDetailTop = Math.max(detailLines.length - bodyHeight, 0);

  const select = (id: string | undefined) => {
    if (id === undefined) return;
    setSelected((s) => (screen.name === 'endpoints' ? {...s, endpoint: id} : {...s, delivery: id}));
  };
  // Moves made before the next render (keys that arrive together) add up: they start from the latest move.
  const cursor = useRef(selectedIndex);
  cursor.current = selectedIndex;
  const move = (by: number) => {
    if (screen.name === 'delivery') {
      setDetailTop((t) => Math.min(Math.max(t + by, 0), maxDetailTop));
      return;
    }
    if (rowIds.length === 0) return;
    const next = Math.min(Math.max((cursor.current < 0 ? 0 : cursor.current) + by, 0), rowIds.length - 1);
    cursor.current = next;
    select(rowIds[next]);
  };
  // The row under the cursor now: a move read together with this key has not been rendered yet.
  const current = () => (cursor.current >= 0 ? rowIds[cursor.current] : selectedId) ?? selectedId;
  const open = () => {
    const id = current();
    if (screen.name === 'endpoints') {
      const endpoint = endpoints.find((e) => e.id === id);
      if (!endpoint) return;
      setSelected((s) => ({...s, endpoint: endpoint.id, delivery: undefined}));
      setListTop(0);
      setEditing(false);
      setScreen({name: 'deliveries', endpoint});
    } else if (screen.name === 'deliveries' && id) {
      setSelected((s) => ({...s, delivery: id}));
      setDetailTop(0);
      setEditing(false);
      setScreen({name: 'delivery', endpoint: screen.endpoint, deliveryId: id});
    }
    setMessage(undefined);
  };
  // The list a delivery was opened from takes what its detail screen last read, so going back never shows a row
  // older than the screen just left (the list then refreshes as usual).
  const keepInList = (endpoint: WebhookEndpoint, fresh: Delivery) => {
    const key = screenKey({name: 'deliveries', endpoint});
    const listed = cache.get(key);
    if (!Array.isArray(listed?.data)) return;
    const rows = listed.data as Delivery[];
    if (!rows.some((d) => d.id === fresh.id)) return;
    cache.set(key, {...listed, data: rows.map((d) => (d.id === fresh.id ? fresh : d))});
  };
  const back = () => {
    setMessage(undefined);
    setEditing(false);
    if (screen.name === 'delivery') {
      const shown = live.data as DetailData | undefined;
      const fresh = shown && ('detail' in shown ? shown.detail.delivery : shown.listed);
      if (fresh) keepInList(screen.endpoint, fresh);
      setScreen({name: 'deliveries', endpoint: screen.endpoint});
    } else if (screen.name === 'deliveries') {
      setListTop(0);
      setScreen({name: 'endpoints'});
    }
  };
  const resend = () => {
    const id =
      screen.name === 'delivery' ? screen.deliveryId : screen.name === 'deliveries' ? current() : undefined;
    if (!id) return;
    if (!source.resend) {
      setMessage({
        text: 'Resend needs the emulator: this API address is not a running emulator’s',
        tone: 'yellow',
      });
      return;
    }
    setMessage({text: `Resending ${id}…`, tone: 'cyan'});
    source.resend(id).then(
      (detail) => {
        const a = detail.attempts.at(-1);
        const outcome = a
          ? `attempt #${a.attempt} → ${sanitize(attemptOutcome(a))} (${a.duration_ms} ms)`
          : 'sent';
        // A resend is outside the schedule: a pending delivery keeps its next attempt, which is worth saying.
        const d = detail.delivery;
        const still =
          d.status === 'pending' && d.next_attempt_at
            ? `; still ${d.status}, the schedule's next attempt is ${nextAttemptText(d.next_attempt_at, source.now?.() ?? Date.now())}`
            : '';
        setMessage({
          text: `Resent ${id}: ${outcome}${still}`,
          tone: a && attemptSucceeded(a) ? 'green' : 'red',
        });
        refresh();
      },
      (err: unknown) => setMessage({text: `Resend failed: ${describeTrouble(err).message}`, tone: 'red'}),
    );
  };

  const filterName = screen.name === 'endpoints' ? 'endpoints' : 'deliveries';
  const filter = screen.name === 'delivery' ? '' : filters[filterName];
  // From the latest value, not this render's: keys typed faster than a frame each count.
  const setFilter = (value: string | ((current: string) => string)) =>
    setFilters((f) => ({...f, [filterName]: typeof value === 'string' ? value : value(f[filterName])}));

  // Keys read together (typed faster than a frame, held down, pasted) are handled one by one, each by the
  // handler of the render after the one before it: `j` then Enter opens the row `j` moved to, Enter then `j`
  // moves on the screen Enter opened.
  const pending = useRef<KeyPress[]>([]);
  const [, setTurn] = useState(0);
  const onKey = useRef<(input: string, key: Key) => void>(() => undefined);
  const next = useRef<() => void>(() => undefined);
  next.current = () => {
    // A screen still loading its first data has no rows yet: keys read with the one that opened it wait for them.
    // q still quits at once.
    const loading = live.data === undefined && !live.trouble && !helpNow.current;
    if (loading && pending.current[0]?.input !== 'q') return;
    const press = pending.current.shift();
    if (!press) return;
    onKey.current(press.input, press.key);
    // A render comes next even when this key changed nothing, and its effect takes the next key.
    if (pending.current.length > 0) setTurn((n) => n + 1);
  };
  useEffect(() => {
    next.current();
  });
  // One subscription for the app's life (Ink re-subscribes whenever the handler changes).
  useInput(
    useCallback((input: string, key: Key) => {
      const idle = pending.current.length === 0;
      pending.current.push(...splitKeys(input, key));
      if (idle) next.current();
    }, []),
  );
  onKey.current = (input, key) =>
    handleKey(
      input,
      key,
      {
        help: helpNow.current,
        editing: editingNow.current,
        filter,
        filterable: screen.name !== 'delivery',
        page: bodyHeight,
      },
      {
        quit: exit,
        showHelp: () => setHelp(true),
        hideHelp: () => setHelp(false),
        move,
        open,
        back,
        resend,
        setEditing,
        setFilter,
        clearMessage: () => setMessage(undefined),
      },
    );

  // ---- the frame --------------------------------------------------------------------------------------------
  const title =
    screen.name === 'endpoints'
      ? 'Endpoints'
      : screen.name === 'deliveries'
        ? `Deliveries · ${screen.endpoint.id}`
        : `Delivery · ${screen.deliveryId}`;
  // The address is said once, on the first screen; deeper screens need the room for their ids.
  const where =
    screen.name === 'endpoints' ? ` · ${source.apiUrl}${source.emulator ? ' (emulator)' : ''}` : '';
  const freshness = freshnessText(live);
  const freshnessTone: Tone | undefined = live.trouble ? 'red' : undefined;

  const {columns, body} = help
    ? {columns: <Text bold>Keys</Text>, body: helpLines(source, paint)}
    : live.data === undefined
      ? {
          columns: ' ',
          body: live.trouble ? troubleLines(live.trouble, source, paint) : [<Text key="l">Loading…</Text>],
        }
      : screen.name === 'delivery'
        ? detailView(detailLines, Math.min(detailTop, maxDetailTop), bodyHeight, paint)
        : listView({
            screen,
            source,
            filter,
            rows: screen.name === 'endpoints' ? endpoints : deliveries,
            selectedId,
            top,
            bodyHeight,
            width,
            health,
            paint,
          });

  return (
    <Frame
      width={width}
      height={height}
      paint={paint}
      title={title}
      where={where}
      freshness={freshness}
      freshnessTone={freshnessTone}
      columns={columns}
      body={body}
      status={
        <StatusLine
          paint={paint}
          editing={editing}
          filter={filter}
          message={message}
          staleBecause={live.trouble && live.data !== undefined ? live.trouble.message : undefined}
        />
      }
      keys={keyHints(screen, source, help, editing)}
    />
  );
}

interface View {
  columns: React.ReactNode;
  body: React.ReactNode[];
}

/** The body of the endpoints or deliveries screen: its rows from `top`, or what to do when there are none. */
function listView(v: {
  screen: Exclude<Screen, {name: 'delivery'}>;
  source: TuiSource;
  filter: string;
  rows: WebhookEndpoint[] | Delivery[];
  selectedId: string | undefined;
  top: number;
  bodyHeight: number;
  width: number;
  /** The endpoints screen shows the health column. */
  health: boolean;
  paint: (tone: Tone | undefined) => Tone | undefined;
}): View {
  const {screen, source, filter, width, paint} = v;
  const shown = v.rows.slice(v.top, v.top + v.bodyHeight);
  if (screen.name === 'endpoints') {
    return {
      columns: endpointColumns(width, v.health),
      body:
        v.rows.length === 0
          ? emptyLines(
              filter
                ? `No endpoint matches “${filter}” (esc clears the filter).`
                : source.emulator
                  ? `No webhook endpoints yet: add one with \`${source.svc ?? 'svc'} emulator webhooks create --url URL --events sandbox.ready\`.`
                  : 'No webhook endpoints yet. Endpoints are added on the account page.',
            )
          : (shown as ListedEndpoint[]).map((e) =>
              endpointRow(e, e.id === v.selectedId, width, paint, v.health),
            ),
    };
  }
  const nowMs = source.now?.() ?? Date.now();
  return {
    columns: deliveryColumns(width),
    body:
      v.rows.length === 0
        ? emptyLines(
            filter
              ? `No delivery matches “${filter}” (esc clears the filter).`
              : source.emulator
                ? `No deliveries yet: try \`${source.svc ?? 'svc'} trigger ${screen.endpoint.events[0] ?? 'sandbox.ready'}\`.`
                : 'No deliveries yet.',
          )
        : (shown as Delivery[]).map((d) => deliveryRow(d, d.id === v.selectedId, width, nowMs, paint)),
  };
}

/** The detail screen's body from line `shownTop`, and where in it the view is. */
function detailView(
  lines: React.ReactNode[],
  shownTop: number,
  bodyHeight: number,
  paint: (tone: Tone | undefined) => Tone | undefined,
): View {
  const below = lines.length - shownTop - bodyHeight;
  return {
    body: lines.slice(shownTop, shownTop + bodyHeight),
    columns: (
      <Text color={paint('gray')}>
        {below > 0 || shownTop > 0
          ? `lines ${shownTop + 1}-${Math.min(shownTop + bodyHeight, lines.length)} of ${lines.length} · j/k scroll`
          : ' '}
      </Text>
    ),
  };
}

function freshnessText(live: Live<unknown>): string {
  const at = (ms: number) => new Date(ms).toLocaleTimeString('en-GB', {hour12: false});
  if (live.trouble) {
    const retry = live.retryAt
      ? ` · retrying in ${Math.max(1, Math.round((live.retryAt - Date.now()) / 1000))} s`
      : '';
    return live.refreshedAt ? `stale since ${at(live.refreshedAt)}${retry}` : `failed${retry}`;
  }
  if (live.refreshedAt) return `refreshed ${at(live.refreshedAt)}`;
  return 'loading…';
}

function keyHints(screen: Screen, source: TuiSource, help: boolean, editing: boolean): string {
  if (help) return 'any key closes the help';
  if (editing) return 'type to filter · ↑↓ move · enter keep · esc clear';
  const resend = source.emulator ? ' · r resend' : '';
  if (screen.name === 'endpoints') return '↑↓/jk move · enter open · / filter · ? help · q quit';
  if (screen.name === 'deliveries')
    return `↑↓/jk move · enter open · esc back · / filter${resend} · ? help · q quit`;
  return `↑↓/jk scroll · esc back${resend} · ? help · q quit`;
}
