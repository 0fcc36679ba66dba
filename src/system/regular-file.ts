import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats } from 'node:fs';
import { lstat, open, stat, type FileHandle } from 'node:fs/promises';
import { StationAgentError, type CodeOf } from '../errors.js';

/**
 * The one way the agent opens a file from the analyzer's folder: only a regular file,
 * never a symbolic link, and never in a way that can block.
 *
 * A FIFO named `X.wav` blocks a plain `open()` until a writer comes (forever), and with
 * it one of libuv's four file-system threads: a few such files stop all ingestion. So:
 * `lstat` first (a FIFO, socket, device, folder or symlink is refused without being
 * opened: opening some devices has side effects), then `open` with `O_NONBLOCK` (a FIFO
 * swapped in after the `lstat` opens at once instead of waiting) and `O_NOFOLLOW` (a
 * symlink swapped in fails), then `fstat` on the descriptor, which is what is read.
 * `O_NONBLOCK` changes nothing for a regular file.
 *
 * Only the last component is checked: `input.dir` itself may be a symlink (analyzerpi
 * setups link the analyzer's folder), and that keeps working.
 */
export class NotRegularFileError extends StationAgentError {
  readonly code: CodeOf<'NotRegularFileError'> = 'ERR_NOT_REGULAR_FILE';

  constructor(
    readonly file: string,
    /** What the file is instead, e.g. `a FIFO (named pipe)`. */
    readonly kind: string,
  ) {
    super(`${file}: not a regular file (${kind}), skipped${kind === 'a symbolic link' ? ': the agent does not follow symbolic links' : ''}`);
  }
}

/** What kind of file `st` describes, in words for a log line. */
function fileKind(st: Stats): string {
  if (st.isFile()) return 'a regular file';
  if (st.isDirectory()) return 'a folder';
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'a special file';
}

/**
 * Why an entry found in a folder walk (an lstat) is not taken, or null for a regular file
 * or a folder. Symbolic links are never followed: a loop (`ln -s . loop`) would show every
 * file again under `loop/`, `loop/loop/`, ..., and a link to a file elsewhere would take in
 * what is not the analyzer's.
 */
export function notTakenReason(st: Stats): string | null {
  if (st.isFile() || st.isDirectory()) return null;
  if (st.isSymbolicLink()) return 'a symbolic link: not followed (the agent reads each file inside its folder once; point at the real folder instead)';
  return `${fileKind(st)}, not a regular file`;
}

/**
 * Why `file` cannot be read when its name is not valid UTF-8: Node decodes such a name with
 * U+FFFD in place of the bad bytes, and no path then leads to the file (every call on it
 * says ENOENT, as if it were gone). Null for a name without U+FFFD.
 */
export function undecodableNameReason(file: string, what: 'file' | 'folder' = 'file'): string | null {
  if (!file.includes('\uFFFD')) return null;
  const take = what === 'file' ? 'rename the file to take it in' : 'rename the folder to take in what it holds';
  return `cannot read ${file}: its name is not valid UTF-8 (shown with \uFFFD); ${take}`;
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;
const READ_FLAGS_FOLLOW = constants.O_RDONLY | constants.O_NONBLOCK;

export interface OpenRegularOptions {
  /**
   * Follow a symbolic link to its target, which must be a regular file (secret files,
   * often linked in from a mounted folder). Default false: the analyzer's folder is
   * never followed out of.
   */
  followSymlinks?: boolean;
}

/**
 * Opens `file` for reading if it is a regular file; rejects with NotRegularFileError
 * otherwise, and with the system error (ENOENT, EACCES) when it cannot be opened.
 */
export async function openRegularFile(file: string, options: OpenRegularOptions = {}): Promise<FileHandle> {
  const follow = options.followSymlinks === true;
  const before = follow ? await stat(file) : await lstat(file);
  if (!before.isFile()) throw new NotRegularFileError(file, fileKind(before));
  let fh: FileHandle;
  try {
    fh = await open(file, follow ? READ_FLAGS_FOLLOW : READ_FLAGS);
  } catch (err) {
    throw openError(file, err);
  }
  const st = await fh.stat();
  if (!st.isFile()) {
    await fh.close();
    throw new NotRegularFileError(file, fileKind(st));
  }
  return fh;
}

/** ELOOP: a symlink swapped in after the lstat; ENXIO: a socket. */
function openError(file: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return new NotRegularFileError(file, 'a symbolic link');
  if (code === 'ENXIO') return new NotRegularFileError(file, 'a socket');
  return err;
}

/**
 * What a reader of an opened file uses: positional reads, its `fstat`, and close. A
 * `FileHandle` is one; so is what {@link openRegularFileStat} returns.
 */
export interface ReadableFile {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  stat(): Promise<Stats>;
  close(): Promise<void>;
}

/**
 * A {@link ReadableFile} whose reads may also be made synchronously: what
 * {@link openRegularFileStat} returns. The FLAC encoder reads a recording's audio this way
 * (src/audio/pcm.ts), a bounded piece at a time.
 */
export interface SyncReadableFile extends ReadableFile {
  /** `read` without the promise: the bytes read (fewer at the end of the file). */
  readSync(buffer: Uint8Array, offset: number, length: number, position: number): number;
}

/**
 * A descriptor read with synchronous calls behind the promise interface. Ingest reads
 * a few small pieces of each file the analyzer has just written (a result file, a WAV's
 * header and first 64 KiB), all in the page cache: such a call costs a few microseconds,
 * while the same call through libuv's thread pool costs some 15-20 microseconds of CPU
 * more (a request, a thread woken, a completion back on the loop, a promise), several
 * times the system call itself, 6 to 10 times per recording. The descriptor is opened
 * `O_NONBLOCK` from a regular file, so no call here can wait on a writer.
 */
class SyncReadFile implements SyncReadableFile {
  private fd: number | null;

  constructor(fd: number) {
    this.fd = fd;
  }

  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    return settled(() => ({ bytesRead: this.readSync(buffer, offset, length, position) }));
  }

  readSync(buffer: Uint8Array, offset: number, length: number, position: number): number {
    return readSync(this.open(), buffer, offset, length, position);
  }

  stat(): Promise<Stats> {
    return settled(() => fstatSync(this.open()));
  }

  /** Closes the descriptor; closing again does nothing. */
  close(): Promise<void> {
    const fd = this.fd;
    this.fd = null;
    return settled(() => {
      if (fd !== null) closeSync(fd);
    });
  }

  private open(): number {
    if (this.fd === null) throw Object.assign(new Error('file closed'), { code: 'EBADF' });
    return this.fd;
  }
}

