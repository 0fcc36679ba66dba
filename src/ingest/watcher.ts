import { lstatSync, type Stats } from 'node:fs';
import { lstat, opendir, stat } from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { notTakenReason } from '../system/regular-file.js';

/**
 * Finds the analyzer's files in `input.dir` (recursively) and says when each one
 * is complete. chokidar delivers the inotify events; a periodic rescan catches what
 * inotify missed (an overflowed queue, a folder mounted late, files present at
 * start-up are found by both and handled once).
 *
 * A file is *stable* when its size and modification time have not changed for
 * `stableMs`. Whether its content is complete (a WAV's data size matching the
 * file) is checked by the consumer, which can ask for another look with `recheck`.
 *
 * Files that are irrelevant (pictures, mp3 extracts) or already finished with are
 * ignored at the chokidar level, so the watcher holds no state for them.
 *
 * Symbolic links inside `dir` are not followed (chokidar's `followSymlinks: false`, and
 * the rescan looks at entries without following them): a link loop (`ln -s . loop`)
 * would show every file again under each of `loop/`, `loop/loop/`, ..., and a link to a
 * file elsewhere would upload what is not the analyzer's. Each is reported once through
 * `onSkip`, as is a FIFO, socket or device with a name the agent reads (opening a FIFO
 * blocks). `dir` itself may be a symlink: it is watched through it.
 *
 * Hidden folders below `dir` are not walked, as backfill walks none: the agent's own near
 * spool (`.station-agent-spool`, input.ramDiskAudio keep) holds links named like the
 * analyzer's WAVs, still there after a switch back to `copy`, and a desktop's `.Trash-1000`
 * holds what the owner deleted. `dir` itself may be hidden.
 */
export interface WatcherOptions<T = true> {
  dir: string;
  /** Quiet time before a file counts as stable. */
  stableMs: number;
  /** Full rescan interval; 0 disables it. */
  rescanIntervalMs: number;
  /** Folder depth below `dir` to look into. */
  depth?: number;
  /**
   * Files followed at once, counting those handed over to `onStable` whose promise has not
   * settled yet; more wait for a rescan. Default 1000 (tests prove the bound with fewer files).
   */
  maxPending?: number;
  /** Released watches after which the chokidar instance is renewed. Default 2000. */
  refreshAfterForgotten?: number;
  /**
   * What a file is to the consumer, by its name (made once per sighting and handed on with
   * the file); undefined for files of no interest to the agent.
   */
  classify: (file: string) => T | undefined;
  /** Files already finished with (ingested, rejected); asked on every sighting. */
  isDone: (file: string, size: number, mtimeMs: number) => boolean;
  /** A relevant file was seen for the first time (before it is stable). */
  onAppear?: (file: string, what: T) => void;
  /**
   * A relevant file has been stable for `stableMs`. A returned promise keeps the file counted
   * against `maxPending` until it settles (the consumer's backlog is bounded with the watcher's).
   */
  onStable: (file: string, st: Stats, what: T) => Promise<unknown> | undefined | void;
  /** An entry that is not taken: a symbolic link, or a special file with a relevant name. Once per path. */
  onSkip?: (file: string, why: string) => void;
  /** A file the watcher was following disappeared. */
  onVanish?: (file: string) => void;
  onError?: (err: Error) => void;
}

interface Pending<T> {
  size: number;
  mtimeMs: number;
  timer: NodeJS.Timeout;
  what: T;
}

const MAX_PENDING = 1_000;
/** File system times are coarse (2 s on FAT): a folder changed this long before the watch began is looked at too. */
const MTIME_SLACK_MS = 2_000;
const REFRESH_AFTER_FORGOTTEN = 2_000;
/** Skipped entries remembered (so each is reported once); beyond, they are skipped silently. */
const MAX_REPORTED_SKIPS = 1_000;

export class InputWatcher<T = true> {
  private watcher: FSWatcher | null = null;
  private rescanTimer: NodeJS.Timeout | null = null;
  private readonly pending = new Map<string, Pending<T>>();
  /** Files handed to `onStable` whose promise has not settled. */
  private handedOver = 0;
  private readonly undecodable = new Set<string>();
  private readonly skipped = new Set<string>();
  private rescanning: Promise<void> | null = null;
  /** A rescan was asked for while one was walking: walk again when it ends. */
  private rescanAgain = false;
  private closed = false;
  private ready = false;
  /** Files left out because too many were pending: a rescan fetches them once there is room. */
  private overflowed = false;
  /** Files released with `forget` since the chokidar instance was made. */
  private forgotten = 0;

  constructor(private readonly opts: WatcherOptions<T>) {}

  /** Starts watching; resolves when the initial scan is done. */
  async start(): Promise<void> {
    await this.startChokidar();
    this.ready = true;
    if (this.opts.rescanIntervalMs > 0) {
      this.rescanTimer = setInterval(() => void this.rescan(), this.opts.rescanIntervalMs);
      this.rescanTimer.unref();
    }
  }

