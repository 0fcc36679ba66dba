import { lstatSync, statSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { opendir } from 'node:fs/promises';
import path from 'node:path';
import { notTakenReason, undecodableNameReason } from '../system/regular-file.js';

/**
 * Finds the analyzer's files in `input.dir` (recursively) and says when each one
 * is complete. One `fs.watch` (an inotify watch) per folder delivers the events, each
 * naming its entry; a periodic rescan catches what inotify missed (an overflowed queue,
 * a folder mounted late; files present at start-up are found by the first walk).
 *
 * Why not chokidar (the watcher before): on every event in a folder it lists the whole
 * folder again and lstats each entry through the thread pool (its readdirp options are
 * fixed: `alwaysStat`, `lstat`; no option turns the re-read off), and it watches every file
 * besides. With `input.afterUpload: keep` a folder holds a day of files: at 5,000 files
 * each new recording cost 140-210 ms of CPU, against 10 ms at 10 files. Here an event
 * costs nothing for a name of no interest (a hidden `.part`, a WAV in results mode), one
 * synchronous lstat for a new file the agent reads, and a timer restart for a file already
 * followed; the folder is listed only at start, at a rescan and when a folder appears.
 *
 * A file is *stable* when it has been quiet for `stableMs`: no inotify event for it, or,
 * for a file found by a walk with no event since, the same size and modification time
 * across the quiet time. Whether its content is complete (a WAV's data size matching the
 * file) is checked by the consumer, which can ask for another look with `recheck`.
 *
 * Files that are irrelevant (pictures, mp3 extracts) or already finished with are
 * decided by name and `isDone` on sight, so the watcher holds no state for them.
 *
 * Symbolic links inside `dir` are not followed (walks and events look at entries with
 * lstat): a link loop (`ln -s . loop`) would show every file again under each of `loop/`,
 * `loop/loop/`, ..., and a link to a file elsewhere would upload what is not the
 * analyzer's. Each is reported once through `onSkip`, as is a FIFO, socket or device with
 * a name the agent reads (opening a FIFO blocks). `dir` itself may be a symlink: it is
 * watched through it.
 *
 * Hidden entries below `dir` are neither walked nor read, as backfill walks none: the
 * agent's own near spool (`.station-agent-spool`, input.ramDiskAudio keep) holds links
 * named like the analyzer's WAVs, still there after a switch back to `copy`, a desktop's
 * `.Trash-1000` holds what the owner deleted, and a `.name.part` is a file still being
 * written. `dir` itself may be hidden.
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
  /**
   * Asked before `dir` itself is watched as a folder not held before (at start, when it
   * appears, when it was deleted and made again: the daemon's input-folder lock follows
   * the folder, system/daemon-lock.ts). A rejection leaves it unwatched, said once through
   * `onError`, and asked again at each rescan.
   */
  holdRoot?: (dir: string) => Promise<void>;
}

interface Pending<T> {
  size: number;
  mtimeMs: number;
  timer: NodeJS.Timeout;
  what: T;
  /** An event came for it since the last stat: the quiet time is inotify's word, the stat only its end state. */
  changed: boolean;
}

/** A watched folder: its watch, and its inode (a folder removed and made again needs a new watch). */
interface Folder {
  watch: FSWatcher;
  ino: number;
  /** The last full look at its entries, for a rescan to skip a folder whose names did not change (null: none yet). */
  looked: { mtimeMs: number; ctimeMs: number; at: number; epoch: number; subfolders: string[] } | null;
}

const MAX_PENDING = 1_000;
const MAX_DEPTH = 8;
/** A rescan looks at every file of a folder at least this often, changed or not. */
const FULL_LOOK_MS = 3_600_000;
/** Skipped entries remembered (so each is reported once); beyond, they are skipped silently. */
const MAX_REPORTED_SKIPS = 1_000;
/** While `dir` is missing, it is looked for this often besides its parent's events (a mount makes none). */
const LOOKOUT_POLL_MS = 5_000;

