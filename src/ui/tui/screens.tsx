// What each screen of the browser shows, line by line: endpoint and delivery rows fitted to the width, one
// delivery's attempts and event, the help, and the screens for trouble. The frame around them is app.tsx.
import {MAX_DELIVERIES_LISTED} from '../../definitions.js';
import {Text} from 'ink';
import type React from 'react';
import type {DeliveryDetail} from '../../schemas/emulator.js';
import type {Delivery} from '../../schemas/index.js';
import type {TuiSource} from '../../services/tui-source.js';
import type {EndpointDiagnosis} from '../../services/webhooks/diagnose.js';
import type {Trouble} from './trouble.js';
import {
  attemptOutcome,
  attemptSucceeded,
  bodyLines,
  clockTime,
  lastCodeText,
  nextAttemptText,
  prettyEvent,
  withoutDetail,
} from '../delivery-detail.js';
import {sanitize} from '../text.js';
import {cell, endpointCells, endpointColumnsText, type HealthState, type ListedEndpoint} from './layout.js';
import {relativeTime} from '../time.js';

export type Tone = 'green' | 'red' | 'yellow' | 'cyan' | 'gray';
/** A colour, or none when colour is off (NO_COLOR, not a terminal). */
export type Painter = (tone: Tone | undefined) => Tone | undefined;

/** A detail screen's data: the emulator's detail, or the list record alone (the API lists deliveries only). */
export type DetailData = {detail: DeliveryDetail} | {listed: Delivery | undefined};

const ATTEMPT_BODY_LINES = 6;

export function emptyLines(text: string): React.ReactNode[] {
  return [
    <Text key="e" wrap="wrap">
      {text}
    </Text>,
  ];
}

export function troubleLines(trouble: Trouble, source: TuiSource, paint: Painter): React.ReactNode[] {
  const lines: [string, Tone | undefined][] = [];
  if (trouble.kind === 'unauthorized') {
    const login = `${source.svc ?? 'svc'} login --api-url ${source.apiUrl}`;
    lines.push(
      ['Not logged in, or the API key was rejected (401).', 'red'],
      [sanitize(trouble.message), undefined],
      [`Log in from another terminal (\`${login} < key.txt\`): this screen retries on its own.`, undefined],
    );
  } else if (trouble.kind === 'vault_unavailable') {
    lines.push(
      ['The service cannot list deliveries right now (503 vault_unavailable).', 'red'],
      [sanitize(trouble.message), undefined],
      ['The deployment has no vault key; this screen retries on its own.', undefined],
    );
  } else if (trouble.kind === 'emulator_stopped') {
    lines.push(
      [sanitize(trouble.message), 'red'],
      ['This screen retries on its own, and shows the emulator again once it runs.', undefined],
    );
  } else if (trouble.kind === 'network') {
    lines.push(
      [`Cannot reach ${source.apiUrl}.`, 'red'],
      [sanitize(trouble.message), undefined],
      [
        source.emulator
          ? `Is the emulator still running (\`${source.svc ?? 'svc'} emulator status\`)? Retrying on its own.`
          : 'Retrying on its own.',
        undefined,
      ],
    );
  } else {
    lines.push(['Could not load this screen.', 'red'], [sanitize(trouble.message), undefined]);
  }
  return lines.map(([text, tone], i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: fixed lines
    <Text key={i} wrap="wrap" color={paint(tone)}>
      {text}
    </Text>
  ));
}

export function helpLines(source: TuiSource, paint: Painter): React.ReactNode[] {
  const rows: [string, string][] = [
    ['↑ ↓  j k', 'move (scroll on a delivery)'],
    ['PgUp PgDn  g G', 'page, first, last'],
    ['enter  → l', 'open the endpoint or delivery'],
    ['esc  ← h', 'back (esc first clears a filter)'],
    ['/', 'filter by event type, status or id (endpoints: id, URL, events)'],
    [
      'r',
      source.emulator ? 'resend the delivery now (a manual attempt)' : 'resend (only against the emulator)',
    ],
    ['?', 'this help'],
    ['q  Ctrl-C', 'quit'],
  ];
  const lines = rows.map(([keys, what]) => (
    <Text key={keys} wrap="truncate-end">
      <Text bold color={paint('cyan')}>
        {keys.padEnd(16)}
      </Text>
      {what}
    </Text>
  ));
  lines.push(
    <Text key="gap"> </Text>,
    // One frame row each: a wrapped line would start its continuation with the space it broke at.
    <Text key="live" wrap="truncate-end" color={paint('gray')}>
      Screens refresh by themselves, more often while things change, and at once after a resend.
    </Text>,
    <Text key="whole" wrap="truncate-end" color={paint('gray')}>
      Whole answers: `{source.svc ?? 'svc'} webhooks deliveries show DELIVERY_ID`.
    </Text>,
  );
  return lines;
}

