/**
 * Text-level helpers shared by the parsers: BOM, line splitting, strict number parsing and
 * uniform error messages.
 */
import type { ParseContext, RowError } from '../types.js';

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export interface TextLine {
  /** The line without its terminator. */
  text: string;
  /** 1-based. */
  line: number;
}

/** Non-blank lines with their 1-based numbers; LF, CRLF and lone CR all end a line. */
export function nonBlankLines(text: string): TextLine[] {
  const out: TextLine[] = [];
  stripBom(text)
    .split(/\r\n|\n|\r/)
    .forEach((t, i) => {
      if (t.trim() !== '') out.push({ text: t, line: i + 1 });
    });
  return out;
}

// Plain decimal (optionally with exponent): rejects '', 'NaN', '0x10', '1,5', ' ' that Number() would accept or mangle.
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A finite decimal number, or undefined. */
export function parseDecimal(raw: string): number | undefined {
  const s = raw.trim();
  if (!DECIMAL.test(s)) return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

/** Shortens a value for an error message. */
export function quote(value: string, max = 80): string {
  const v = value.length > max ? `${value.slice(0, max)}...` : value;
  return JSON.stringify(v);
}

export function rowError(ctx: ParseContext, line: number, where: string, problem: string): RowError {
  return { line, message: `${ctx.fileName} line ${line}, ${where}: ${problem}` };
}

/** The base name of a path written on any OS (`C:/x/y\z.WAV` -> `z.WAV`). */
export function baseNameAnyOs(p: string): string {
  const parts = p.trim().split(/[\\/]/);
  return parts[parts.length - 1] ?? '';
}

/**
 * Checks the numbers every detection must satisfy and reports each problem against `where`
 * (a column or JSON field name). Returns true when all are valid.
 */
export function checkTimesAndConfidence(
  ctx: ParseContext,
  line: number,
  v: { startSec: number; endSec: number; confidence: number },
  where: { start: string; end: string; confidence: string },
  errors: RowError[],
): boolean {
  let ok = true;
  if (v.startSec < 0) {
    errors.push(rowError(ctx, line, where.start, `start must not be negative, found ${v.startSec}`));
    ok = false;
  }
  if (v.endSec < v.startSec) {
    errors.push(rowError(ctx, line, where.end, `end ${v.endSec} is before start ${v.startSec}`));
    ok = false;
  }
  if (v.confidence < 0 || v.confidence > 1) {
    errors.push(rowError(ctx, line, where.confidence, `confidence must be in [0, 1], found ${v.confidence}`));
    ok = false;
  }
  return ok;
}
