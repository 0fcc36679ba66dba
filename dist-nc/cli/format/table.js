import { visibleLength } from './style.js';
export function layoutTable(columns, rows) {
    const widths = columns.map((c) => {
        let width = visibleLength(c.header);
        for (const row of rows)
            width = Math.max(width, visibleLength(cell(c, row)));
        return c.maxWidth ? Math.min(width, c.maxWidth) : width;
    });
    return { widths };
}
export function renderHeader(columns, layout, decorate = (s) => s) {
    return decorate(joinCells(columns.map((c, i) => pad(c.header, layout.widths[i] ?? 0, c.align))));
}
export function renderRows(columns, rows, layout) {
    return rows.map((row) => joinCells(columns.map((c, i) => pad(cell(c, row), layout.widths[i] ?? 0, c.align))));
}
export function renderTable(columns, rows, decorateHeader) {
    const layout = layoutTable(columns, rows);
    return [renderHeader(columns, layout, decorateHeader), ...renderRows(columns, rows, layout)];
}
export function renderFields(fields, minWidth = 0) {
    const width = Math.max(minWidth, ...fields.map(([k]) => k.length));
    return fields.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${v}`);
}
function cell(column, row) {
    const text = column.value(row).replace(/[\r\n\t]+/g, ' ');
    if (column.maxWidth && visibleLength(text) > column.maxWidth)
        return `${[...text].slice(0, column.maxWidth - 1).join('')}…`;
    return text;
}
function pad(text, width, align = 'left') {
    const fill = ' '.repeat(Math.max(0, width - visibleLength(text)));
    return align === 'right' ? fill + text : text + fill;
}
function joinCells(cells) {
    return cells.join('  ').trimEnd();
}
