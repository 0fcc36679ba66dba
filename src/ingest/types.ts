/**
 * Typed shapes of parsed analyzer output. Every parser in `parsers/` turns the text of one
 * result file into a `ParsedResultFile`; the pairing step and the queue only ever see these.
 */
import type { Labels } from './labels.js';

/**
 * The result file formats the agent reads (see `formats.ts` for their file-name suffixes).
 * - `raven`: `<base>.BirdNET.selection.table.txt`, tab-separated Raven selection table
 * - `csv`: `<base>.BirdNET.results.csv`, comma-separated, incl. the `--rtype r` variant
 * - `audacity`: `<base>.BirdNET.results.txt`, Audacity labels
 * - `kaleidoscope`: `<base>.BirdNET.results.kaleidoscope.csv`
 * - `legacy-csv`: `<audio file name>.csv`, semicolon-separated (early analyzer versions)
 * - `sidecar`: `<base>.detections.json`, the agent's own JSON sidecar (docs/SIDECAR.md)
 * - `analyzerpi-json`: `<audio file name>.json`, written by the analyzerpi next to its WAV
 */
export type ResultFormat =
  | 'raven'
  | 'csv'
  | 'audacity'
  | 'kaleidoscope'
  | 'legacy-csv'
  | 'sidecar'
  | 'analyzerpi-json';

export interface ParsedDetection {
  /** Seconds from the start of the recording. */
  startSec: number;
  /** Seconds from the start of the recording; `>= startSec`. */
  endSec: number;
  scientificName: string;
  /** The common name to upload: the primary labels' name when the labels know the species. */
  commonName: string;
  /** 0..1, exactly as written in the file (no rounding). */
  confidence: number;
  /** 1-based line in the result file where the row starts. */
  line: number;
}

/** One row (or JSON entry) that could not be turned into a detection. */
export interface RowError {
  line: number;
  /** Names the file, the line and the column or field, e.g. `x.csv line 4, column "Confidence": ...`. */
  message: string;
}

export interface ParsedResultFile {
  format: ResultFormat;
  /** ISO 8601 with offset, when the file itself carries the recording's start (JSON formats). */
  recordingStart?: string;
  /** The analysed audio file's base name, when the file names it (a File/filepath/IN FILE column, JSON). */
  audioFileName?: string;
  detections: ParsedDetection[];
  errors: RowError[];
}

/** What a parser needs besides the text. */
export interface ParseContext {
  /** The result file's name or path; every error message names it. */
  fileName: string;
  /**
   * Labels to resolve common names to scientific names (Raven tables up to v2.4 and the
   * analyzerpi JSON carry only the common name) and to choose the uploaded common name.
   */
  labels?: Labels;
}

/** A result file parser: one per format, in `parsers/`. */
export type ResultParser = (text: string, ctx: ParseContext) => ParsedResultFile;
