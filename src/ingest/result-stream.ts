/**
 * Opens one result file for ingest: refuses what is too large to be analyzer output, waits
 * for what is still being written, and hands the rows over in bounded batches.
 *
 * - Line formats (Raven, CSV, Audacity, Kaleidoscope, legacy CSV) are read as a stream up to
 *   the size the file had when it was opened: memory stays flat whatever the file's size.
 * - JSON formats are read whole, and so are refused above `MAX_JSON_BYTES`.
 *
 * Complete means: the last line ends with a line end (line formats), or the text parses
 * (JSON). A file that is neither is `not-ready` (looked at again later), until it has not
 * changed for `SETTLE_MS`: then it is taken as it is (a writer that never ends its last
 * line), and a JSON file that still does not parse is an error.
 */
import type { FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { openRegularFile } from '../system/regular-file.js';
import { ResultFileError } from './errors.js';
import { classifyPath, detectFormat, LINE_PARSERS, parseResultFile } from './formats.js';
import type { Labels } from './labels.js';
import type { LineParser } from './parsers/line-parser.js';
import type { ParseContext, ParsedDetection, ResultFormat, RowError } from './types.js';

/** A JSON result (one recording's detections) is a few KB; this much is not one. */
export const MAX_JSON_BYTES = 16 * 1024 * 1024;
/** How long an unfinished-looking file must stay unchanged before it is taken as it is. */
export const SETTLE_MS = 10 * 60_000;
/** Detections per batch (one queue transaction each). */
export const BATCH_SIZE = 5_000;

export interface ResultStreamOptions {
  labels?: Labels | undefined;
  format: ResultFormat | 'auto';
  /** Larger files are refused (`input.maxResultFileMb`). */
  maxBytes: number;
  /** Epoch ms, for the settle rule. */
  now: number;
  /** How long an unfinished-looking file must stay unchanged before it is taken as it is (default `SETTLE_MS`). */
  settleMs?: number;
  batchSize?: number;
}

export interface RowBatch {
  detections: ParsedDetection[];
  errors: RowError[];
}

export type OpenedResult =
  | { kind: 'not-ready'; reason: string }
  | {
      kind: 'open';
      format: ResultFormat;
      /** ISO 8601 with offset, when the file carries the recording's start (JSON formats). */
      recordingStart: string | undefined;
      /** The analysed audio file's name, when the file names it. */
      audioFileName: string | undefined;
      /** The rows, in batches of at most `batchSize` detections. Iterate once. */
      batches: AsyncGenerator<RowBatch>;
      /** Ends the reading early (the batches were not, or not all, iterated). */
      close(): Promise<void>;
    };

/**
 * Throws ResultFileError for a file that is no result file, too large, or has a bad header,
 * and NotRegularFileError for a FIFO, device or link: the file is opened once, through
 * `openRegularFile`, and everything is read from that descriptor (a file swapped for a
 * FIFO after the check can never block the reader).
 */
export async function openResultFile(file: string, options: ResultStreamOptions): Promise<OpenedResult> {
  const fh = await openRegularFile(file);
  let handedOver = false;
  try {
    const opened = await openFrom(fh, file, options);
    handedOver = opened.kind === 'open';
    return opened;
  } finally {
    if (!handedOver) await fh.close();
  }
}

async function openFrom(fh: FileHandle, file: string, options: ResultStreamOptions): Promise<OpenedResult> {
  const st = await fh.stat();
  const settled = options.now - st.mtimeMs >= (options.settleMs ?? SETTLE_MS);
  const format = options.format !== 'auto' ? options.format : detectFormat(file, await readSlice(fh, 0, Math.min(st.size, 4096)));
  if (!format) throw new ResultFileError(file, 'not a recognised result file (unknown name suffix and header)');
  const lineParser = LINE_PARSERS[format];
  const limit = lineParser ? options.maxBytes : Math.min(options.maxBytes, MAX_JSON_BYTES);
  if (st.size > limit) {
    const setting = lineParser || options.maxBytes < MAX_JSON_BYTES ? 'input.maxResultFileMb' : 'the JSON result limit';
    throw new ResultFileError(file, `${mb(st.size)} MB is larger than ${setting} (${mb(limit)} MB): not an analyzer result file, not read`);
  }
  const ctx: ParseContext = options.labels ? { fileName: file, labels: options.labels } : { fileName: file };

  if (!lineParser) {
    const text = await readSlice(fh, 0, st.size);
    let parsed;
    try {
      parsed = parseResultFile(file, text, { labels: options.labels, format });
    } catch (err) {
      if (!settled && err instanceof ResultFileError && err.cause instanceof SyntaxError) {
        return { kind: 'not-ready', reason: `${file}: not complete JSON yet (still being written?)` };
      }
      throw err;
    }
    await fh.close();
    const batches = (async function* () {
      yield await Promise.resolve({ detections: parsed.detections, errors: parsed.errors });
    })();
    return { kind: 'open', format, recordingStart: parsed.recordingStart, audioFileName: parsed.audioFileName, batches, close: () => Promise.resolve() };
  }

  if (st.size > 0 && !settled && !isLineEnd(await readSlice(fh, st.size - 1, st.size))) {
    return { kind: 'not-ready', reason: `${file}: its last line has no line end yet (still being written?)` };
  }
  const parser = lineParser(ctx);
  const lines = readLines(fh, st.size);
  let ended = false;
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await lines.return(undefined);
    await fh.close();
  };
  const step = async (): Promise<void> => {
    const next = await lines.next();
    if (next.done) {
      ended = true;
      parser.finish();
    } else {
      parser.push(next.value.text, next.value.line);
    }
  };
  try {
    // The header and the first data row: the file column may name the audio, which the
    // recording's start and identity depend on.
    while (!ended && parser.rows === 0) await step();
  } catch (err) {
    await close();
    throw err;
  }
  const batchSize = options.batchSize ?? BATCH_SIZE;
  const batches = (async function* () {
    try {
      for (;;) {
        if (parser.detections.length >= batchSize || parser.errors.length >= batchSize || ended) {
          yield take(parser);
          if (ended) return;
        }
        await step();
      }
    } finally {
      await close();
    }
  })();
  return {
    kind: 'open',
    format,
    recordingStart: undefined,
    // `x.wav.csv` names its audio file even when its rows do not.
    audioFileName: parser.audioFileName ?? audioNamedBy(file),
    batches,
    close,
  };
}