// ---- endpoints ------------------------------------------------------------------------------------------------

/** `health`: the health column is shown (see showsHealth). */
export function endpointColumns(width: number, health = false): React.ReactNode {
  return (
    <Text bold wrap="truncate-end">
      {endpointColumnsText(width, health)}
    </Text>
  );
}

const HEALTH_TONE: Record<HealthState, Tone | undefined> = {
  ok: 'green',
  failing: 'red',
  retrying: 'yellow',
  sending: undefined,
  quiet: 'gray',
  unknown: 'gray',
};

export function endpointRow(
  e: ListedEndpoint,
  isSelected: boolean,
  width: number,
  paint: Painter,
  health = false,
): React.ReactNode {
  const c = endpointCells(e, width, health);
  return (
    <Text key={e.id} wrap="truncate-end" inverse={isSelected}>
      {isSelected ? '> ' : '  '}
      {c.id}
      {'  '}
      <Text color={paint(isSelected ? undefined : 'cyan')}>{c.url}</Text>
      {'  '}
      {c.events}
      <Text color={paint(isSelected ? undefined : HEALTH_TONE[c.healthState])}>{c.health}</Text>
      {c.description}
    </Text>
  );
}

// ---- deliveries -----------------------------------------------------------------------------------------------

const STATUS_TONE: Record<string, Tone> = {succeeded: 'green', pending: 'yellow', failed: 'red'};

/**
 * How the TIME column reads a list's rows: the time of day when they are all from one day, else the day and the
 * minute (`Nov 27 00:51`), so rows a day apart never read `00:51:43` above `02:09:13` as if an hour apart.
 */
