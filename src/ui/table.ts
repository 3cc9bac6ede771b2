// Plain-text tables fitted to the terminal: the least useful columns are shortened or dropped first.
import type {Paint, Style} from '../lib/output.js';
import {codePointWidth, type Measure, sanitize, truncate} from './text.js';

export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  /** Colour for a cell; ignored when colour is off. */
  style?: (row: Row) => Style | undefined;
  /** May be shortened (with …) when the table is too wide; other columns never are. */
  flexible?: boolean;
  /** Narrowest a flexible column gets (never narrower than its header) before the table simply overflows. */
  minWidth?: number;
  /**
   * Set on columns a narrow terminal can do without: lowest first, each is shortened (when flexible) and
   * then dropped until the table fits. Columns without one always stay.
   */
  dropOrder?: number;
}

export interface TableOptions {
  /** Terminal width; undefined (not a terminal) means never shorten or drop, so pipes get whole values. */
  width?: number;
  paint?: Paint;
  gap?: number;
  /** How many columns a string takes; default counts code points (right for ASCII). */
  measure?: Measure;
}

export function renderTable<Row>(columns: Column<Row>[], rows: Row[], options: TableOptions = {}): string {
  const gap = options.gap ?? 2;
  const paint = options.paint ?? ((_s: Style, t: string) => t);
  const measure = options.measure ?? codePointWidth;
  const cells = rows.map((row) => columns.map((c) => sanitize(c.value(row))));
  const widths = columns.map((c, i) => Math.max(measure(c.header), ...cells.map((r) => measure(r[i] ?? ''))));
  const shown =
    options.width === undefined
      ? columns.map((_c, i) => i)
      : fitColumns(
          columns,
          widths,
          columns.map((c) => measure(c.header)),
          options.width,
          gap,
        );

  const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - measure(text)));
  const join = (parts: string[]) => parts.join(' '.repeat(gap)).trimEnd();
  const lines = [join(shown.map((i) => paint('bold', pad(columns[i]!.header, widths[i]!))))];
  rows.forEach((row, r) => {
    const parts = shown.map((i) => {
      const text = pad(truncate(cells[r]![i]!, widths[i]!, measure), widths[i]!);
      const style = columns[i]!.style?.(row);
      return style ? paint(style, text) : text;
    });
    lines.push(join(parts));
  });
  return `${lines.join('\n')}\n`;
}

/**
 * Returns the indexes of the columns to show and narrows `widths` in place. Headers are never cut, so a
 * shortened column never reads like its neighbour ("CREATED…" beside "CREATED").
 */
function fitColumns<Row>(
  columns: Column<Row>[],
  widths: number[],
  headerWidths: number[],
  available: number,
  gap: number,
): number[] {
  const shown = new Set(columns.map((_c, i) => i));
  const total = () => [...shown].reduce((sum, i) => sum + widths[i]!, 0) + gap * Math.max(0, shown.size - 1);
  const floor = (i: number) => Math.max(columns[i]!.minWidth ?? 8, headerWidths[i]!);
  const shorten = (i: number, by: number) => {
    const cut = Math.max(0, Math.min(by, widths[i]! - floor(i)));
    widths[i]! -= cut;
  };

  const optional = columns
    .map((c, i) => ({i, order: c.dropOrder}))
    .filter((c): c is {i: number; order: number} => c.order !== undefined)
    .sort((a, b) => a.order - b.order);
  for (const {i} of optional) {
    if (total() <= available) break;
    if (columns[i]!.flexible) shorten(i, total() - available);
    if (total() > available) shown.delete(i);
  }
  // What must stay: the widest flexible column gives way first.
  while (total() > available) {
    let widest = -1;
    for (const i of shown) {
      if (columns[i]!.flexible && widths[i]! > floor(i) && (widest === -1 || widths[i]! > widths[widest]!))
        widest = i;
    }
    if (widest === -1) break;
    shorten(widest, total() - available);
  }
  return [...shown].sort((a, b) => a - b);
}
