import { visibleLength } from './style.js';

/**
 * Plain-text tables for people: a header line, then one line per row, columns
 * separated by two spaces and padded to the widest cell. Numbers align right.
 */

export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  align?: 'left' | 'right';
  /** Cells longer than this are cut with an ellipsis (long species names, error messages). */
  maxWidth?: number;
}

export interface TableLayout {
  widths: number[];
}

/** Column widths fitting the header and the given rows (a later page of a streamed table reuses them). */
export function layoutTable<Row>(columns: readonly Column<Row>[], rows: readonly Row[]): TableLayout {
  const widths = columns.map((c) => {
    let width = visibleLength(c.header);
    for (const row of rows) width = Math.max(width, visibleLength(cell(c, row)));
    return c.maxWidth ? Math.min(width, c.maxWidth) : width;
  });
  return { widths };
}

export function renderHeader<Row>(columns: readonly Column<Row>[], layout: TableLayout, decorate: (s: string) => string = (s) => s): string {
  return decorate(joinCells(columns.map((c, i) => pad(c.header, layout.widths[i] ?? 0, c.align))));
}

export function renderRows<Row>(columns: readonly Column<Row>[], rows: readonly Row[], layout: TableLayout): string[] {
  return rows.map((row) => joinCells(columns.map((c, i) => pad(cell(c, row), layout.widths[i] ?? 0, c.align))));
}

/** The whole table as lines (header first). */
export function renderTable<Row>(columns: readonly Column<Row>[], rows: readonly Row[], decorateHeader?: (s: string) => string): string[] {
  const layout = layoutTable(columns, rows);
  return [renderHeader(columns, layout, decorateHeader), ...renderRows(columns, rows, layout)];
}

/** `key: value` lines with the keys aligned, for a single record. */
export function renderFields(fields: ReadonlyArray<readonly [string, string]>, minWidth = 0): string[] {
  const width = Math.max(minWidth, ...fields.map(([k]) => k.length));
  return fields.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${v}`);
}

function cell<Row>(column: Column<Row>, row: Row): string {
  const text = column.value(row).replace(/[\r\n\t]+/g, ' ');
  if (column.maxWidth && visibleLength(text) > column.maxWidth) return `${[...text].slice(0, column.maxWidth - 1).join('')}…`;
  return text;
}

function pad(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const fill = ' '.repeat(Math.max(0, width - visibleLength(text)));
  return align === 'right' ? fill + text : text + fill;
}

function joinCells(cells: string[]): string {
  return cells.join('  ').trimEnd();
}
