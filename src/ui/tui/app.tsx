// The delivery browser: endpoints → the selected endpoint's deliveries → one delivery with its attempts and event.
// Every screen is a fixed frame as tall as the terminal (header, column line, body, status, keys); the frame
// writer puts only the lines that changed on screen.
import {type Key, Text, useApp, useInput, useStdout} from 'ink';
import type React from 'react';
import {useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState} from 'react';
import type {Delivery, WebhookEndpoint} from '../../schemas/index.js';
import type {TuiSource} from '../../services/tui-source.js';
import type {EndpointDiagnosis} from '../../services/webhooks/diagnose.js';
import {describeTrouble} from './trouble.js';
import {type Backoff, LIVE_BACKOFF} from './model.js';
import {
  type DetailData,
  deliveryColumns,
  deliveryRow,
  detailBody,
  emptyLines,
  endpointColumns,
  endpointRow,
  helpLines,
  issuePanel,
  timeColumn,
  type Tone,
  troubleLines,
} from './screens.js';
import {CHROME_LINES, Frame, StatusLine} from './frame.js';
import {type ListedEndpoint, showsHealth} from './layout.js';
import {
  type Action,
  type Effect,
  detailTopOf,
  filterOf,
  initialState,
  type ListView,
  listView,
  reduce,
  type Screen,
  screenKey,
  type TuiState,
} from './state.js';
import {type Live, useLive} from './use-live.js';

