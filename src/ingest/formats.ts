/**
 * What a file in the analyzer's folder is, from its name (and, for ambiguous CSV, its
 * header), and the one entry point that parses a result file of any format.
 *
 * Pairing: an audio file and its result file share a base name (`baseName`, without folder):
 *
 * | audio | result | baseName |
 * |---|---|---|
 * | `soundscape.wav` | `soundscape.BirdNET.selection.table.txt` (`.results.csv`, `.results.txt`, `.results.r.csv`, `.results.kaleidoscope.csv`) | `soundscape` |
 * | `rec.flac` | `rec.detections.json` (sidecar) | `rec` |
 * | `x.wav` | `x.wav.csv` (legacy semicolon CSV) | `x` |
 * | `x.wav` | `x.wav.json` (analyzerpi JSON) | `x` |
 *
 * Suffixes compare case-insensitively; base names are kept exactly as written.
 */
import path from 'node:path';
import { ResultFileError } from './errors.js';
import type { Labels } from './labels.js';
import { parse as parseAnalyzerpiJson } from './parsers/analyzerpi-json.js';
import { createParser as audacityLines, parse as parseAudacity } from './parsers/audacity.js';
import { createParser as csvLines, parse as parseCsv } from './parsers/csv.js';
import { createParser as kaleidoscopeLines, parse as parseKaleidoscope } from './parsers/kaleidoscope.js';
import { createParser as legacyCsvLines, parse as parseLegacyCsv } from './parsers/legacy-csv.js';
import type { LineParser } from './parsers/line-parser.js';
import { createParser as ravenLines, parse as parseRaven } from './parsers/raven.js';
import { parse as parseSidecar } from './parsers/sidecar.js';
import { headerKey } from './parsers/table.js';
import { nonBlankLines } from './parsers/text.js';
import type { ParseContext, ParsedResultFile, ResultFormat, ResultParser } from './types.js';

type AudioExtension = 'wav' | 'flac';

export type PathClass =
  /** `ext` in lower case, without dot. */
  | { kind: 'audio'; ext: AudioExtension; baseName: string }
  /** `audioFileName` only for the legacy `x.wav.csv`, whose name gives the audio file's. */
  | { kind: 'result'; format: ResultFormat; baseName: string; audioFileName?: string }
  /** `x.wav.json`: the analyzerpi's result for `x.wav` (`audioFileName`). */
  | { kind: 'analyzerpi-json'; audioFileName: string; baseName: string }
  | { kind: 'ignored' };

/** A file ingest reads: a result table, a sidecar or an analyzerpi JSON. */
export type ResultClass = Extract<PathClass, { kind: 'result' } | { kind: 'analyzerpi-json' }>;

/** Result suffixes, longest first so `.results.kaleidoscope.csv` wins over `.results.csv`. */
const RESULT_SUFFIXES: [suffix: string, format: ResultFormat][] = [
  ['.BirdNET.results.kaleidoscope.csv', 'kaleidoscope'],
  ['.BirdNET.selection.table.txt', 'raven'],
  ['.BirdNET.results.r.csv', 'csv'],
  ['.BirdNET.results.csv', 'csv'],
  ['.BirdNET.results.txt', 'audacity'],
  ['.detections.json', 'sidecar'],
];

const AUDIO_NAME = /^(.+)\.(wav|flac)$/i;

export function classifyPath(filePath: string): PathClass {
  const name = path.basename(filePath);
  // Hidden files and editors' or copy tools' partial files are never input.
  if (name.startsWith('.') || name.endsWith('~')) return { kind: 'ignored' };
  const lower = name.toLowerCase();

  for (const [suffix, format] of RESULT_SUFFIXES) {
    if (lower.endsWith(suffix.toLowerCase()) && name.length > suffix.length) {
      return { kind: 'result', format, baseName: name.slice(0, -suffix.length) };
    }
  }
  const audio = AUDIO_NAME.exec(name);
  if (audio) return { kind: 'audio', ext: audio[2].toLowerCase() as AudioExtension, baseName: audio[1] };

  const onAudio = /^(.+)\.(json|csv)$/i.exec(name);
  const audioOfResult = onAudio ? AUDIO_NAME.exec(onAudio[1]) : null;
  if (onAudio && audioOfResult) {
    const audioFileName = onAudio[1];
    const baseName = audioOfResult[1];
    return onAudio[2].toLowerCase() === 'json'
      ? { kind: 'analyzerpi-json', audioFileName, baseName }
      : { kind: 'result', format: 'legacy-csv', baseName, audioFileName };
  }
  return { kind: 'ignored' };
}

