// Tables for people: measured by display width (CJK, emoji), fitted to the terminal by dropping or shortening
// the least useful columns first, and empty lists that say why they are empty.
import {readFileSync} from 'node:fs';
import stringWidth from 'string-width';
import {describe, expect, it} from 'vitest';
import type {ApiKey, Delivery, WebhookEndpoint} from '../../src/schemas/index.js';
import {renderTable} from '../../src/ui/table.js';
import {loadMeasure, truncate} from '../../src/ui/text.js';
import type {ViewOptions} from '../../src/ui/view-options.js';
import {renderDeliveries, renderKeys, renderWebhooks} from '../../src/ui/views.js';

const fixture = <T>(name: string): T[] =>
  (JSON.parse(readFileSync(new URL(`../../fixtures/api/${name}`, import.meta.url), 'utf8')) as {data: T[]})
    .data;
const keys = fixture<ApiKey>('api-keys.json');
const webhooks = fixture<WebhookEndpoint>('webhooks.json');
const deliveries = fixture<Delivery>('deliveries.json');
const nowMs = Date.parse('2026-03-20T12:00:00Z');

async function view(width?: number): Promise<ViewOptions> {
  return {paint: (_s, t) => t, width, nowMs, measure: await loadMeasure()};
}

function lines(out: string): string[] {
  return out.trimEnd().split('\n');
}

/** Display column at which `needle` starts in `line`. */
function column(line: string, needle: string): number {
  const at = line.indexOf(needle);
  expect(at, `${needle} in ${line}`).toBeGreaterThanOrEqual(0);
  return stringWidth(line.slice(0, at));
}

describe('display width', () => {
  it('counts CJK and emoji as two columns, combining marks as none', async () => {
    const measure = await loadMeasure();
    expect(measure('abc')).toBe(3);
    expect(measure('日本語')).toBe(6);
    expect(measure('deploy 🚀')).toBe(9);
    expect(measure('e\u0301')).toBe(1);
  });

  it('cuts between whole characters and never past the width', async () => {
    const measure = await loadMeasure();
    for (let width = 1; width <= 12; width++) {
      const cut = truncate('ビルド🚀サーバー', width, measure);
      expect(measure(cut)).toBeLessThanOrEqual(width);
      expect(cut.endsWith('…')).toBe(true);
    }
    expect(truncate('👩‍💻 dev box', 3, measure)).toBe('👩‍💻…');
  });
});

describe('keys table', () => {
  it('aligns columns under their headers when names hold CJK and emoji', async () => {
    const named = [
      {...keys[0]!, name: 'デプロイ用'},
      {...keys[1]!, name: 'laptop 💻'},
      {...keys[2]!, name: 'plain'},
    ];
    const [header, ...rows] = lines(renderKeys(named, await view()));
    for (const row of rows) {
      expect(column(row, 'svc_')).toBe(column(header!, 'PREFIX'));
      expect(column(row, 'key_')).toBe(column(header!, 'ID'));
    }
  });

  it('fits 70 columns by dropping the least useful columns, never cutting a header', async () => {
    const out = renderKeys(keys, await view(70));
    for (const line of lines(out)) expect(stringWidth(line)).toBeLessThanOrEqual(70);
    const header = lines(out)[0]!;
    expect(header).not.toContain('…');
    expect(header).not.toMatch(/CREATED\S*\s+CREATED/);
    // What a person needs to tell keys apart and revoke one stays.
    for (const kept of ['NAME', 'PREFIX', 'STATUS', 'ID']) expect(header).toContain(kept);
    for (const key of keys) expect(out).toContain(key.id);
  });

  it('shows every column, whole, when the output is not a terminal', async () => {
    const out = renderKeys(keys, await view(undefined));
    for (const h of ['CREATED BY', 'CREATED', 'LAST USED', 'EXPIRES']) expect(lines(out)[0]).toContain(h);
    // The prefix column is the secret's first characters and a … by design; nothing else is cut.
    expect(out.replace(/svc_\w{4}…/g, '')).not.toContain('…');
  });

  it('keeps the ids whole at 80 columns in every table', async () => {
    const v = await view(80);
    for (const line of lines(renderKeys(keys, v))) expect(stringWidth(line)).toBeLessThanOrEqual(80);
    for (const key of keys) expect(renderKeys(keys, v)).toContain(key.id);
    for (const w of webhooks) expect(renderWebhooks(webhooks, v)).toContain(w.id);
    for (const d of deliveries) expect(renderDeliveries(deliveries, v)).toContain(d.id);
    for (const line of lines(renderDeliveries(deliveries, v)))
      expect(stringWidth(line)).toBeLessThanOrEqual(80);
  });
});

describe('renderTable', () => {
  it('shortens an optional flexible column before dropping it, and drops the lowest first', () => {
    const columns = [
      {header: 'ID', value: (r: {id: string; note: string; when: string}) => r.id},
      {header: 'NOTE', value: (r: {note: string}) => r.note, flexible: true, minWidth: 6, dropOrder: 2},
      {header: 'WHEN', value: (r: {when: string}) => r.when, dropOrder: 1},
    ];
    const rows = [{id: 'abc', note: 'a fairly long note', when: 'yesterday'}];
    // Whole: 3 + 2 + 18 + 2 + 9 = 34.
    expect(lines(renderTable(columns, rows, {width: 34}))[1]).toBe('abc  a fairly long note  yesterday');
    // WHEN goes first; NOTE then fits whole.
    expect(lines(renderTable(columns, rows, {width: 30}))[1]).toBe('abc  a fairly long note');
    expect(lines(renderTable(columns, rows, {width: 12}))[1]).toBe('abc  a fair…');
    expect(lines(renderTable(columns, rows, {width: 8}))[1]).toBe('abc');
  });
});

describe('deliveries', () => {
  it('says that no delivery matches the filter, not that there are none', async () => {
    const v = await view(100);
    expect(renderDeliveries([], v, {status: 'failed', unfiltered: 3})).toMatch(
      /^No delivery matches --status failed \(3 deliveries in all\)/,
    );
    expect(renderDeliveries([], v, {status: 'failed', unfiltered: 0})).toMatch(
      /No delivery matches --status failed: this endpoint has no deliveries yet/,
    );
    expect(renderDeliveries([], v)).toBe('No deliveries yet.\n');
  });
});

describe('empty lists', () => {
  it('name the account page where keys and endpoints are managed, by its address', async () => {
    const v = {...(await view(80)), accountUrl: 'http://127.0.0.1:4010/account'};
    expect(renderKeys([], v)).toBe(
      'No API keys. Keys are created on the account page: http://127.0.0.1:4010/account\n',
    );
    expect(renderWebhooks([], v)).toBe(
      'No webhook endpoints. Endpoints are added on the account page: http://127.0.0.1:4010/account\n',
    );
  });
});