export interface AppProps {
  source: TuiSource;
  color: boolean;
  /** Fixed size (tests); otherwise the terminal's, following resizes. */
  size?: {columns: number; rows: number};
  backoff?: Backoff;
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

/** What a screen shows, fetched: the endpoints (with their health where shown), a list, or one delivery. */
async function fetchScreen(screen: Screen, source: TuiSource, health: boolean): Promise<unknown> {
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
}

/** rows with the delivery of the same id replaced by fresh, or undefined when rows do not hold it. */
function withRow(rows: unknown, fresh: Delivery): Delivery[] | undefined {
  if (!Array.isArray(rows) || !rows.some((d: Delivery) => d.id === fresh.id)) return undefined;
  return (rows as Delivery[]).map((d) => (d.id === fresh.id ? fresh : d));
}

/** The list a delivery was opened from takes what its detail screen last read (the list then refreshes). */
function keepInList(cache: Map<string, Live<unknown>>, endpoint: WebhookEndpoint, fresh: Delivery): void {
  const key = screenKey({name: 'deliveries', endpoint});
  const listed = cache.get(key);
  const rows = withRow(listed?.data, fresh);
  if (listed && rows) cache.set(key, {...listed, data: rows});
}

/**
 * What a screen shows of data: on a list gone back to, the rows kept from the detail screen while that effect
 * waits to be carried out, so that the first frame drawn is already the fresher one.
 */
function withPendingKeeps(screen: Screen, data: unknown, effects: readonly Effect[]): unknown {
  if (screen.name !== 'deliveries') return data;
  let shown = data;
  for (const effect of effects) {
    if (effect.kind !== 'keep' || effect.endpoint.id !== screen.endpoint.id) continue;
    shown = withRow(shown, effect.delivery) ?? shown;
  }
  return shown;
}

/** The state's effects, each carried out once: quit, resend (its answer reduced in turn), keep a fresher row. */
function useStateEffects(
  state: TuiState,
  dispatch: React.Dispatch<Action>,
  run: {source: TuiSource; cache: Map<string, Live<unknown>>; exit: () => void; refresh: () => void},
): void {
  const done = useRef(0);
  const latest = useRef(run);
  latest.current = run;
  // Before anything else is read or drawn: the list gone back to shows the row kept in it at once.
  useLayoutEffect(() => {
    const {source, cache, exit} = latest.current;
    const fresh = state.effects.filter((e) => e.seq > done.current);
    if (fresh.length === 0) return;
    for (const effect of fresh) {
      if (effect.kind === 'quit') exit();
      else if (effect.kind === 'keep') keepInList(cache, effect.endpoint, effect.delivery);
      else
        source.resend?.(effect.deliveryId).then(
          (detail) => {
            dispatch({
              type: 'resent',
              deliveryId: effect.deliveryId,
              detail,
              nowMs: source.now?.() ?? Date.now(),
            });
            latest.current.refresh();
          },
          (err: unknown) => dispatch({type: 'resendFailed', reason: describeTrouble(err).message}),
        );
    }
    done.current = fresh.at(-1)?.seq ?? done.current;
    dispatch({type: 'done', seq: done.current});
  }, [state.effects, dispatch]);
}

export function App({source, color, size: fixedSize, backoff = LIVE_BACKOFF}: AppProps): React.ReactElement {
  const {exit} = useApp();
  const size = useTerminalSize(fixedSize);
  const width = Math.max(size.columns, 20);
  const height = Math.max(size.rows, CHROME_LINES + 1);
  const bodyHeight = height - CHROME_LINES;
  const [state, dispatch] = useReducer(reduce, {canResend: !!source.resend, page: bodyHeight}, initialState);
  const {screen} = state;
  const cache = useRef(new Map<string, Live<unknown>>()).current;
  // The health column: one more call per refresh of the endpoints screen, for every endpoint at once.
  const health = showsHealth(width, source.endpointHealth !== undefined);
  const fetcher = useCallback(() => fetchScreen(screen, source, health), [screen, source, health]);
  const [live, refresh] = useLive<unknown>(screenKey(screen), fetcher, cache, backoff);
  // A terminal widened enough for the health column reads it at once, not at the next refresh.
  const healthShown = useRef(health);
  useEffect(() => {
    if (health && !healthShown.current && screen.name === 'endpoints') refresh();
    healthShown.current = health;
  }, [health, refresh, screen.name]);
  const paint = (tone: Tone | undefined) => (color ? tone : undefined);
  // The endpoint screen's issues: refreshed beside its deliveries, kept apart so a slow diagnosis never holds the list.
  const diagnosisFetcher = useCallback(
    async (): Promise<EndpointDiagnosis | null> =>
      screen.name === 'deliveries' && source.diagnose ? source.diagnose(screen.endpoint) : null,
    [screen, source],
  );
  const [diagnosis] = useLive<EndpointDiagnosis | null>(
    `diagnosis:${screenKey(screen)}`,
    diagnosisFetcher,
    cache,
    backoff,
  );
  const panel =
    screen.name === 'deliveries' && !state.help
      ? issuePanel(diagnosis.data, Math.floor(bodyHeight / 2), paint, source.svc)
      : [];
  // The list pages by the rows it has under the panel.
  const listHeight = bodyHeight - panel.length;
  useStateEffects(state, dispatch, {source, cache, exit, refresh});
  // One subscription for the app's life (Ink re-subscribes whenever the handler changes).
  useInput(useCallback((input: string, key: Key) => dispatch({type: 'keys', input, key}), []));

  // What the screen shows is what was last fetched for it, told to the state so the keys act on the same rows.
  const data = useMemo(
    () => withPendingKeeps(screen, live.data, state.effects),
    [screen, live.data, state.effects],
  );
  const shown = {...state, data, page: listHeight};
  const detailLines =
    screen.name === 'delivery' ? detailBody(data as DetailData | undefined, source, width, paint) : [];
  const trouble = live.trouble !== undefined;
  // In the same turn as the render: a key read next acts on the rows this render shows.
  useLayoutEffect(() => {
    dispatch({
      type: 'shown',
      screen: screenKey(screen),
      data,
      trouble,
      page: listHeight,
      detailLines: detailLines.length,
    });
  }, [screen, data, trouble, listHeight, detailLines.length]);
  const filter = filterOf(state);
  const list = listView(shown);

  const {columns, body} = state.help
    ? {columns: <Text bold>Keys</Text>, body: helpLines(source, paint)}
    : data === undefined
      ? {
          columns: ' ',
          body: live.trouble ? troubleLines(live.trouble, source, paint) : [<Text key="l">Loading…</Text>],
        }
      : screen.name === 'delivery'
        ? detailView(detailLines, detailTopOf({...shown, detailLines: detailLines.length}), bodyHeight, paint)
        : withPanel(
            panel,
            rowsView({screen, source, filter, list, bodyHeight: listHeight, width, health, paint}),
          );
  return (
    <Frame
      width={width}
      height={height}
      paint={paint}
      title={titleOf(screen)}
      // The address is said once, on the first screen; deeper screens need the room for their ids.
      where={screen.name === 'endpoints' ? ` · ${source.apiUrl}${source.emulator ? ' (emulator)' : ''}` : ''}
      freshness={freshnessText(live)}
      freshnessTone={live.trouble ? 'red' : undefined}
      columns={columns}
      body={body}
      status={
        <StatusLine
          paint={paint}
          editing={state.editing}
          filter={filter}
          message={state.message}
          staleBecause={live.trouble && data !== undefined ? live.trouble.message : undefined}
        />
      }
      keys={keyHints(screen, source, state.help, state.editing)}
    />
  );
}

function titleOf(screen: Screen): string {
  if (screen.name === 'endpoints') return 'Endpoints';
  if (screen.name === 'deliveries') return `Deliveries · ${screen.endpoint.id}`;
  return `Delivery · ${screen.deliveryId}`;
}

interface View {
  columns: React.ReactNode;
  body: React.ReactNode[];
}

/** The body of the endpoints or deliveries screen: its rows from `top`, or what to do when there are none. */
function rowsView(v: {
  screen: Exclude<Screen, {name: 'delivery'}>;
  source: TuiSource;
  filter: string;
  list: ListView;
  bodyHeight: number;
  width: number;
  /** The endpoints screen shows the health column. */
  health: boolean;
  paint: (tone: Tone | undefined) => Tone | undefined;
}): View {
  const {screen, source, filter, width, paint} = v;
  const {rows, selectedId, top} = v.list;
  const shown = rows.slice(top, top + v.bodyHeight);
  if (screen.name === 'endpoints') {
    return {
      columns: endpointColumns(width, v.health),
      body:
        rows.length === 0
          ? emptyLines(
              filter
                ? `No endpoint matches “${filter}” (esc clears the filter).`
                : source.emulator
                  ? `No webhook endpoints yet: add one with \`${source.svc ?? 'svc'} emulator webhooks create --url URL --events sandbox.ready\`.`
                  : 'No webhook endpoints yet. Endpoints are added on the account page.',
            )
          : (shown as ListedEndpoint[]).map((e) =>
              endpointRow(e, e.id === selectedId, width, paint, v.health),
            ),
    };
  }
  const nowMs = source.now?.() ?? Date.now();
  // One form for the whole list, so the column does not change width as the window scrolls.
  const time = timeColumn((rows as Delivery[]).map((d) => d.created_at));
  return {
    columns: deliveryColumns(width, time),
    body:
      rows.length === 0
        ? emptyLines(
            filter
              ? `No delivery matches “${filter}” (esc clears the filter).`
              : source.emulator
                ? `No deliveries yet: try \`${source.svc ?? 'svc'} trigger ${screen.endpoint.events[0] ?? 'sandbox.ready'}\`.`
                : 'No deliveries yet.',
          )
        : (shown as Delivery[]).map((d) => deliveryRow(d, d.id === selectedId, width, nowMs, paint, time)),
  };
}

/** The endpoint screen's issues above its rows. */
function withPanel(panel: React.ReactNode[], view: View): View {
  return panel.length === 0 ? view : {...view, body: [...panel, ...view.body]};
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