/**
 * The format of a CSV-like result from its first non-blank line, whatever its name. Versions
 * of the analyzer saved other layouts under the same suffix (the `--rtype r` table under
 * `.BirdNET.results.csv`), so the header is the better witness.
 */
export function sniffFormat(text: string): ResultFormat | undefined {
  const first = nonBlankLines(text.slice(0, 4096))[0]?.text;
  if (first === undefined) return undefined;
  const keys = (delimiter: string) => first.split(delimiter).map(headerKey);
  const comma = keys(',');
  if (comma.includes('indir') && comma.includes('offset')) return 'kaleidoscope';
  if ((comma.includes('start (s)') || comma.includes('start')) && comma.includes('confidence')) return 'csv';
  const semicolon = keys(';');
  if (semicolon.includes('start (s)') && semicolon.includes('confidence')) return 'legacy-csv';
  const tab = keys('\t');
  if (tab.includes('begin time (s)') && tab.includes('confidence')) return 'raven';
  return undefined;
}

/**
 * The format for `input.format: "auto"`: by suffix; for CSV files (whose suffix has carried
 * several layouts) by the header when `text` is given. Undefined when not a result file.
 */
export function detectFormat(filePath: string, text?: string, c: PathClass = classifyPath(filePath)): ResultFormat | undefined {
  const bySuffix = c.kind === 'result' ? c.format : c.kind === 'analyzerpi-json' ? 'analyzerpi-json' : undefined;
  const isCsv = filePath.toLowerCase().endsWith('.csv');
  if (isCsv && text !== undefined) return sniffFormat(text) ?? bySuffix;
  return bySuffix;
}

const PARSERS: Record<ResultFormat, ResultParser> = {
  raven: parseRaven,
  csv: parseCsv,
  audacity: parseAudacity,
  kaleidoscope: parseKaleidoscope,
  'legacy-csv': parseLegacyCsv,
  sidecar: parseSidecar,
  'analyzerpi-json': parseAnalyzerpiJson,
};

/**
 * The line formats, read as a stream by ingest (`result-stream.ts`); the JSON formats are
 * not here: they are read whole, under a size limit.
 */
export const LINE_PARSERS: Partial<Record<ResultFormat, (ctx: ParseContext) => LineParser>> = {
  raven: ravenLines,
  csv: csvLines,
  audacity: audacityLines,
  kaleidoscope: kaleidoscopeLines,
  'legacy-csv': legacyCsvLines,
};

export interface ParseResultFileOptions {
  labels?: Labels | undefined;
  /** A fixed format, or `auto` (the default) for `detectFormat`. */
  format?: ResultFormat | 'auto';
  /** The file's classification, when the caller has made it (else `classifyPath`). */
  what?: PathClass;
}

/**
 * Parses one result file of any format. Throws ResultFileError (naming `filePath`) when the
 * file is no recognised result file or cannot be read as a whole; row problems are in
 * `errors` of the result.
 */
export function parseResultFile(filePath: string, text: string, options: ParseResultFileOptions = {}): ParsedResultFile {
  const c = options.what ?? classifyPath(filePath);
  const format = options.format && options.format !== 'auto' ? options.format : detectFormat(filePath, text, c);
  if (!format) {
    throw new ResultFileError(filePath, 'not a recognised result file (unknown name suffix and header)');
  }
  const ctx = options.labels ? { fileName: filePath, labels: options.labels } : { fileName: filePath };
  const parsed = PARSERS[format](text, ctx);
  // `x.wav.csv` and `x.wav.json` name their audio file even when the content does not.
  if (parsed.audioFileName === undefined && 'audioFileName' in c && c.audioFileName !== undefined) {
    parsed.audioFileName = c.audioFileName;
  }
  return parsed;
}
