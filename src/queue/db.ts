import { closeSync, fdatasyncSync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { errorMessage } from '../errors.js';
import { openSqlite } from '../system/sqlite.js';
import { QueueDatabaseError, QueueError } from './errors.js';
import { migrate } from './migrations.js';

/** Options of {@link openQueue}. */
export interface OpenQueueOptions {
  /**
   * How long a statement waits for another connection's write lock before failing
   * with SQLITE_BUSY. The CLI writes to the same file while the daemon runs.
   * Default 5000 ms.
   */
  busyTimeoutMs?: number;
}

export interface IntegrityReport {
  ok: boolean;
  /** The lines of `PRAGMA integrity_check` other than `ok`. */
  problems: string[];
}

/**
 * An open queue database. Queue operations are functions over it (one file each);
 * `stmt()` caches prepared statements so the hot paths do not re-prepare.
 */
export class Queue {
  private readonly statements = new Map<string, Database.Statement>();
  /**
   * The one transaction function, made once and given the work to run: `db.transaction(fn)`
   * builds five wrappers per call, and every queue operation runs one (inside a group
   * commit or a write batch, a savepoint: better-sqlite3 nests them).
   */
  private readonly transaction: Database.Transaction<(fn: () => unknown) => unknown>;

  constructor(
    readonly db: Database.Database,
    /** The database file, for messages. */
    readonly path: string,
  ) {
    this.transaction = db.transaction((fn: () => unknown) => fn());
  }

  stmt(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs `fn` in one transaction (BEGIN IMMEDIATE when it writes, so it never fails half way on a lock upgrade). */
  write<T>(fn: () => T): T {
    return this.transaction.immediate(fn) as T;
  }

  /** Runs `fn` in one read transaction: a consistent snapshot across statements. */
  read<T>(fn: () => T): T {
    return this.transaction.deferred(fn) as T;
  }

  /** Rows inserted, updated or deleted on this connection so far (SQLite's total_changes): what tells a commit that wrote. */
  totalChanges(): number {
    return this.stmt('SELECT total_changes()').pluck().get() as number;
  }

  /** `PRAGMA integrity_check`; damage so bad that the check itself fails is reported as a problem too. */
  integrityCheck(): IntegrityReport {
    let rows: { integrity_check: string }[];
    try {
      rows = this.db.pragma('integrity_check', { simple: false }) as { integrity_check: string }[];
    } catch (err) {
      return { ok: false, problems: [`integrity check of ${this.path} failed: ${errorMessage(err)}`] };
    }
    const problems = rows.map((r) => r.integrity_check).filter((line) => line !== 'ok');
    return { ok: problems.length === 0, problems };
  }

  get open(): boolean {
    return this.db.open;
  }

  private walDirSynced = false;

  /**
   * Makes every commit so far durable: an fdatasync of the WAL, what a commit under
   * `synchronous=FULL` does at its end (SQLite's unix VFS syncs with fdatasync on Linux).
   * For a commit whose durability is known only once it ran (the uploader's: durable when
   * it claimed, see src/upload/group-commit.ts): `synchronous` cannot change inside a
   * transaction, so such a commit runs under NORMAL and is synced here after. The file is
   * opened for each sync: SQLite may delete and create the WAL again (the last connection's
   * close), and a descriptor kept open would then sync a file no longer read. The folder is
   * synced once per connection too, as SQLite does at a new WAL's first sync (a WAL created
   * since the last durable commit would otherwise be a name a power cut can take back); the
   * daemon does that at start (daemon/prepare.ts), so no recording pays for it.
   */
  syncWal(): void {
    let fd: number;
    try {
      fd = openSync(`${this.path}-wal`, 'r');
    } catch (err) {
      // No WAL (nothing written through this connection yet): nothing to make durable.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    try {
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (this.walDirSynced) return;
    this.walDirSynced = true;
    let dir: number | undefined;
    try {
      dir = openSync(path.dirname(this.path), 'r');
      fsyncSync(dir);
    } catch {
      // A platform that cannot open or sync a folder: the WAL's own sync has happened.
    } finally {
      if (dir !== undefined) closeSync(dir);
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/**
 * Opens (and creates or migrates) the queue database at `dbPath`.
 *
 * - `journal_mode=WAL`: readers (the CLI's `status`) never block the writer.
 * - `synchronous=FULL`, set explicitly: better-sqlite3's build defaults to NORMAL,
 *   which in WAL mode can lose the last commits on power loss. A station on an SD
 *   card loses power; a lost commit is a lost or duplicated upload. (The uploader's
 *   commits of outcomes alone are the exception: a lost one costs a lookup at the
 *   service, see src/upload/group-commit.ts.)
 * - `page_size` {@link PAGE_SIZE} for a new file; `wal_autocheckpoint` so that the WAL
 *   grows to about {@link WAL_CHECKPOINT_BYTES} between checkpoints, whatever the page
 *   size: a checkpoint copies each page changed since the last one into the database
 *   once (and costs two fsyncs), so the pages every recording touches (the per-state
 *   counts, the top of each index) are copied once per some 100 recordings.
 * - `busy_timeout`: the CLI and the daemon open the same file.
 * - `foreign_keys=ON`: a detection's recording must exist.
 * - `journal_size_limit`: the WAL file is truncated back after checkpoints, so a
 *   large backlog does not leave a large file on the card.
 * - `cache_size` {@link CACHE_KIB} KiB: better-sqlite3 builds SQLite with a page cache of
 *   16 MB per connection, which fills as the queue grows and is never given back (the
 *   process's malloc heap grew by 19 MB queuing a 265,000-row table). The pages every
 *   commit touches (the per-state counts, the top of each index) fit in 2 MB, SQLite's own
 *   default; the rest is read from the kernel's page cache.
 *
 * Throws {@link QueueDatabaseError} (`ERR_QUEUE`, naming the path) when the file is not a
 * database, is corrupt, or cannot be opened.
 */
/**
 * Bytes per database page of a new queue. Every commit appends each page it changed to
 * the WAL, whole: a recording's ingest, claim and outcomes change some 35 pages (rows,
 * their indexes, the per-state counts), about 140 KB at SQLite's default 4 KB and a
 * quarter of that at 1 KB. The cost is a deeper B-tree for a large history (a lookup
 * reads a page or two more, from the cache).
 */
const PAGE_SIZE = 1024;

/** The page cache of a queue connection, in KiB (see {@link openQueue}). */
const CACHE_KIB = 2048;

/** WAL bytes between automatic checkpoints (SQLite's default is 1,000 pages). */
const WAL_CHECKPOINT_BYTES = 4 * 1024 * 1024;

export function openQueue(dbPath: string, options: OpenQueueOptions = {}): Queue {
  const file = path.resolve(dbPath);
  try {
    mkdirSync(path.dirname(file), { recursive: true });
  } catch (err) {
    throw new QueueDatabaseError(`cannot create the folder of queue database ${file}: ${errorMessage(err)}`, { cause: err });
  }
  let db: Database.Database | undefined;
  try {
    db = openSqlite(file);
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5_000}`);
    // Only a new, empty file takes it (an existing database keeps its page size).
    db.pragma(`page_size = ${PAGE_SIZE}`);
    const mode = db.pragma('journal_mode = WAL', { simple: true }) as string;
    if (mode.toLowerCase() !== 'wal') {
      throw new QueueDatabaseError(`queue database ${file} cannot use WAL journaling (got ${mode})`);
    }
    db.pragma('synchronous = FULL');
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.pragma(`wal_autocheckpoint = ${Math.max(1000, Math.floor(WAL_CHECKPOINT_BYTES / pageSize))}`);
    db.pragma('foreign_keys = ON');
    db.pragma(`journal_size_limit = ${32 * 1024 * 1024}`);
    db.pragma(`cache_size = -${CACHE_KIB}`);
    migrate(db, file);
    return new Queue(db, file);
  } catch (err) {
    db?.close();
    if (err instanceof QueueError) throw err;
    throw new QueueDatabaseError(describeOpenError(file, err), { cause: err });
  }
}

function describeOpenError(file: string, err: unknown): string {
  const code = err && typeof err === 'object' && 'code' in err ? String(err.code) : '';
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return `queue database ${file} is not a SQLite database or is corrupt (${errorMessage(err)}); move it aside and restart to begin an empty queue`;
  }
  return `cannot open queue database ${file}: ${errorMessage(err)}`;
}
