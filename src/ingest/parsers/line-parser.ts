/**
 * A result format read line by line. The whole-text `parse` of each line format and the
 * streaming reader (`../result-stream.ts`) both feed lines to the same parser, so the parse
 * the tests cover is the one that ships, and a table of a million rows never sits in memory.
 */
import type { ParsedDetection, RowError } from '../types.js';
import { stripBom } from './text.js';

export interface LineParser {
  /** One physical line without its terminator; `line` is 1-based. Throws ResultFileError for a bad header. */
  push(text: string, line: number): void;
  /** The input has ended. Throws ResultFileError when the file holds no header at all. */
  finish(): void;
  /** Detections found so far; the streaming reader empties it after each batch. */
  readonly detections: ParsedDetection[];
  /** Row problems found so far; emptied like `detections`. */
  readonly errors: RowError[];
  /** The analysed audio file's name, from the first data row's file column (tables that have one). */
  readonly audioFileName: string | undefined;
  /** Data rows seen so far (header and blank lines not counted). */
  readonly rows: number;
}

/** Feeds a whole text to a parser: LF, CRLF and lone CR all end a line. */
export function parseLines(parser: LineParser, text: string): void {
  stripBom(text)
    .split(/\r\n|\n|\r/)
    .forEach((t, i) => parser.push(t, i + 1));
  parser.finish();
}