  private async startChokidar(): Promise<void> {
    const { dir } = this.opts;
    const since = Date.now() - MTIME_SLACK_MS;
    // The trailing separator makes chokidar resolve `dir` itself when it is a symlink
    // (an analyzerpi folder linked elsewhere) while following no link below it.
    const watcher = watch(dir.endsWith(path.sep) ? dir : `${dir}${path.sep}`, {
      persistent: true,
      ignoreInitial: false,
      alwaysStat: true,
      followSymlinks: false,
      depth: this.opts.depth ?? 8,
      ignorePermissionErrors: true,
      ignored: (p: string, st?: Stats) => this.ignored(p, st),
    });
    this.watcher = watcher;
    watcher.on('add', (p: string, st?: Stats) => this.seen(p, st));
    watcher.on('change', (p: string, st?: Stats) => this.seen(p, st));
    watcher.on('unlink', (p: string) => this.vanished(p));
    watcher.on('error', (err: unknown) => this.opts.onError?.(err instanceof Error ? err : new Error(String(err))));
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    // chokidar lists a folder before its watch on it is in place: a file written in
    // between (the first moments of start-up, an analyzer writing as the agent starts)
    // comes in no event and no listing. One walk of the folders changed since the watch
    // began catches it, rather than the next rescan minutes later.
    await this.walk(this.opts.dir, 0, since);
  }

  /** Files seen but not yet stable. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Files followed: seen and not stable yet, or handed over and not finished with (bounded by `maxPending`). */
  get heldCount(): number {
    return this.pending.size + this.handedOver;
  }

  get isReady(): boolean {
    return this.ready && !this.closed;
  }

  /** Looks at a file again after `delayMs` (its content was not complete yet). */
  recheck(file: string, delayMs = this.opts.stableMs): void {
    if (this.closed) return;
    const prev = this.pending.get(file);
    if (prev) clearTimeout(prev.timer);
    const what = prev?.what ?? this.opts.classify(file);
    if (what === undefined) return;
    const timer = setTimeout(() => this.check(file), delayMs);
    this.pending.set(file, { size: prev?.size ?? -1, mtimeMs: prev?.mtimeMs ?? -1, timer, what });
  }

