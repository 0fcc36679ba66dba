import type { spawnSync as SpawnSync } from 'node:child_process';
import { constants, fstatSync, mkdirSync, openSync, readdirSync, readSync, closeSync, readFileSync, statSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { StationAgentError, type CodeOf, errorMessage } from '../errors.js';
import { pidAlive } from './pid.js';
import { openSqlite } from './sqlite.js';

/**
 * One daemon per dataDir. Two `station-agent run` on one queue (one by hand beside
 * systemd, two template units sharing a dataDir, one in a container or another network
 * namespace) would each mark the other's in-flight items `unknown` at start and post them
 * again: duplicates at the service.
 *
 * Two locks, both dropped by the kernel when their process dies, whatever the death
 * (SIGKILL, OOM, power loss): no stale lock ever blocks a restart, and no PID is
 * trusted to decide anything. A daemon needs both; either one held elsewhere refuses.
 *
 * - flock(2) on the dataDir folder itself, opened `O_DIRECTORY` and kept open while the
 *   daemon runs. The lock lives on the folder's inode in the file system: nothing in the
 *   folder can be deleted to take it from under us (a lock *file* can be: `rm daemon.lock`
 *   let a second daemon lock a new file of the same name), two paths to one folder (a
 *   symlink, a bind mount) meet at one lock, and it is seen from every network and mount
 *   namespace (an abstract unix socket, the lock this replaced, is per network namespace,
 *   and any local user could bind its name first and so keep the daemon from starting).
 *   Taking it needs the folder opened, which the package's dataDir (0700, the service
 *   user's) allows no other user; a dataDir this function makes is made 0700 too. Node has
 *   no flock, so util-linux's `flock` program (Essential in Debian, as `setpriv` the
 *   package uses) takes it on the descriptor it inherits: a flock belongs to the open file
 *   description, which stays with the daemon's descriptor when the program exits.
 * - SQLite's own POSIX (fcntl) lock on `<dataDir>/daemon.lock`: with
 *   `locking_mode=EXCLUSIVE`, the first write transaction takes the EXCLUSIVE lock and
 *   the connection keeps it until it closes. Its file holds the holder's PID, written
 *   (`user_version`) in the very transaction that took the lock; the kernel's lock table
 *   (`/proc/locks`) names it too, where a unit with `ProcSubset=pid` cannot see it. With the
 *   file deleted, the holder is found by the folder it keeps open (`/proc/<pid>/fd`).
 *
 * The input folder is locked apart (DaemonLock.holdInput). Only `run` takes the locks; the
 * CLI's commands open the queue beside the daemon as before.
 */
const DAEMON_LOCK_FILE = 'daemon.lock';

/** `ERR_DAEMON_RUNNING`: another process holds the dataDir's lock. */
export class DaemonLockError extends StationAgentError {
  readonly code: CodeOf<'DaemonLockError'> = 'ERR_DAEMON_RUNNING';

  constructor(
    /** The folder whose lock is held: the dataDir, or the input folder (`key`). */
    readonly dataDir: string,
    /** The holder's PID, when it could be found. */
    readonly holderPid: number | null,
    readonly key: 'dataDir' | 'input.dir' = 'dataDir',
  ) {
    const who = holderPid === null ? 'another process' : `another station-agent (pid ${holderPid})`;
    super(
      key === 'dataDir'
        ? `${who} is already running on dataDir ${dataDir} (it holds the dataDir's lock); ` +
            'only one daemon may use a queue: stop the other one (systemctl stop station-agent) or give this one its own dataDir'
        : `${who} is already watching input.dir ${dataDir}; two daemons on one input folder would each upload every recording: ` +
            'stop the other one (systemctl stop station-agent), or give this one the folder of its own analyzer',
    );
  }
}

export interface DaemonLock {
  readonly path: string;
  /**
   * Holds the input folder `dir` as it is now (its identity: a folder deleted and made
   * again, or another one mounted over its path, is another folder), in place of the one
   * held before; nothing when it is the one held already. Throws {@link DaemonLockError}
   * when another daemon watches it, holding the one before. The watcher asks it each time
   * it starts watching `input.dir` (at start, when it appears, when it was made again).
   * A folder that is not there (or not readable) is not held: nothing is watched there.
   */
  holdInput(dir: string): Promise<void>;
  /** The identity of the input folder held now (from the descriptor the lock keeps), or null when none is. */
  heldInput(): { dev: bigint; ino: bigint } | null;
  /** Releases every lock (closing the connection drops the fcntl lock, closing the socket frees its name). Idempotent. */
  release(): void;
}

/**
 * Takes the dataDir's locks, then the input folder's, or throws {@link DaemonLockError}
 * naming the holder. Two daemons with a dataDir each on one input folder would each queue
 * and upload every recording: the input folder (`inputDir`) is locked by its abstract
 * socket alone (nothing is written into the analyzer's folder). A folder that does not
 * exist yet is locked when it appears ({@link DaemonLock.holdInput}).
 */
export async function acquireDaemonLock(dataDir: string, inputDir?: string): Promise<DaemonLock> {
  const dir = path.resolve(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, DAEMON_LOCK_FILE);
  // Loaded here, by `run` alone (the watcher's other users import this module too).
  const { spawnSync } = await import('node:child_process');
  const folder = lockFolder(dir, file, spawnSync);
  let db: Database.Database;
  try {
    db = lockFile(dir, file);
  } catch (err) {
    closeSync(folder);
    throw err;
  }
  let input: HeldSocket | null = null;
  let released = false;
  const holdInput = async (folder: string): Promise<void> => {
    if (released) return;
    const next = await lockSocket(path.resolve(folder), input?.name);
    if (next === 'held' || next === null) return;
    if (released) return unlock(next); // released while the name was bound
    unlock(input);
    input = next;
  };
  try {
    if (inputDir !== undefined) await holdInput(inputDir);
  } catch (err) {
    db.close();
    closeSync(folder);
    throw err;
  }
  return {
    path: file,
    holdInput,
    heldInput: () => {
      if (!input) return null;
      const st = fstatSync(input.folder, { bigint: true });
      return { dev: st.dev, ino: st.ino };
    },
    release: () => {
      if (released) return;
      released = true;
      if (db.open) db.close();
      // The folder's last descriptor: closing it drops its flock.
      closeSync(folder);
      // Closing a listening socket frees its name at once (the fd is closed synchronously).
      unlock(input);
      input = null;
    },
  };
}

/**
 * Why another user could take the dataDir's lock (and so keep the daemon from starting), or
 * null: its folder is readable by its group or by everyone, so they may open it and flock it.
 * The package's dataDir is 0700; one made by hand or by an older start may not be.
 */
export function dataDirLockWarning(dataDir: string): string | null {
  const st = statSync(dataDir, { throwIfNoEntry: false });
  if (!st || (st.mode & 0o044) === 0) return null;
  const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
  return `dataDir ${dataDir} is readable by other users (mode ${mode}): any of them can take its lock and keep the daemon from starting; make it the service user's alone (chmod 700 ${dataDir})`;
}

/** `flock --conflict-exit-code`: the lock is held elsewhere (EX_TEMPFAIL). */
const FLOCK_HELD = 75;

/**
 * Opens the dataDir folder and takes its flock (exclusive, without waiting), or throws
 * {@link DaemonLockError} naming the holder. Returns the descriptor, which holds the lock
 * until it is closed.
 */
function lockFolder(dir: string, file: string, spawnSync: typeof SpawnSync): number {
  let folder: number;
  try {
    folder = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (err) {
    throw new DaemonLockFileError(dir, err);
  }
  // The program's fd 3 is a duplicate of `folder`: one open file description, whose lock outlives the program.
  const run = spawnSync('flock', ['--exclusive', '--nonblock', '--conflict-exit-code', String(FLOCK_HELD), '3'], {
    stdio: ['ignore', 'ignore', 'pipe', folder],
    timeout: 30_000,
  });
  if (run.status === 0) return folder;
  closeSync(folder);
  if (run.status === FLOCK_HELD) throw new DaemonLockError(dir, lockHolder(file) ?? folderHolder(dir));
  const why = run.error
    ? (run.error as NodeJS.ErrnoException).code === 'ENOENT'
      ? new Error("the flock program is not installed (util-linux's)")
      : run.error
    : new Error(`flock exited with ${run.status ?? run.signal}: ${run.stderr.toString('utf8').trim()}`);
  throw new DaemonLockFileError(dir, why);
}

/**
 * The process that holds `dir` open (the daemon keeps its dataDir open while it runs), for a
 * refusal whose lock file was deleted: the other daemon's PID, where /proc shows it (the same
 * user's processes under the unit's `ProtectProc=invisible`). Read only when a start is refused.
 */
function folderHolder(dir: string): number | null {
  try {
    const want = statSync(dir, { bigint: true });
    for (const entry of readdirSync('/proc')) {
      const pid = Number(entry);
      if (!Number.isSafeInteger(pid) || pid === process.pid) continue;
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue; // gone, or another user's
      }
      for (const fd of fds) {
        let st;
        try {
          st = statSync(`/proc/${pid}/fd/${fd}`, { bigint: true });
        } catch {
          continue; // closed meanwhile, or a descriptor that cannot be followed
        }
        if (st.isDirectory() && st.ino === want.ino && st.dev === want.dev) return pid;
      }
    }
  } catch {
    // No /proc: the holder stays unnamed.
  }
  return null;
}

function lockFile(dir: string, file: string): Database.Database {
  let db: Database.Database | undefined;
  try {
    db = openSqlite(file, { timeout: 0 });
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.pragma(`user_version = ${process.pid}`);
    db.exec('COMMIT');
    return db;
  } catch (err) {
    db?.close();
    if ((err as { code?: unknown }).code === 'SQLITE_BUSY') throw new DaemonLockError(dir, lockHolder(file));
    throw new DaemonLockFileError(file, err);
  }
}

/**
 * The abstract socket's name for the input folder open as `fd`: its identity on this
 * machine, not its path. Read from the descriptor the lock keeps, so
 * the name is that of the very inode held open (a stat by path could meet another folder
 * renamed into place between the two).
 */
function inputSocketName(fd: number): string {
  const st = fstatSync(fd, { bigint: true });
  return `\0station-agent-input:${st.dev}:${st.ino}`;
}

/** How long a refused start waits for the holder to say its PID. */
const HOLDER_ANSWER_MS = 1_000;

/** A bound socket and the folder it names, held open while the lock is held. */
interface HeldSocket {
  readonly server: Server;
  readonly folder: number;
  readonly name: string;
}

function unlock(held: HeldSocket | null): void {
  if (!held) return;
  held.server.close();
  closeSync(held.folder);
}

/**
 * Binds the abstract socket of the input folder `dir` (Linux only); null for a folder that is
 * not there, `held` when its name is `heldName` (this process holds it already). An abstract
 * socket is per network namespace, and any local user may bind its name first: a daemon in
 * another namespace is not seen, and such a user keeps this daemon from watching the folder
 * (docs/ARCHITECTURE.md). The dataDir's lock is not one (lockFolder).
 */
async function lockSocket(dir: string, heldName?: string): Promise<HeldSocket | 'held' | null> {
  if (process.platform !== 'linux') return null;
  let folder: number;
  try {
    folder = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch {
    return null; // not there, or not readable: the watcher waits for it, and says so
  }
  let name = '';
  try {
    name = inputSocketName(folder);
  } catch (err) {
    closeSync(folder);
    throw new DaemonLockFileError(dir, err);
  }
  if (name === heldName) {
    closeSync(folder);
    return 'held';
  }
  const server = createServer((peer) => peer.end(`${process.pid}\n`));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(name, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    closeSync(folder);
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new DaemonLockError(dir, await socketHolder(name), 'input.dir');
    throw new DaemonLockFileError(`the abstract socket of ${dir}`, err);
  }
  server.on('error', () => {}); // a peer's reset must not crash the daemon
  server.unref(); // the lock never keeps the process alive by itself
  return { server, folder, name };
}

/** The PID the socket's holder answers, or null when it says nothing in time. */
function socketHolder(name: string): Promise<number | null> {
  return new Promise((resolve) => {
    let text = '';
    const peer = createConnection(name);
    const done = () => {
      clearTimeout(timer);
      peer.destroy();
      const pid = /^(\d+)\n/.exec(text) ? Number(text.trim()) : null;
      resolve(pid !== null && pid !== process.pid ? pid : null);
    };
    const timer = setTimeout(done, HOLDER_ANSWER_MS);
    peer.setEncoding('utf8');
    peer.on('data', (chunk: string) => (text += chunk.slice(0, 32)));
    peer.on('end', done);
    peer.on('error', done);
  });
}

/** `ERR_DAEMON_LOCK`: the dataDir or its lock file cannot be opened or locked (permissions, a read-only mount, no flock program), or the input folder's socket not bound. */
export class DaemonLockFileError extends StationAgentError {
  readonly code: CodeOf<'DaemonLockFileError'> = 'ERR_DAEMON_LOCK';

  constructor(what: string, cause: unknown) {
    super(`cannot lock ${what}: ${errorMessage(cause)}`, { cause });
  }
}

/** The PID holding `file`'s lock: the kernel's lock table first, else the holder's own record. */
function lockHolder(file: string): number | null {
  const pid = pidFromProcLocks(file) ?? pidFromHeader(file);
  return pid !== null && pid !== process.pid && pidAlive(pid) ? pid : null;
}

// "1: POSIX  ADVISORY  WRITE 19011 fe:00:2148033 1073741824 1073742335" (waiters' lines have "->").
const PROC_LOCK = /^\d+:\s+POSIX\s+\S+\s+\S+\s+(\d+)\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/;

function pidFromProcLocks(file: string): number | null {
  try {
    const st = statSync(file, { bigint: true });
    // glibc's dev_t encoding; /proc/locks prints the major and minor in hex.
    const major = ((st.dev >> 8n) & 0xfffn) | ((st.dev >> 32n) & ~0xfffn);
    const minor = (st.dev & 0xffn) | ((st.dev >> 12n) & ~0xffn);
    for (const line of readFileSync('/proc/locks', 'utf8').split('\n')) {
      const m = PROC_LOCK.exec(line);
      if (!m || BigInt(m[4]) !== st.ino) continue;
      if (BigInt(parseInt(m[2], 16)) !== major || BigInt(parseInt(m[3], 16)) !== minor) continue;
      return Number(m[1]);
    }
  } catch {
    // No /proc/locks (not Linux, or ProcSubset=pid): the header says it.
  }
  return null;
}

/** SQLite's header keeps `user_version` as a big-endian 32-bit integer at byte 60. */
function pidFromHeader(file: string): number | null {
  try {
    const fd = openSync(file, 'r');
    try {
      const header = Buffer.alloc(64);
      if (readSync(fd, header, 0, 64, 0) < 64 || header.toString('latin1', 0, 15) !== 'SQLite format 3') return null;
      const pid = header.readInt32BE(60);
      return pid > 0 ? pid : null;
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

