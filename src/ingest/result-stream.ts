/**
 * Opens one result file for ingest: refuses what is too large to be analyzer output, waits
 * for what is still being written, and hands the rows over in bounded batches.
 *
 * - Line formats (Raven, CSV, Audacity, Kaleidoscope, legacy CSV) are read as a stream up to
 *   the size the file had when it was opened: memory stays flat whatever the file's size.
 * - JSON formats are read whole, and so are refused above `MAX_JSON_BYTES`.
 *
 * The file is opened once, and parsed once: the first batch is read at open (for every real
 * result file, that is all of it), so a decision over the whole file (privacy) needs no second
 * read. Only a table longer than one batch is read again, from the same descriptor (`reread`).
 *
 * Complete means: the last line ends with a line end (line formats), or the text parses
 * (JSON). A file that is neither is `not-ready` (looked at again later), until it has not
 * changed for `SETTLE_MS`: then it is taken as it is (a writer that never ends its last
 * line), and a JSON file that still does not parse is an error.
 */
import type { Stats } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { setImmediate } from 'node:timers/promises';
import { openRegularFileStat, type ReadableFile } from '../system/regular-file.js';
import { contentKey } from './content-key.js';
import { ResultFileError } from './errors.js';
import { detectFormat, LINE_PARSERS, parseResultFile, type ResultClass } from './formats.js';
import type { Labels } from './labels.js';
import type { LineParser } from './parsers/line-parser.js';
import type { ParseContext, ParsedDetection, ResultFormat, RowError } from './types.js';

/** A JSON result (one recording's detections) is a few KB; this much is not one. */
const MAX_JSON_BYTES = 16 * 1024 * 1024;
/** How long an unfinished-looking file must stay unchanged before it is taken as it is. */
export const SETTLE_MS = 10 * 60_000;
/**
 * Detections per batch (one queue transaction each, or a share of `ingest`'s write batch).
 * A batch is alive while it is parsed and queued: at 5,000 rows it outlived two of V8's
 * young-generation collections, so every batch was promoted into the old space, which grew
 * by some 5 MB a collection until a full one (a 25 MB table's peak: 150 MB at 5,000, 118 MB
 * at 1,000). Real result files hold tens of rows: one batch.
 */
export const BATCH_SIZE = 1_000;
/** Bytes read at a time from a line-format file. */
const READ_CHUNK = 64 * 1024;

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
  /** No row of the file follows this batch. */
  last: boolean;
}

export interface OpenResult {
  kind: 'open';
  format: ResultFormat;
  /** ISO 8601 with offset, when the file carries the recording's start (JSON formats). */
  recordingStart: string | undefined;
  /** The analysed audio file's name, when the file names it. */
  audioFileName: string | undefined;
  /** The descriptor's stat when the file was opened (what is read: the first `size` bytes). */
  stats: Stats;
  /** The first batch of rows: every row of a file of up to `batchSize` detections (`first.last`). */
  first: RowBatch;
  /** The batches after `first`, read on from the same descriptor. Iterate once. */
  rest(): AsyncGenerator<RowBatch>;
  /** Every row again from the start (a second read of the same descriptor), for a decision over the whole file when `first` is not all of it. */
  reread(): AsyncGenerator<RowBatch>;
  /** The file's size and first 64 KiB, hashed: what it is known by where its name gives no identity. */
  contentKey(): Promise<string>;
  /** Ends the reading (the batches need not have been iterated). */
  close(): Promise<void>;
}

export type OpenedResult = { kind: 'not-ready'; reason: string } | OpenResult;

/**
 * Throws ResultFileError for a file that is no result file, too large, or has a bad header,
 * and NotRegularFileError for a FIFO, device or link: the file is opened once, through
 * `openRegularFile`, and everything is read from that descriptor (a file swapped for a
 * FIFO after the check can never block the reader). `what` is the file's classification,
 * made once by whoever found the file (the watcher's pairing, a backfill).
 */
export async function openResultFile(file: string, what: ResultClass, options: ResultStreamOptions): Promise<OpenedResult> {
  const { handle: fh, stats } = await openRegularFileStat(file);
  let handedOver = false;
  try {
    const opened = await openFrom(fh, stats, file, what, options);
    handedOver = opened.kind === 'open';
    return opened;
  } finally {
    if (!handedOver) await fh.close();
  }
}

