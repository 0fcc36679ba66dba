import type { Queue } from './db.js';
import { OuterTransaction } from './transaction.js';

/**
 * Several queue operations under one commit, for a writer that owns its connection
 * (`station-agent ingest`): with `synchronous=FULL` each commit is an fsync, and a
 * backfill of small result files paid two per file (its detections, then its
 * `ingested_files` mark). Between `begin()` and `commit()` every queue operation's
 * transaction is a savepoint of this one (better-sqlite3 nests them), so a failed
 * operation still undoes only its own writes.
 *
 * Bounded by changed rows and by time (`commitIfFull`), so the write lock, which a
 * daemon beside it waits for (busy_timeout), is never held long, and the transaction's
 * pages never grow with the backfill. `ingest` also commits before copying audio into
 * the spool (seconds on an SD card), the one slow step between two queue writes. A crash loses at most the open batch: its files'
 * rows and their marks go together, so those files are read again on the next run
 * (dedupe keys; audio moved into the spool is found there again).
 *
 * The transaction and its nesting guard are `transaction.ts`'s, shared with the
 * uploader's group commit. Not for the daemon: its uploader shares the connection, and a claim made inside an
 * open batch would not be durable before its request went out (the group commit refuses
 * to run inside another transaction).
 */
export interface WriteBatchLimits {
  /** Commit once this many rows were inserted, updated or deleted (SQLite's total_changes). */
  maxRows: number;
  /** Commit once the batch has been open this long (ms). */
  maxMs: number;
}

/** `station-agent ingest`: a quarter of a second or 10,000 rows per commit. */
export const INGEST_BATCH: WriteBatchLimits = { maxRows: 10_000, maxMs: 250 };

export class WriteBatch {
  private readonly tx: OuterTransaction;
  private openSince: number | null = null;
  /** Transactions committed (tests). */
  commits = 0;

  constructor(
    q: Queue,
    private readonly limits: WriteBatchLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tx = new OuterTransaction(q, 'a write batch');
  }

  /** Opens the batch unless it is open. */
  begin(): void {
    if (this.openSince !== null && this.tx.isOpen) return;
    this.tx.begin();
    this.openSince = this.now();
  }

  /** Commits, and opens the next batch, when this one has reached a bound. */
  commitIfFull(): void {
    if (this.openSince === null) return;
    const full = this.tx.changes() >= this.limits.maxRows || this.now() - this.openSince >= this.limits.maxMs;
    if (!full) return;
    this.commit();
    this.begin();
  }

  /**
   * Commits what the batch holds. An error SQLite answers with a rollback of the whole
   * transaction (a full disk) has ended it already; the operations after it committed on their own.
   */
  commit(): void {
    if (this.openSince === null) return;
    this.openSince = null;
    if (this.tx.commit()) this.commits++;
  }

  /** Undoes what the batch holds (an error the caller does not recover from). */
  rollback(): void {
    this.openSince = null;
    this.tx.rollback();
  }
}
