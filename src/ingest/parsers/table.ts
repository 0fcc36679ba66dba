/**
 * The core shared by the header-based formats (Raven, CSV, Kaleidoscope, legacy semicolon):
 * map columns by header NAME (never by position, the analyzer has reordered them between
 * versions), then turn each row into a detection or into row errors.
 */
import { resolveSpecies } from '../labels.js';
import { ResultFileError } from '../errors.js';
import type { ParseContext, ParsedDetection, ParsedResultFile, ResultFormat, RowError } from '../types.js';
import { splitCsvRecords, type CsvRecord } from './csv-rows.js';
import { parseLines, type LineParser } from './line-parser.js';
import { baseNameAnyOs, checkTimesAndConfidence, parseDecimal, quote, rowError } from './text.js';

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
function layoutFromHeader(headerFields: string[], headerLine: string, spec: TableSpec, ctx: ParseContext): TableLayout {
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
function detectionFromRow(
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

/** Longest record a quoted field may stretch over lines to before it is cut as unterminated. */
const MAX_RECORD_CHARS = 64 * 1024;

/**
 * A header-based table read line by line: header row, then one detection per data row.
 * Tab-separated tables are split per line (Raven does not quote); other delimiters go
 * through the RFC 4180 splitter, a record continuing over lines while a quote is open.
 */
class TableParser implements LineParser {
  readonly detections: ParsedDetection[] = [];
  readonly errors: RowError[] = [];
  audioFileName: string | undefined;
  rows = 0;
  private layout: TableLayout | undefined;
  /** A CSV record whose quoted field is still open, and the line it started on. */
  private pending = '';
  private pendingLine = 0;

  constructor(
    private readonly ctx: ParseContext,
    private readonly spec: TableSpec,
    private readonly options: RowOptions = {},
  ) {}

  push(text: string, line: number): void {
    if (this.spec.delimiter === '\t') {
      if (text.trim() !== '') this.record({ fields: text.split('\t'), line }, text);
      return;
    }
    if (this.pending === '') this.pendingLine = line;
    this.pending = this.pending === '' ? text : `${this.pending}\n${text}`;
    if (hasOpenQuote(this.pending) && this.pending.length < MAX_RECORD_CHARS) return;
    this.flush();
  }

  finish(): void {
    if (this.pending !== '') this.flush();
    if (!this.layout) {
      throw new ResultFileError(this.ctx.fileName, `empty file: expected a ${this.spec.delimiterName}-separated ${this.spec.what} header`);
    }
  }

  private flush(): void {
    const text = this.pending;
    this.pending = '';
    for (const r of splitCsvRecords(text, this.spec.delimiter, this.pendingLine)) this.record(r, r.fields.join(this.spec.delimiter));
  }

  private record(row: CsvRecord, raw: string): void {
    if (!this.layout) {
      this.layout = layoutFromHeader(row.fields, raw, this.spec, this.ctx);
      return;
    }
    this.rows++;
    if (row.error !== undefined) {
      this.errors.push(rowError(this.ctx, row.line, 'row', row.error));
      return;
    }
    const fileAt = this.layout.index.file;
    if (this.audioFileName === undefined && fileAt !== undefined) {
      const value = row.fields[fileAt]?.trim();
      if (value) this.audioFileName = baseNameAnyOs(value) || undefined;
    }
    const outcome = detectionFromRow(row.fields, row.line, this.layout, this.ctx, this.errors, this.options);
    if (outcome.kind === 'detection') this.detections.push(outcome.detection);
  }
}

/** An odd number of quotes: a quoted field is still open at the end of the text. */
function hasOpenQuote(text: string): boolean {
  let n = 0;
  for (let i = text.indexOf('"'); i >= 0; i = text.indexOf('"', i + 1)) n++;
  return n % 2 === 1;
}

/** A whole table's text (tests, small files); ingest streams through the same `TableParser`. */
function parseTable(
  text: string,
  ctx: ParseContext,
  spec: TableSpec,
  options: RowOptions = {},
): { detections: ParsedDetection[]; errors: RowError[]; audioFileName?: string } {
  const parser = new TableParser(ctx, spec, options);
  parseLines(parser, text);
  const { detections, errors, audioFileName } = parser;
  return audioFileName === undefined ? { detections, errors } : { detections, errors, audioFileName };
}

/**
 * A table format's two entry points over its one spec: `parse` (the whole text) and
 * `createParser` (the same parse, fed line by line: streaming ingest).
 */
export function tableFormat(
  format: ResultFormat,
  spec: TableSpec,
  options: RowOptions = {},
): { parse: (text: string, ctx: ParseContext) => ParsedResultFile; createParser: (ctx: ParseContext) => TableParser } {
  return {
    parse: (text, ctx) => ({ format, ...parseTable(text, ctx, spec, options) }),
    createParser: (ctx) => new TableParser(ctx, spec, options),
  };
}