export class InputWatcher<T = true> {
  private readonly folders = new Map<string, Folder>();
  private rescanTimer: NodeJS.Timeout | null = null;
  private readonly pending = new Map<string, Pending<T>>();
  /** Files handed to `onStable` whose promise has not settled. */
  private handedOver = 0;
  private readonly undecodable = new Set<string>();
  private readonly skipped = new Set<string>();
  private rescanning: Promise<void> | null = null;
  /**
   * While `dir` does not exist: a watch on its nearest existing parent (a card mounted late,
   * a folder the analyzer makes at its first recording), so that it is walked the moment it
   * appears rather than at the next rescan (minutes, while an analyzerpi stream folder's
   * WAVs live seconds).
   */
  private lookout: { dir: string; watch: FSWatcher | null; poll: NodeJS.Timeout } | null = null;
  /** A rescan was asked for while one was walking: walk again when it ends. */
  private rescanAgain = false;
  private closed = false;
  private ready = false;
  /** Files left out because too many were pending: a rescan fetches them once there is room. */
  private overflowed = false;
  /** The inotify limit was said once. */
  private saidWatchLimit = false;
  /** Counts the times files were left out: a folder looked at before the last one is looked at again. */
  private overflowEpoch = 0;
  /** `dir`'s identity (`dev:ino`) that `holdRoot` took, and the last one it refused (said once). */
  private rootHeld: string | null = null;
  private rootRefused: string | null = null;
  /** A `holdRoot` under way: walks started meanwhile wait for it rather than ask twice. */
  private holding: Promise<boolean> | null = null;

  constructor(private readonly opts: WatcherOptions<T>) {}

  /**
   * Starts watching; resolves when the first walk is done. Each folder is watched before
   * it is listed, so a file written during the walk comes in an event or in the listing.
   */
  async start(): Promise<void> {
    await this.walk(this.opts.dir, 0);
    this.ready = true;
    if (this.opts.rescanIntervalMs > 0) {
      this.rescanTimer = setInterval(() => void this.rescan(), this.opts.rescanIntervalMs);
      this.rescanTimer.unref();
    }
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
    this.pending.set(file, { size: prev?.size ?? -1, mtimeMs: prev?.mtimeMs ?? -1, timer, what, changed: false });
  }

