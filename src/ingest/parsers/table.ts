/**
 * The core shared by the header-based formats (Raven, CSV, Kaleidoscope, legacy semicolon):
 * map columns by header NAME (never by position, the analyzer has reordered them between
 * versions), then turn each row into a detection or into row errors.
 */
import { resolveSpecies } from '../labels.js';
import { ResultFileError } from '../errors.js';
import type { ParseContext, ParsedDetection, RowError } from '../types.js';
import { splitCsvRecords, type CsvRecord } from './csv-rows.js';
import { baseNameAnyOs, checkTimesAndConfidence, nonBlankLines, parseDecimal, quote, rowError } from './text.js';

export type ColumnRole =
  | 'start'
  | 'end'
  | 'duration'
  | 'fileOffset'
  | 'scientificName'
  | 'commonName'
  | 'speciesCode'
  | 'confidence'
  | 'file';

/** Accepted header names per role (compared in `headerKey` form; the first is shown in messages). */
export type ColumnAliases = Partial<Record<ColumnRole, readonly string[]>>;

/**
 * Header names compare trimmed, case-insensitive, whitespace collapsed and without leading
 * `;` (one analyzer version wrote `Scientific name,;Common name`).
 */
export function headerKey(name: string): string {
  return name.trim().replace(/^;+/, '').trim().replace(/\s+/g, ' ').toLowerCase();
}

export interface TableLayout {
  /** The header as written, for error messages. */
  names: string[];
  index: Partial<Record<ColumnRole, number>>;
}

export interface TableSpec {
  /** Shown in messages: "Raven selection table", "CSV results", ... */
  what: string;
  /** `tab`, `comma` or `semicolon`, shown in messages. */
  delimiterName: string;
  delimiter: string;
  aliases: ColumnAliases;
  /** Roles that must all be present. */
  required: ColumnRole[];
  /** Sets of roles of which at least one must be present (e.g. end or duration). */
  requiredOneOf?: ColumnRole[][];
}

/** Maps the header; throws ResultFileError naming the expected and found header when it does not fit. */
export function layoutFromHeader(headerFields: string[], headerLine: string, spec: TableSpec, ctx: ParseContext): TableLayout {
  const keys = headerFields.map(headerKey);
  const index: TableLayout['index'] = {};
  for (const [role, names] of Object.entries(spec.aliases) as [ColumnRole, readonly string[]][]) {
    const wanted = names.map(headerKey);
    const at = keys.findIndex((k) => wanted.includes(k));
    if (at >= 0) index[role] = at;
  }
  const groups = [...spec.required.map((r) => [r]), ...(spec.requiredOneOf ?? [])];
  if (groups.some((group) => group.every((r) => index[r] === undefined))) {
    const expected = groups.map((group) => group.map((r) => `"${spec.aliases[r]?.[0] ?? r}"`).join(' or ')).join(', ');
    const otherDelimiter = headerFields.length <= 1 ? sniffDelimiter(headerLine, spec.delimiter) : undefined;
    const hint = otherDelimiter ? ` (the header looks ${otherDelimiter}-separated)` : '';
    throw new ResultFileError(
      ctx.fileName,
      `expected ${spec.delimiterName}-separated ${spec.what} header with columns ${expected}, found ${quote(headerLine, 160)}${hint}`,
    );
  }
  return { names: headerFields, index };
}

function sniffDelimiter(line: string, expected: string): string | undefined {
  const candidates: [string, string][] = [
    ['\t', 'tab'],
    [',', 'comma'],
    [';', 'semicolon'],
  ];
  return candidates.find(([d]) => d !== expected && line.includes(d))?.[1];
}

export interface RowOptions {
  /** Raven's dummy row (species code and common name `nocall`) means "no detections". */
  skipNocall?: boolean;
}

export type RowOutcome = { kind: 'detection'; detection: ParsedDetection } | { kind: 'skipped' } | { kind: 'error' };