async function openFrom(fh: ReadableFile, st: Stats, file: string, what: ResultClass, options: ResultStreamOptions): Promise<OpenedResult> {
  const settled = options.now - st.mtimeMs >= (options.settleMs ?? SETTLE_MS);
  const format = options.format !== 'auto' ? options.format : detectFormat(file, await readSlice(fh, 0, Math.min(st.size, 4096)), what);
  if (!format) throw new ResultFileError(file, 'not a recognised result file (unknown name suffix and header)');
  const lineParser = LINE_PARSERS[format];
  const limit = lineParser ? options.maxBytes : Math.min(options.maxBytes, MAX_JSON_BYTES);
  if (st.size > limit) {
    const setting = lineParser || options.maxBytes < MAX_JSON_BYTES ? 'input.maxResultFileMb' : 'the JSON result limit';
    throw new ResultFileError(file, `${mb(st.size)} MB is larger than ${setting} (${mb(limit)} MB): not an analyzer result file, not read`);
  }
  let closed = false;
  const base = {
    kind: 'open' as const,
    format,
    stats: st,
    contentKey: () => contentKey(fh, st.size),
  };

  if (!lineParser) {
    const text = await readSlice(fh, 0, st.size);
    let parsed;
    try {
      parsed = parseResultFile(file, text, { labels: options.labels, format, what });
    } catch (err) {
      if (!settled && err instanceof ResultFileError && err.cause instanceof SyntaxError) {
        return { kind: 'not-ready', reason: `${file}: not complete JSON yet (still being written?)` };
      }
      throw err;
    }
    const first: RowBatch = { detections: parsed.detections, errors: parsed.errors, last: true };
    return {
      ...base,
      recordingStart: parsed.recordingStart,
      audioFileName: parsed.audioFileName,
      first,
      rest: async function* () {},
      reread: async function* () {
        yield await Promise.resolve(first);
      },
      close: async () => {
        if (closed) return;
        closed = true;
        await fh.close();
      },
    };
  }

  if (st.size > 0 && !settled && !isLineEnd(await readSlice(fh, st.size - 1, st.size))) {
    return { kind: 'not-ready', reason: `${file}: its last line has no line end yet (still being written?)` };
  }
  const ctx: ParseContext = options.labels ? { fileName: file, labels: options.labels } : { fileName: file };
  const batchSize = options.batchSize ?? BATCH_SIZE;
  const readers: RowReader[] = [];
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    for (const r of readers) await r.stop();
    await fh.close();
  };
  const reader = (): RowReader => {
    const r = new RowReader(lineParser(ctx), readLines(fh, st.size), batchSize);
    readers.push(r);
    return r;
  };
  const main = reader();
  let first: RowBatch;
  try {
    // The header and the first batch (the file column of the first row may name the audio,
    // which the recording's start and identity depend on).
    first = await main.next();
  } catch (err) {
    await close();
    throw err;
  }
  return {
    ...base,
    recordingStart: undefined,
    // `x.wav.csv` names its audio file even when its rows do not.
    audioFileName: main.parser.audioFileName ?? ('audioFileName' in what ? what.audioFileName : undefined),
    first,
    rest: async function* () {
      if (first.last) return;
      for (;;) {
        const batch = await main.next();
        yield batch;
        if (batch.last) return;
      }
    },
    reread: async function* () {
      const again = reader();
      for (;;) {
        const batch = await again.next();
        yield batch;
        if (batch.last) return;
      }
    },
    close,
  };
}

/** One pass over the lines of a file, in batches of at most `batchSize` detections (or row errors). */
class RowReader {
  private ended = false;

  constructor(
    readonly parser: LineParser,
    private readonly lines: AsyncGenerator<{ text: string; line: number }>,
    private readonly batchSize: number,
  ) {}

  async next(): Promise<RowBatch> {
    while (!this.ended && this.parser.detections.length < this.batchSize && this.parser.errors.length < this.batchSize) {
      const next = await this.lines.next();
      if (next.done) {
        this.ended = true;
        this.parser.finish();
      } else {
        this.parser.push(next.value.text, next.value.line);
      }
    }
    return { detections: this.parser.detections.splice(0), errors: this.parser.errors.splice(0), last: this.ended };
  }

  async stop(): Promise<void> {
    await this.lines.return(undefined);
  }
}

/**
 * The lines of the first `size` bytes, numbered as `parseLines` numbers them (LF, CRLF and a
 * lone CR each end a line). Positional reads of one buffer: two passes over the same
 * descriptor never disturb each other, and memory stays at one chunk and one line.
 */
async function* readLines(fh: ReadableFile, size: number): AsyncGenerator<{ text: string; line: number }> {
  const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, Math.max(size, 1)));
  const decoder = new StringDecoder('utf8');
  let carry = '';
  let line = 0;
  for (let pos = 0; pos < size; ) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - pos), pos);
    if (bytesRead === 0) break;
    pos += bytesRead;
    let text = carry + decoder.write(buf.subarray(0, bytesRead));
    if (line === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      // A CR at the end of a chunk may be the first half of a CRLF: wait for the next chunk.
      if (c === 13 && i === text.length - 1 && pos < size) break;
      yield { text: text.slice(from, i), line: ++line };
      if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
      from = i + 1;
    }
    carry = text.slice(from);
    // The reads are synchronous (openRegularFileStat): a table of many chunks lets the event
    // loop run between them, as reads through the thread pool did, so that uploads, timers
    // and the garbage collector's tasks are not held up for the seconds a large table takes.
    if (pos < size) await setImmediate();
  }
  const rest = carry + decoder.end();
  if (rest.length > 0) yield { text: line === 0 && rest.charCodeAt(0) === 0xfeff ? rest.slice(1) : rest, line: ++line };
}

async function readSlice(fh: ReadableFile, from: number, to: number): Promise<string> {
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