function audioNamedBy(file: string): string | undefined {
  const c = classifyPath(file);
  return 'audioFileName' in c ? c.audioFileName : undefined;
}

function take(parser: LineParser): RowBatch {
  return { detections: parser.detections.splice(0), errors: parser.errors.splice(0) };
}

/** The lines of the first `size` bytes, numbered as `parseLines` numbers them (a lone CR ends a line too). */
async function* readLines(fh: FileHandle, size: number): AsyncGenerator<{ text: string; line: number }> {
  if (size === 0) return;
  // autoClose off: the descriptor is the caller's, closed once with the batches.
  const stream = fh.createReadStream({ start: 0, end: size - 1, autoClose: false });
  const rl = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const raw of rl) {
      const text = line === 0 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
      if (!text.includes('\r')) {
        yield { text, line: ++line };
        continue;
      }
      for (const part of text.split('\r')) yield { text: part, line: ++line };
    }
  } finally {
    rl.close();
    stream.destroy();
  }
}

async function readSlice(fh: FileHandle, from: number, to: number): Promise<string> {
  const buf = Buffer.alloc(Math.max(0, to - from));
  const { bytesRead } = await fh.read(buf, 0, buf.length, from);
  return buf.subarray(0, bytesRead).toString('utf8');
}

function isLineEnd(lastChar: string): boolean {
  return lastChar === '\n' || lastChar === '\r';
}

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, '');
}