  /** Walks the folder for relevant files that are neither done nor being followed (and watches folders not watched yet). */
  rescan(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.rescanning) return this.rescanning;
    // Whatever overflows from here on is seen by this walk or sets the flag again.
    this.overflowed = false;
    this.rescanning = this.walk(this.opts.dir, 0, true)
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
    for (const f of this.folders.values()) f.watch.close();
    this.folders.clear();
    this.closeLookout();
    await this.rescanning;
  }

  /**
   * Watches `dir` (a folder below `dir` found by a walk or an event, or `dir` itself) unless
   * it is watched already; returns its stat and its watch (none where it cannot be watched:
   * the inotify limit; it is left to the rescans), or null when it is gone or unreadable.
   */
  private watchFolder(dir: string, depth: number): { st: Stats; folder: Folder | undefined } | null {
    if (this.closed) return null;
    let st: Stats;
    try {
      st = statSync(dir);
    } catch {
      return null;
    }
    const known = this.folders.get(dir);
    if (known?.ino === st.ino) return { st, folder: known };
    if (known) this.unwatchFolder(dir);
    try {
      const w = watch(dir, { persistent: true }, (event, name) => this.folderEvent(dir, depth, event, name));
      // A folder removed or made unreadable: dropped; the parent's event or a rescan watches it again.
      w.on('error', () => this.unwatchFolder(dir));
      const folder: Folder = { watch: w, ino: st.ino, looked: null };
      this.folders.set(dir, folder);
      return { st, folder };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' && !this.saidWatchLimit) {
        this.saidWatchLimit = true;
        this.opts.onError?.(
          new Error(`cannot watch ${dir}: the system's limit of inotify watches is reached (fs.inotify.max_user_watches); new files there are found by the periodic rescan only`),
        );
      }
      // ENOENT, ENOTDIR, EACCES: gone or unreadable; the listing says so, the next rescan tries again.
      return { st, folder: undefined };
    }
  }

  /** Stops watching `dir` and every folder below it. */
  private unwatchFolder(dir: string): void {
    const below = dir + path.sep;
    for (const [folder, f] of this.folders) {
      if (folder === dir || folder.startsWith(below)) {
        f.watch.close();
        this.folders.delete(folder);
      }
    }
  }

  /**
   * One inotify event in a watched folder, naming its entry. The cheap answer first: a
   * hidden name is never looked at; a file already followed only restarts its quiet time;
   * a change to a file of no interest is dropped without a system call. A name that came
   * or went (`rename`) or a relevant file that changed gets one lstat.
   */
  private folderEvent(dir: string, depth: number, event: string, name: string | Buffer | null): void {
    if (this.closed) return;
    if (name === null) {
      // No name (not seen on Linux for entries): look at the whole folder.
      this.walkSaying(dir, depth);
      return;
    }
    const entry = String(name);
    if (isHiddenName(entry)) return;
    const full = path.join(dir, entry);
    const prev = this.pending.get(full);
    if (prev) {
      // Still being written (or gone, or replaced): the stable check's lstat decides when it is quiet.
      clearTimeout(prev.timer);
      prev.changed = true;
      prev.timer = setTimeout(() => this.check(full), this.opts.stableMs);
      return;
    }
    const what = this.opts.classify(full);
    if (what === undefined && event === 'change') return;
    let st: Stats;
    try {
      st = lstatSync(full);
    } catch {
      // Gone: a folder that was watched is dropped; a name that is not valid UTF-8 is said.
      if (this.folders.has(full)) this.unwatchFolder(full);
      if (what !== undefined) this.reportUndecodableName(full);
      return;
    }
    if (st.isDirectory()) {
      // A folder made or moved in: watched and listed (files may be in it already).
      this.walkSaying(full, depth + 1);
      return;
    }
    if (this.skipSpecial(full, st) || what === undefined) return;
    this.seen(full, st, what);
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

  /** A relevant regular file found by a walk or an event, with its lstat. */
  private seen(file: string, st: Stats, what: T): void {
    if (this.closed) return;
    const prev = this.pending.get(file);
    if (!prev) {
      if (this.opts.isDone(file, st.size, st.mtimeMs)) return;
      if (this.heldCount >= (this.opts.maxPending ?? MAX_PENDING)) {
        // A backlog of thousands of files found at once: follow a bounded number, and
        // let a rescan bring the rest in as these are done (memory stays flat on a Pi).
        this.overflowed = true;
        this.overflowEpoch++;
        return;
      }
      this.opts.onAppear?.(file, what);
    } else {
      clearTimeout(prev.timer);
    }
    const timer = setTimeout(() => this.check(file), this.opts.stableMs);
    this.pending.set(file, { size: st.size, mtimeMs: st.mtimeMs, timer, what: prev?.what ?? what, changed: false });
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
    // Events came and none for `stableMs`: quiet by inotify's word (every write is an
    // event). Without one, size and time must have held across the quiet time.
    if (!prev.changed && (st.size !== prev.size || st.mtimeMs !== prev.mtimeMs)) {
      // Still being written: wait for another quiet period.
      const timer = setTimeout(() => this.check(file), this.opts.stableMs);
      this.pending.set(file, { size: st.size, mtimeMs: st.mtimeMs, timer, what: prev.what, changed: false });
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
   * A name that is not valid UTF-8 reaches us with U+FFFD in place of the bad bytes,
   * and no file has that name: the file can never be read. Said once, naming it, so
   * the operator can rename it (otherwise it would look like a file that vanished).
   */
  private reportUndecodableName(file: string, what: 'file' | 'folder' = 'file'): void {
    const reason = undecodableNameReason(file, what);
    if (reason === null || this.undecodable.has(file) || this.undecodable.size >= MAX_REPORTED_SKIPS) return;
    this.undecodable.add(file);
    this.opts.onError?.(new Error(reason));
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
   * `dir` is missing (`missing`): watch its nearest existing parent, and walk `dir` at the
   * first event there that may have made it (or a folder on the way to it, where the watch
   * then moves down). `dir` there: the parent's watch, if any, is closed.
   */
  private lookOut(missing: boolean): void {
    if (!missing || this.closed) {
      this.closeLookout();
      return;
    }
    let parent = path.dirname(path.resolve(this.opts.dir));
    for (;;) {
      try {
        if (statSync(parent).isDirectory()) break;
      } catch {
        // not there either: one level up
      }
      const up = path.dirname(parent);
      if (up === parent) return;
      parent = up;
    }
    if (this.lookout?.dir === parent) return;
    this.closeLookout();
    // A mount over the parent (a card mounted late) makes no inotify event in it: a stat every
    // few seconds finds that; the watch finds a folder made in it at once.
    const poll = setInterval(() => this.walkSaying(this.opts.dir, 0), LOOKOUT_POLL_MS);
    poll.unref();
    const lookout: { dir: string; watch: FSWatcher | null; poll: NodeJS.Timeout } = { dir: parent, watch: null, poll };
    this.lookout = lookout;
    try {
      // Any name: a rename may not name the step towards `dir`; a walk of a missing folder is one stat.
      lookout.watch = watch(parent, { persistent: false }, () => {
        if (this.lookout === lookout) this.walkSaying(this.opts.dir, 0);
      });
      lookout.watch.on('error', () => {
        lookout.watch?.close();
        lookout.watch = null;
      });
    } catch {
      // Not watchable (the inotify limit, a permission): the poll finds `dir`.
    }
    // A step made between the look above and the watch came with no event: look once more.
    this.walkSaying(this.opts.dir, 0);
  }

  /** Whether `dir` may be watched: there, held (`holdRoot`) as it is now; or not there (the walk says so). */
  private holdRootFolder(): Promise<boolean> {
    const hold = this.opts.holdRoot;
    if (!hold) return Promise.resolve(true);
    let id: string;
    try {
      const st = statSync(this.opts.dir);
      id = `${st.dev}:${st.ino}`;
    } catch {
      return Promise.resolve(true);
    }
    if (id === this.rootHeld) return Promise.resolve(true);
    if (this.holding) return this.holding.then(() => this.holdRootFolder());
    this.holding = hold(this.opts.dir)
      .then(
        () => {
          this.rootHeld = id;
          this.rootRefused = null;
          return true;
        },
        (err: unknown) => {
          if (this.rootRefused !== id) {
            this.rootRefused = id;
            const why = err instanceof Error ? err.message : String(err);
            this.opts.onError?.(new Error(`${why} (this one does not watch it, and looks again at each rescan)`));
          }
          return false;
        },
      )
      .finally(() => {
        this.holding = null;
      });
    return this.holding;
  }

  /** A walk started from an event: its error is said, never thrown. */
  private walkSaying(dir: string, depth: number): void {
    void this.walk(dir, depth).catch((err: unknown) => this.opts.onError?.(err instanceof Error ? err : new Error(String(err))));
  }

  private closeLookout(): void {
    if (!this.lookout) return;
    clearInterval(this.lookout.poll);
    this.lookout.watch?.close();
    this.lookout = null;
  }

  /**
   * Watches `dir` and lists it: relevant files not followed yet are looked at (one
   * synchronous lstat each, in the inode cache), folders are walked in turn.
   *
   * A periodic rescan (`rescan`) skips the files of a folder that is watched and whose
   * names have not changed since its last full look (the same mtime and ctime: a name
   * made, removed or renamed changes both), unless files were left out since (the bound)
   * or that look is an hour old: every file there was looked at then, and a change to one
   * since came as an event. With `input.afterUpload: keep`, a folder of 5,000 files cost
   * 31 ms of CPU at each rescan; unchanged, it costs one stat. Its folders are still walked.
   */
  private async walk(dir: string, depth: number, rescan = false): Promise<void> {
    if (this.closed || depth > (this.opts.depth ?? MAX_DEPTH)) return;
    if (depth === 0 && dir === this.opts.dir && !(await this.holdRootFolder())) {
      this.unwatchFolder(dir);
      this.lookOut(false);
      return;
    }
    const watched = this.watchFolder(dir, depth);
    if (depth === 0 && dir === this.opts.dir) this.lookOut(watched === null);
    if (!watched) return; // vanished or unreadable folder: the next rescan tries again
    const { st, folder } = watched;
    const looked = folder?.looked;
    const now = Date.now();
    if (
      rescan &&
      looked &&
      looked.mtimeMs === st.mtimeMs &&
      looked.ctimeMs === st.ctimeMs &&
      looked.epoch === this.overflowEpoch &&
      now - looked.at < FULL_LOOK_MS
    ) {
      for (const name of looked.subfolders) await this.walk(path.join(dir, name), depth + 1, true);
      return;
    }
    const epoch = this.overflowEpoch;
    const subfolders: string[] = [];
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
      // Hidden entries are never walked nor read.
      if (isHiddenName(entry.name)) continue;
      const full = path.join(dir, entry.name);
      // Dirent types come from the directory itself: a symlink is a symlink, never followed.
      if (entry.isDirectory()) {
        // A name that is not UTF-8 reaches Node with U+FFFD in it: no path leads there, so say it (issue 35).
        if (entry.name.includes('\uFFFD')) {
          this.reportUndecodableName(full, 'folder');
          continue;
        }
        subfolders.push(entry.name);
        await this.walk(full, depth + 1, rescan);
      } else if (this.pending.has(full)) {
        continue;
      } else if ((what = this.opts.classify(full)) !== undefined) {
        let fst: Stats;
        try {
          fst = lstatSync(full);
        } catch {
          this.reportUndecodableName(full);
          continue;
        }
        if (!this.skipSpecial(full, fst)) this.seen(full, fst, what);
      } else if (entry.isSymbolicLink()) {
        // A link with any name (a folder link, a loop) is said once, so the operator knows it is not followed.
        let fst: Stats;
        try {
          fst = lstatSync(full);
        } catch {
          continue;
        }
        this.skipSpecial(full, fst);
      }
    }
    // The stat was taken before the listing: a name made during it makes the next rescan look again.
    if (folder && this.folders.get(dir) === folder) folder.looked = { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, at: now, epoch, subfolders };
  }
}

/** A name the agent never walks into or reads (`.station-agent-spool`, `.Trash-1000`, `.x.wav.part`). */
function isHiddenName(name: string): boolean {
  return name.startsWith('.');
}
