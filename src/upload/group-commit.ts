import type { Queue } from '../queue/index.js';

/**
 * Group commit of the uploader's queue writes. With `synchronous=FULL` every commit
 * is an fsync, and better-sqlite3 runs it on the event loop: one commit for the claim
 * and one for the outcome of every upload made the disk, not the service, set the
 * pace. Here the outcomes (uploaded, retry, unknown, failed) that arrive while a commit
 * runs wait for the next one and are recorded together, each in its own savepoint,
 * and the uploader's next claim runs in the same transaction: one fsync for many items.
 *
 * Exactly once, across power cuts too:
 * - a claim is durable before its request goes out (the caller launches only after
 *   {@link GroupCommit.commit} returns, and a commit that claimed is fsynced before it
 *   returns), so after the process dies or the power goes a send always finds its item
 *   `sending`, which start-up recovery makes `unknown` (reconciled before any new post);
 * - a commit of outcomes alone is not fsynced (`synchronous=NORMAL`): the WAL holds it in
 *   the kernel's cache, which outlives the process, and the next durable commit (the next
 *   claim's, or ingest's) fsyncs it. A power cut in between takes the outcome back: the item
 *   is `sending` again (its claim was durable), recovery makes it `unknown`, and its lookup
 *   at the service adopts the id it already holds. That costs a lookup after a cut, never
 *   a duplicate, and saves the fsync of the last outcomes of every recording (its
 *   detections'): three per recording, the card's budget (docs/ARCHITECTURE.md, "The write
 *   path"). The opposite split (claims alone not fsynced, outcomes fsynced), the design
 *   before, cost as many fsyncs, and a claim lost with the power posted its soundscape twice;
 * - an outcome is reported (log, observer, the caller's promise) only once committed.
 *   An outcome lost to a crash before its commit leaves its item `sending`: the same
 *   recovery, and the service already holding it, the id is adopted, not re-posted;
 * - what depends on an outcome (a detection due because its recording is `uploaded`)
 *   is claimed in the same transaction as that outcome or a later one, never earlier.
 */

/**
 * The transactions of the queue database the group commit needs (src/queue/transaction.ts
 * and the queue's own `write`, `totalChanges` and `syncWal`): inside `commit`, the queue's
 * `write` is a savepoint, so a refused write undoes only its own rows.
 */
export interface CommitQueue extends Pick<Queue, 'write' | 'totalChanges' | 'syncWal'> {
  /**
   * Runs `fn` in one transaction and commits it durably; says whether it wrote (a commit
   * that wrote nothing costs no fsync). Refuses to run inside another transaction: its
   * "commit" would then be a savepoint, durable only later.
   */
  commit<T>(fn: () => T, options?: { durable?: boolean | (() => boolean) }): { value: T; wrote: boolean };
}

interface Waiting {
  write: () => void;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class GroupCommit {
  private pending: Waiting[] = [];
  /** Commits that wrote something so far (an fsync each when they claimed); a pass with nothing to record or claim costs none. */
  commits = 0;
  /** Writes recorded so far. */
  recorded = 0;
  /** A commit of outcomes alone was made since the last durable one. */
  private unsynced = false;

  /** @param onPending called when a first write waits: the owner should commit soon (not synchronously). */
  constructor(
    private readonly queue: CommitQueue,
    private readonly onPending: () => void,
  ) {}

  /** Writes waiting for the next commit. */
  get waiting(): number {
    return this.pending.length;
  }

  /**
   * Queues `write` for the next commit. Resolves once it is durable; rejects with its
   * own error (its savepoint undone, the others kept) or with the commit's.
   */
  record(write: () => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ write, resolve, reject });
      if (this.pending.length === 1) this.onPending();
    });
  }

  /**
   * One transaction: every waiting write, then `then` (the next claim), committed once.
   * Settles the writes after the commit. An error of `then` undoes only `then`'s own
   * writes and is thrown after the commit; an error of the commit itself rejects every
   * write of the batch and is thrown.
   */
  commit<T>(then: () => T): T {
    const batch = this.pending;
    this.pending = [];
    const errors = new Map<Waiting, unknown>();
    let result: { value: T } | { error: unknown } | undefined;
    let wrote: boolean;
    // Durable when `then` wrote (a claim: its request goes out after this returns); the
    // outcomes alone are not, until the next durable commit (see above).
    let claimed = false;
    try {
      ({ wrote } = this.queue.commit(() => {
        for (const w of batch) {
          try {
            this.queue.write(w.write);
          } catch (err) {
            errors.set(w, err);
          }
        }
        const before = this.queue.totalChanges();
        try {
          result = { value: this.queue.write(then) };
        } catch (error) {
          result = { error };
        }
        claimed = this.queue.totalChanges() > before;
      }, { durable: () => claimed }));
    } catch (err) {
      for (const w of batch) w.reject(err);
      throw err;
    }
    if (wrote) this.commits++;
    // A durable commit fsyncs every commit before it too.
    if (wrote) this.unsynced = !claimed;
    this.recorded += batch.length;
    for (const w of batch) {
      if (errors.has(w)) w.reject(errors.get(w));
      else w.resolve();
    }
    if (!result || 'error' in result) throw result?.error;
    return result.value;
  }

  /**
   * Makes the outcomes committed since the last durable commit durable (at stop: nothing
   * may come after them to fsync them). Costs nothing when none is waiting for an fsync.
   */
  flush(): void {
    if (!this.unsynced) return;
    this.queue.syncWal();
    this.unsynced = false;
  }
}