export interface TimeColumn {
  width: number;
  format(iso: string): string;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function localTime(d: Date): string {
  return d.toLocaleTimeString('en-GB', {hour12: false});
}

function localDay(d: Date): string {
  return `${MONTHS[d.getMonth()]} ${String(d.getDate()).padStart(2, '0')}`;
}

/** The TIME column for rows created at these times (local time, as the rest of the terminal). */
export function timeColumn(createdAt: readonly string[]): TimeColumn {
  const days = new Set(
    createdAt
      .map((iso) => new Date(iso))
      .filter((d) => !Number.isNaN(d.getTime()))
      .map((d) => d.toDateString()),
  );
  const withDay = days.size > 1;
  return {
    width: withDay ? 12 : 8,
    format: (iso) => {
      const d = new Date(iso);
      if (Number.isNaN(d.getTime())) return '-';
      return withDay ? `${localDay(d)} ${localTime(d).slice(0, 5)}` : localTime(d);
    },
  };
}

const TIME_OF_DAY = timeColumn([]);

function deliveryLayout(width: number, time: TimeColumn) {
  // time, type, status, attempts, code, next; the delivery id only where it fits whole.
  const fixed = 2 + time.width + 2 + 15 + 2 + 9 + 2 + 3 + 2 + 4 + 2;
  const withId = width >= fixed + 14 + 2 + 28;
  return {next: Math.max(Math.min(width - fixed - (withId ? 30 : 0), 16), 4), withId};
}

export function deliveryColumns(width: number, time: TimeColumn = TIME_OF_DAY): React.ReactNode {
  const l = deliveryLayout(width, time);
  return (
    <Text bold wrap="truncate-end">
      {`  ${cell('TIME', time.width)}  ${cell('EVENT', 15)}  ${cell('STATUS', 9)}  ${cell('ATT', 3)}  ${cell('CODE', 4)}  ${cell('NEXT ATTEMPT', l.next)}${l.withId ? `  ${cell('ID', 28)}` : ''}`}
    </Text>
  );
}

export function deliveryRow(
  d: Delivery,
  isSelected: boolean,
  width: number,
  nowMs: number,
  paint: Painter,
  time: TimeColumn = TIME_OF_DAY,
): React.ReactNode {
  const l = deliveryLayout(width, time);
  const code = lastCodeText(d);
  const next = d.status === 'pending' ? nextAttemptText(d.next_attempt_at, nowMs) : '-';
  return (
    <Text key={d.id} wrap="truncate-end" inverse={isSelected}>
      {isSelected ? '> ' : '  '}
      {cell(time.format(d.created_at), time.width)}
      {'  '}
      {cell(sanitize(d.event_type), 15)}
      {'  '}
      <Text color={paint(STATUS_TONE[d.status])}>{cell(d.status, 9)}</Text>
      {'  '}
      {cell(String(d.attempts), 3)}
      {'  '}
      <Text
        color={paint(
          d.last_status_code !== null && d.last_status_code < 300
            ? 'green'
            : code === '-'
              ? undefined
              : 'red',
        )}
      >
        {cell(code, 4)}
      </Text>
      {'  '}
      {cell(next, l.next)}
      {l.withId ? `  ${cell(d.id, 28)}` : ''}
    </Text>
  );
}

/**
 * The endpoint screen's issues panel, above its deliveries: each issue's cause and its evidence with the check
 * that reproduces it, at most `maxLines` lines (the list keeps the rest); nothing for a healthy endpoint.
 */
export function issuePanel(
  diagnosis: EndpointDiagnosis | null | undefined,
  maxLines: number,
  paint: Painter,
  svc = 'svc',
): React.ReactNode[] {
  if (!diagnosis || diagnosis.issues.length === 0 || maxLines < 3) return [];
  const room = Math.floor((maxLines - 2) / 2);
  const shown = diagnosis.issues.slice(0, room);
  const more = diagnosis.issues.length - shown.length;
  const lines: React.ReactNode[] = [
    <Text key="head" bold wrap="truncate-end" color={paint('red')}>
      {`Issues (${diagnosis.issues.length})${more > 0 ? `, ${more} more` : ''} · all of them: ${svc} webhooks diagnose ${diagnosis.endpoint_id}`}
    </Text>,
  ];
  for (const issue of shown) {
    lines.push(
      <Text key={`${issue.cause}:t`} wrap="truncate-end">
        <Text color={paint('red')}>{'✗ '}</Text>
        {issue.title}
      </Text>,
      <Text key={`${issue.cause}:e`} wrap="truncate-end" color={paint('gray')}>
        {`  check ${issue.check} · ${sanitize(issue.evidence)}`}
      </Text>,
    );
  }
  lines.push(<Text key="gap"> </Text>);
  return lines;
}

// ---- one delivery ---------------------------------------------------------------------------------------------

export function detailBody(
  data: DetailData | undefined,
  source: TuiSource,
  width: number,
  paint: Painter,
): React.ReactNode[] {
  if (!data) return [];
  const lines: React.ReactNode[] = [];
  let n = 0;
  const line = (node: React.ReactNode) => {
    lines.push(
      <Text key={n++} wrap="truncate-end">
        {node}
      </Text>,
    );
  };
  const delivery = 'detail' in data ? data.detail.delivery : data.listed;
  if (!delivery) {
    line(`This delivery is no longer among the endpoint’s ${MAX_DELIVERIES_LISTED} most recent.`);
    return lines;
  }
  const nowMs = source.now?.() ?? Date.now();
  const label = (text: string) => <Text bold>{text.padEnd(10)}</Text>;
  line(
    <>
      {label('Status')}
      <Text color={paint(STATUS_TONE[delivery.status])}>{delivery.status}</Text>
      {` · ${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`}
      {delivery.last_status_code === null ? '' : ` · last answer ${delivery.last_status_code}`}
      {delivery.status === 'pending' && delivery.next_attempt_at
        ? ` · next ${nextAttemptText(delivery.next_attempt_at, nowMs)}`
        : ''}
    </>,
  );
  line(
    <>
      {label('Event')}
      {sanitize(delivery.event_type)} {delivery.event_id}
    </>,
  );
  line(
    <>
      {label('Created')}
      {clockTime(delivery.created_at)} ({relativeTime(delivery.created_at, nowMs)})
    </>,
  );
  if (!('detail' in data)) {
    line(' ');
    line(
      <Text color={paint('yellow')}>Attempt detail, the event body and resend come from the emulator;</Text>,
    );
    line(<Text color={paint('yellow')}>{withoutDetail(source.apiUrl)}.</Text>);
    return lines;
  }
  const {detail} = data;
  line(' ');
  line(<Text bold>Attempts ({detail.attempts.length})</Text>);
  if (detail.attempts.length === 0) line(<Text color={paint('gray')}> none yet</Text>);
  const bodyWidth = Math.max(width - 8, 10);
  for (const a of detail.attempts) {
    line(
      <>
        {`  #${String(a.attempt).padEnd(3)} ${clockTime(a.started_at)}  `}
        <Text color={paint(a.trigger === 'manual' ? 'cyan' : a.trigger === 'chaos' ? 'yellow' : undefined)}>
          {a.trigger.padEnd(9)}
        </Text>
        {'  '}
        <Text color={paint(attemptSucceeded(a) ? 'green' : 'red')}>
          {sanitize(attemptOutcome(a)).padEnd(3)}
        </Text>
        {`  ${`${a.duration_ms} ms`.padStart(8)}`}
        {a.signature_t === null ? '' : <Text color={paint('gray')}>{`  t=${a.signature_t}`}</Text>}
      </>,
    );
    for (const text of bodyLines(a.response_body, ATTEMPT_BODY_LINES)) {
      line(
        <Text color={paint('gray')}>
          {'       │ '}
          {cell(text, bodyWidth).trimEnd()}
        </Text>,
      );
    }
  }
  line(' ');
  line(<Text bold>Event body</Text>);
  for (const text of prettyEvent(detail.event).split('\n')) line(sanitize(text));
  return lines;
}