  /** Walks the folder for relevant files that are neither done nor being followed. */
  rescan(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.rescanning) return this.rescanning;
    // Whatever overflows from here on is seen by this walk or sets the flag again.
    this.overflowed = false;
    this.rescanning = this.walk(this.opts.dir, 0)
      .catch((err: unknown) => this.opts.onError?.(err instanceof Error ? err : new Error(String(err))))
      .finally(() => {
        this.rescanning = null;
        if (this.rescanAgain) {
          this.rescanAgain = false;
          void this.rescan();
        }
      });
    return this.rescanning;
  }

  /**
   * Room has come free after files were left out. A walk under way may already have
   * passed the files left out (it skipped them while the bound was full): one more walk
   * follows it. Without that, a slow walk on a loaded SD card strands them until the
   * next periodic rescan, or for ever with none.
   */
  private fetchOverflow(): void {
    if (this.rescanning) this.rescanAgain = true;
    else void this.rescan();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.rescanTimer) clearInterval(this.rescanTimer);
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
    await this.watcher?.close();
  }

  private ignored(p: string, st?: Stats): boolean {
    if (isHiddenBelow(this.opts.dir, p)) return true;
    if (!st || st.isDirectory()) return false; // folders are walked; unknown entries decided on the event
    if (!st.isFile()) return this.skipSpecial(p, st);
    if (this.opts.classify(p) === undefined) return true;
    return this.opts.isDone(p, st.size, st.mtimeMs);
  }

  /** Whether `st` (an lstat) is not a regular file, reporting it once if so. */
  private skipSpecial(file: string, st: Stats): boolean {
    const why = notTakenReason(st);
    if (why === null) return false;
    if ((st.isSymbolicLink() || this.opts.classify(file) !== undefined) && !this.skipped.has(file) && this.skipped.size < MAX_REPORTED_SKIPS) {
      this.skipped.add(file);
      this.opts.onSkip?.(file, why);
    }
    return true;
  }

  private seen(file: string, st?: Stats, known?: T): void {
    if (this.closed) return;
    const prev = this.pending.get(file);
    const what = prev?.what ?? known ?? this.opts.classify(file);
    if (what === undefined) return;
    if (st && this.skipSpecial(file, st)) return;
    if (!prev) {
      if (st && this.opts.isDone(file, st.size, st.mtimeMs)) return;
      if (this.heldCount >= (this.opts.maxPending ?? MAX_PENDING)) {
        // A backlog of thousands of files found at once: follow a bounded number, and
        // let a rescan bring the rest in as these are done (memory stays flat on a Pi).
        this.overflowed = true;
        return;
      }
      this.opts.onAppear?.(file, what);
    } else {
      clearTimeout(prev.timer);
    }
    const timer = setTimeout(() => this.check(file), this.opts.stableMs);
    this.pending.set(file, { size: st?.size ?? -1, mtimeMs: st?.mtimeMs ?? -1, timer, what });
  }

  private check(file: string): void {
    const prev = this.pending.get(file);
    if (!prev || this.closed) return;
    let st: Stats;
    try {
      // Synchronous: one stat of a file just written, in the inode cache; through the
      // thread pool it would cost several times its own CPU (system/regular-file.ts).
      st = lstatSync(file);
    } catch {
      this.reportUndecodableName(file);
      this.vanished(file);
      return;
    }
    if (this.skipSpecial(file, st)) {
      // Replaced by a FIFO or a link while it was followed.
      clearTimeout(prev.timer);
      this.pending.delete(file);
      return;
    }
    if (st.size !== prev.size || st.mtimeMs !== prev.mtimeMs) {
      // Still being written: wait for another quiet period.
      const timer = setTimeout(() => this.check(file), this.opts.stableMs);
      this.pending.set(file, { size: st.size, mtimeMs: st.mtimeMs, timer, what: prev.what });
      return;
    }
    this.pending.delete(file);
    const handled = this.opts.onStable(file, st, prev.what);
    if (handled) {
      this.handedOver++;
      void handled
        .catch(() => undefined)
        .finally(() => {
          this.handedOver--;
          this.roomFreed();
        });
    }
    this.roomFreed();
  }

  /** A file left the bound: when files were left out, fetch them once half the room is free. */
  private roomFreed(): void {
    if (this.overflowed && !this.closed && this.heldCount <= (this.opts.maxPending ?? MAX_PENDING) / 2) this.fetchOverflow();
  }

  /**
   * The agent is done with a file: release its watch (chokidar watches each file, and a
   * year of result files must not hold thousands of inotify watches). chokidar remembers
   * every released path, so after many the instance is replaced by a fresh one, which
   * skips finished files through `isDone`; the rescan covers the moment in between.
   */
  forget(file: string): void {
    if (!this.watcher || this.closed) return;
    this.watcher.unwatch(file);
    if (++this.forgotten >= (this.opts.refreshAfterForgotten ?? REFRESH_AFTER_FORGOTTEN)) {
      this.forgotten = 0;
      void this.refresh();
    }
  }

  private async refresh(): Promise<void> {
    const old = this.watcher;
    this.watcher = null;
    await old?.close();
    if (!this.closed) await this.startChokidar();
  }

  /**
   * A name that is not valid UTF-8 reaches us with U+FFFD in place of the bad bytes,
   * and no file has that name: the file can never be read. Said once, naming it, so
   * the operator can rename it (otherwise it would look like a file that vanished).
   */
  private reportUndecodableName(file: string): void {
    if (!file.includes('\uFFFD') || this.undecodable.has(file)) return;
    this.undecodable.add(file);
    this.opts.onError?.(new Error(`cannot read ${file}: its name is not valid UTF-8 (shown with \uFFFD); rename the file to take it in`));
  }

  private vanished(file: string): void {
    const prev = this.pending.get(file);
    if (prev) {
      clearTimeout(prev.timer);
      this.pending.delete(file);
    }
    this.opts.onVanish?.(file);
  }

  /**
   * `changedSince` (epoch ms): look only at files in folders modified since then (a file
   * created or renamed into a folder changes the folder's time); every folder is still
   * walked, since a new file changes only its own folder's time.
   */
  private async walk(dir: string, depth: number, changedSince?: number): Promise<void> {
    if (this.closed || depth > (this.opts.depth ?? 8)) return;
    let filesChanged = true;
    if (changedSince !== undefined) {
      const st = await stat(dir).catch(() => null);
      if (!st) return;
      filesChanged = st.mtimeMs >= changedSince;
    }
    let handle;
    try {
      handle = await opendir(dir);
    } catch {
      return; // vanished or unreadable folder: the next rescan tries again
    }
    // opendir streams entries: a folder of a year of recordings is never listed into memory at once.
    let what: T | undefined;
    for await (const entry of handle) {
      if (this.closed) return;
      const full = path.join(dir, entry.name);
      // Dirent types come from the directory itself: a symlink is a symlink, never followed.
      if (entry.isDirectory()) {
        if (!isHiddenName(entry.name)) await this.walk(full, depth + 1, changedSince);
      } else if (!filesChanged || this.pending.has(full)) {
        continue;
      } else if ((what = this.opts.classify(full)) !== undefined) {
        let st: Stats;
        try {
          st = await lstat(full);
        } catch {
          this.reportUndecodableName(full);
          continue;
        }
        if (!this.skipSpecial(full, st) && !this.opts.isDone(full, st.size, st.mtimeMs)) this.seen(full, st, what);
      } else if (entry.isSymbolicLink()) {
        // A link with any name (a folder link, a loop) is said once, so the operator knows it is not followed.
        const st = await lstat(full).catch(() => null);
        if (st) this.skipSpecial(full, st);
      }
    }
  }
}

/** A name the agent never walks into or reads (`.station-agent-spool`, `.Trash-1000`). */
function isHiddenName(name: string): boolean {
  return name.startsWith('.');
}

/** `p` (as chokidar names it) is a hidden entry below `dir`, not `dir` itself. */
function isHiddenBelow(dir: string, p: string): boolean {
  return isHiddenName(path.basename(p)) && path.resolve(p) !== path.resolve(dir);
}