/** One data row to a detection; problems go to `errors` (one per wrong field). */
export function detectionFromRow(
  fields: string[],
  line: number,
  layout: TableLayout,
  ctx: ParseContext,
  errors: RowError[],
  options: RowOptions = {},
): RowOutcome {
  if (fields.length !== layout.names.length) {
    const hint = fields.length > layout.names.length ? ' (an unquoted delimiter inside a name?)' : '';
    errors.push(rowError(ctx, line, 'row', `expected ${layout.names.length} fields as in the header, found ${fields.length}${hint}`));
    return { kind: 'error' };
  }
  const col = (role: ColumnRole) => {
    const at = layout.index[role];
    return at === undefined ? undefined : { value: fields[at].trim(), where: `column "${layout.names[at].trim()}"` };
  };
  const commonName = col('commonName');
  const speciesCode = col('speciesCode');
  if (options.skipNocall && commonName?.value === 'nocall' && (!speciesCode || speciesCode.value === 'nocall')) {
    return { kind: 'skipped' };
  }

  const before = errors.length;
  const num = (role: ColumnRole): number | undefined => {
    const c = col(role);
    if (!c) return undefined;
    const n = parseDecimal(c.value);
    if (n === undefined) errors.push(rowError(ctx, line, c.where, `expected a number, found ${quote(c.value)}`));
    return n;
  };
  const begin = num('start');
  const endRaw = num('end');
  const duration = num('duration');
  const offset = num('fileOffset');
  const confidence = num('confidence');
  if (errors.length > before || begin === undefined || confidence === undefined) return { kind: 'error' };

  let startSec = begin;
  let endSec = endRaw ?? begin + (duration ?? 0);
  // Combined Raven tables count Begin Time across files; File Offset is the time within this file.
  if (offset !== undefined && offset !== begin) {
    endSec = offset + (endSec - begin);
    startSec = offset;
  }
  const ok = checkTimesAndConfidence(
    ctx,
    line,
    { startSec, endSec, confidence },
    {
      start: col('fileOffset')?.where ?? col('start')!.where,
      end: col('end')?.where ?? col('duration')?.where ?? 'end',
      confidence: col('confidence')!.where,
    },
    errors,
  );
  if (!ok) return { kind: 'error' };

  const scientificName = col('scientificName');
  const resolved = resolveSpecies({ scientificName: scientificName?.value, commonName: commonName?.value }, ctx.labels);
  if (!resolved.ok) {
    errors.push(rowError(ctx, line, (scientificName ?? commonName)?.where ?? 'species', resolved.problem));
    return { kind: 'error' };
  }
  return { kind: 'detection', detection: { startSec, endSec, confidence, line, ...resolved.species } };
}

/** The audio file's base name from the first row's file column, if the table has one. */
export function audioFileNameFromRows(rows: { fields: string[] }[], layout: TableLayout): string | undefined {
  const at = layout.index.file;
  if (at === undefined) return undefined;
  for (const row of rows) {
    const value = row.fields[at]?.trim();
    if (value) return baseNameAnyOs(value) || undefined;
  }
  return undefined;
}

/**
 * A whole header-based table: header row, then one detection per data row. Tab-separated
 * tables are split per line (Raven does not quote); other delimiters go through the RFC 4180
 * splitter.
 */
export function parseTable(
  text: string,
  ctx: ParseContext,
  spec: TableSpec,
  options: RowOptions = {},
): { detections: ParsedDetection[]; errors: RowError[]; audioFileName?: string } {
  const records: (CsvRecord & { raw: string })[] =
    spec.delimiter === '\t'
      ? nonBlankLines(text).map((l) => ({ fields: l.text.split('\t'), line: l.line, raw: l.text }))
      : splitCsvRecords(text, spec.delimiter).map((r) => ({ ...r, raw: r.fields.join(spec.delimiter) }));
  const header = records[0];
  if (!header) {
    throw new ResultFileError(ctx.fileName, `empty file: expected a ${spec.delimiterName}-separated ${spec.what} header`);
  }
  const layout = layoutFromHeader(header.fields, header.raw, spec, ctx);
  const detections: ParsedDetection[] = [];
  const errors: RowError[] = [];
  const rows = records.slice(1);
  for (const row of rows) {
    if (row.error !== undefined) {
      errors.push(rowError(ctx, row.line, 'row', row.error));
      continue;
    }
    const outcome = detectionFromRow(row.fields, row.line, layout, ctx, errors, options);
    if (outcome.kind === 'detection') detections.push(outcome.detection);
  }
  const audioFileName = audioFileNameFromRows(rows, layout);
  return audioFileName === undefined ? { detections, errors } : { detections, errors, audioFileName };
}
