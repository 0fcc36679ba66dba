import type { Queue } from './db.js';
import { QueueDatabaseError } from './errors.js';

/**
 * The outer transaction of a writer that puts several queue operations under one commit:
 * the uploader's group commit (src/upload/group-commit.ts) and `ingest`'s write batch
 * (write-batch.ts). With `synchronous=FULL` each commit is an fsync; inside this
 * transaction every queue operation's own `q.write` is a savepoint (better-sqlite3 nests
 * them), so a failed operation still undoes only its own writes.
 *
 * It refuses to begin inside another transaction: its commit would then be a savepoint,
 * durable only when someone else commits, and both writers promise durability at their
 * commit (a claim before its request goes out; a file's rows with its mark).
 */
export class OuterTransaction {
  private changesAtBegin: number | null = null;

  /** @param what the writer, for the refusal's message (`a group commit`, `a write batch`). */
  constructor(
    private readonly q: Queue,
    private readonly what: string,
  ) {}

  /**
   * Runs `fn` in one transaction: its result, and whether it wrote (a commit that wrote
   * nothing costs no fsync). Committed durably (`synchronous=FULL`: the WAL is fsynced)
   * unless `durable: false`, which commits with `synchronous=NORMAL`: the commit is in
   * the WAL, which survives the process's death (SIGKILL, a crash) but not a power cut
   * until the next durable commit fsyncs the WAL, and with it every commit before.
   * `durable` as a function: committed under NORMAL, then asked (after `fn`, before the
   * commit returns) whether this commit must be durable; if so the WAL is fsynced
   * ({@link Queue.syncWal}), which makes it as durable as a FULL commit, and every commit
   * before it. One fsync either way, and only when it must.
   */
  static run<T>(q: Queue, what: string, fn: () => T, options: { durable?: boolean | (() => boolean) } = {}): { value: T; wrote: boolean } {
    const durable = options.durable ?? true;
    if (durable !== true) {
      if (q.db.inTransaction) throw new QueueDatabaseError(`${what} cannot begin inside another transaction on ${q.path}`);
      // Cached statements, as for BEGIN and COMMIT below: `db.pragma()` and `db.exec()`
      // compile their SQL at every call, several times per recording.
      q.stmt('PRAGMA synchronous = NORMAL').run();
      let result: { value: T; wrote: boolean };
      try {
        result = OuterTransaction.run(q, what, fn);
      } finally {
        q.stmt('PRAGMA synchronous = FULL').run();
      }
      if (result.wrote && typeof durable === 'function' && durable()) q.syncWal();
      return result;
    }
    const tx = new OuterTransaction(q, what);
    tx.begin();
    let value: T;
    try {
      value = fn();
    } catch (err) {
      tx.rollback();
      throw err;
    }
    const wrote = tx.changes() > 0;
    // SQLite ended it under `fn` (a full disk rolls back the whole transaction): what `fn`
    // reported as done is undone, and must not be reported as durable.
    if (!tx.commit()) throw new QueueDatabaseError(`${what} on ${q.path} was rolled back by SQLite before its commit`);
    return { value, wrote };
  }

  /** Open, and not ended by SQLite (an error such as a full disk rolls the whole transaction back). */
  get isOpen(): boolean {
    return this.changesAtBegin !== null && this.q.db.inTransaction;
  }

  /** BEGIN IMMEDIATE: the write lock now, so no statement inside fails half way on a lock upgrade. */
  begin(): void {
    if (this.q.db.inTransaction) {
      throw new QueueDatabaseError(`${this.what} cannot begin inside another transaction on ${this.q.path}: its commit would not be durable`);
    }
    this.q.stmt('BEGIN IMMEDIATE').run();
    this.changesAtBegin = this.q.totalChanges();
  }

  /** Rows inserted, updated or deleted since {@link begin} (SQLite's total_changes). */
  changes(): number {
    return this.changesAtBegin === null ? 0 : this.q.totalChanges() - this.changesAtBegin;
  }

  /** Commits; true when it did, false when it was not open (or SQLite had ended it). A failed COMMIT is rolled back and thrown. */
  commit(): boolean {
    const open = this.isOpen;
    this.changesAtBegin = null;
    if (!open) return false;
    try {
      this.q.stmt('COMMIT').run();
      return true;
    } catch (err) {
      if (this.q.db.inTransaction) this.q.stmt('ROLLBACK').run();
      throw err;
    }
  }

  rollback(): void {
    this.changesAtBegin = null;
    if (this.q.db.inTransaction) this.q.stmt('ROLLBACK').run();
  }
}
