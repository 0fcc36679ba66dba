import { mkdirSync, openSync, readSync, closeSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { StationAgentError, errorMessage } from '../errors.js';

/**
 * One daemon per dataDir. Two `station-agent run` on one queue (one by hand beside
 * systemd, two template units sharing a dataDir) would each mark the other's
 * in-flight items `unknown` at start and post them again: duplicates at the service.
 *
 * The lock is SQLite's own POSIX (fcntl) lock on `<dataDir>/daemon.lock`: with
 * `locking_mode=EXCLUSIVE`, the first write transaction takes the EXCLUSIVE lock and
 * the connection keeps it until it closes. The kernel drops an fcntl lock when its
 * process dies, whatever the death (SIGKILL, OOM, power loss): no stale lock file
 * ever blocks a restart, and no PID is trusted to decide anything. The file stays;
 * it is the lock's inode, not a flag.
 *
 * The PID in the refusal comes from the kernel's lock table (`/proc/locks`), else
 * from the file's header, where the holder wrote it (`user_version`) in the very
 * transaction that took the lock (a unit with `ProcSubset=pid` cannot see
 * `/proc/locks`; the header is plain bytes on disk, readable without SQLite's lock).
 *
 * Only `run` takes it; the CLI's commands open the queue beside the daemon as before.
 */
export const DAEMON_LOCK_FILE = 'daemon.lock';

/** `ERR_DAEMON_RUNNING`: another process holds the dataDir's lock. */
export class DaemonLockError extends StationAgentError {
  readonly code = 'ERR_DAEMON_RUNNING';

  constructor(
    readonly dataDir: string,
    /** The holder's PID, when it could be found. */
    readonly holderPid: number | null,
  ) {
    const who = holderPid === null ? 'another process' : `another station-agent (pid ${holderPid})`;
    super(
      `${who} is already running on dataDir ${dataDir} (it holds ${path.join(dataDir, DAEMON_LOCK_FILE)}); ` +
        'only one daemon may use a queue: stop the other one (systemctl stop station-agent) or give this one its own dataDir',
    );
  }
}

export interface DaemonLock {
  readonly path: string;
  /** Releases the lock (closing the connection drops the fcntl lock). Idempotent. */
  release(): void;
}

/** Takes the dataDir's lock or throws {@link DaemonLockError} naming the holder. */
export function acquireDaemonLock(dataDir: string): DaemonLock {
  const dir = path.resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, DAEMON_LOCK_FILE);
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { timeout: 0 });
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.pragma(`user_version = ${process.pid}`);
    db.exec('COMMIT');
  } catch (err) {
    db?.close();
    if ((err as { code?: unknown }).code === 'SQLITE_BUSY') throw new DaemonLockError(dir, lockHolder(file));
    throw new DaemonLockFileError(file, err);
  }
  const held = db;
  return {
    path: file,
    release: () => {
      if (held.open) held.close();
    },
  };
}

/** `ERR_DAEMON_LOCK`: the lock file itself cannot be created or opened (permissions, read-only mount). */
export class DaemonLockFileError extends StationAgentError {
  readonly code = 'ERR_DAEMON_LOCK';

  constructor(file: string, cause: unknown) {
    super(`cannot lock ${file}: ${errorMessage(cause)}`, { cause });
  }
}

/** The PID holding `file`'s lock: the kernel's lock table first, else the holder's own record. */
function lockHolder(file: string): number | null {
  const pid = pidFromProcLocks(file) ?? pidFromHeader(file);
  return pid !== null && pid !== process.pid && isAlive(pid) ? pid : null;
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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