/** `fn()` as a promise: its value, or its error as the rejection. */
function settled<T>(fn: () => T): Promise<T> {
  return new Promise<T>((resolve) => resolve(fn()));
}

/**
 * `openRegularFile` for ingest's readers, with the descriptor's `fstat` (the one stat a
 * reader needs: size and times of what it reads): the same checks, made with synchronous
 * calls, and the descriptor read the same way (see SyncReadFile for why). The caller
 * closes it.
 */
export function openRegularFileStat(file: string): Promise<{ handle: SyncReadableFile; stats: Stats }> {
  return settled(() => {
    const before = lstatSync(file);
    if (!before.isFile()) throw new NotRegularFileError(file, fileKind(before));
    let fd: number;
    try {
      fd = openSync(file, READ_FLAGS);
    } catch (err) {
      throw openError(file, err);
    }
    let st: Stats;
    try {
      st = fstatSync(fd);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    if (!st.isFile()) {
      closeSync(fd);
      throw new NotRegularFileError(file, fileKind(st));
    }
    return { handle: new SyncReadFile(fd), stats: st };
  });
}

/** A file larger than the reader's bound. */
export class FileTooLargeError extends StationAgentError {
  readonly code: CodeOf<'FileTooLargeError'> = 'ERR_FILE_TOO_LARGE';

  constructor(
    readonly file: string,
    readonly maxBytes: number,
  ) {
    super(`${file}: larger than ${maxBytes} bytes, not read`);
  }
}

/**
 * The text of a small regular file (a secret, a certificate), read with a bound: at most
 * `maxBytes`, else FileTooLargeError. Returns the file's mode too (from the same fstat),
 * for a loose-mode warning.
 */
export async function readRegularFileBounded(
  file: string,
  maxBytes: number,
  options: OpenRegularOptions = {},
): Promise<{ text: string; bytes: Buffer; mode: number }> {
  const fh = await openRegularFile(file, options);
  try {
    const st = await fh.stat();
    if (st.size > maxBytes) throw new FileTooLargeError(file, maxBytes);
    // One more byte than allowed: a file that grew after the fstat is still caught.
    const buf = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, length, buf.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) throw new FileTooLargeError(file, maxBytes);
    }
    // A copy, so the caller does not keep the whole bound alive.
    const bytes = Buffer.from(buf.subarray(0, length));
    return { text: bytes.toString('utf8'), bytes, mode: st.mode };
  } finally {
    await fh.close();
  }
}

/**
 * `read` over `file` opened through `openRegularFile`, closed whatever `read` does.
 * @example const info = await withRegularFile(file, (fh) => readWavInfoFrom(fh, file));
 */
export async function withRegularFile<T>(file: string, read: (fh: FileHandle) => Promise<T>, options: OpenRegularOptions = {}): Promise<T> {
  const fh = await openRegularFile(file, options);
  try {
    return await read(fh);
  } finally {
    await fh.close();
  }
}
