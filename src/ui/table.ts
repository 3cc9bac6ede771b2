// Plain-text tables fitted to the terminal width: the widest flexible columns give way first.
import type {Paint, Style} from '../lib/output.js';
import {displayWidth, sanitize, truncate} from './text.js';

export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  /** Colour for a cell; ignored when colour is off. */
  style?: (row: Row) => Style | undefined;
  /** May be shortened (with …) when the table is too wide; fixed columns never are. */
  flexible?: boolean;
  /** Narrowest a flexible column gets before the table simply overflows. */
  minWidth?: number;
}

export interface TableOptions {
  /** Terminal width; undefined (not a terminal) means never truncate, so pipes get whole values. */
  width?: number;
  paint?: Paint;
  gap?: number;
}

export function renderTable<Row>(columns: Column<Row>[], rows: Row[], options: TableOptions = {}): string {
  const gap = options.gap ?? 2;
  const paint = options.paint ?? ((_s: Style, t: string) => t);
  const cells = rows.map((row) => columns.map((c) => sanitize(c.value(row))));
  const widths = columns.map((c, i) =>
    Math.max(displayWidth(c.header), ...cells.map((r) => displayWidth(r[i] ?? ''))),
  );
  if (options.width !== undefined) shrinkToFit(columns, widths, options.width - gap * (columns.length - 1));

  const lines: string[] = [];
  const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - displayWidth(text)));
  const join = (parts: string[]) => parts.join(' '.repeat(gap)).trimEnd();
  lines.push(join(columns.map((c, i) => paint('bold', pad(truncate(c.header, widths[i]!), widths[i]!)))));
  rows.forEach((row, r) => {
    const parts = columns.map((c, i) => {
      const text = pad(truncate(cells[r]![i]!, widths[i]!), widths[i]!);
      const style = c.style?.(row);
      return style ? paint(style, text) : text;
    });
    lines.push(join(parts));
  });
  return `${lines.join('\n')}\n`;
}

/** Shrinks flexible columns, widest first, until the total fits or none can shrink further. */
function shrinkToFit<Row>(columns: Column<Row>[], widths: number[], available: number): void {
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > available) {
    let widest = -1;
    for (let i = 0; i < columns.length; i++) {
      const min = columns[i]!.minWidth ?? 8;
      if (columns[i]!.flexible && widths[i]! > min && (widest === -1 || widths[i]! > widths[widest]!))
        widest = i;
    }
    if (widest === -1) return;
    const min = columns[widest]!.minWidth ?? 8;
    const cut = Math.min(total - available, widths[widest]! - min);
    widths[widest]! -= cut;
    total -= cut;
  }
}
