/**
 * Group commit of the uploader's queue writes. With `synchronous=FULL` every commit
 * is an fsync, and better-sqlite3 runs it on the event loop: one commit for the claim
 * and one for the outcome of every upload made the disk, not the service, set the
 * pace. Here the outcomes (uploaded, retry, unknown, failed) that arrive while a commit
 * runs wait for the next one and are recorded together, each in its own savepoint,
 * and the uploader's next claim runs in the same transaction: one fsync for many items.
 *
 * Exactly once, and what a power cut may cost:
 * - a claim is committed before its request goes out (the caller launches only after
 *   {@link GroupCommit.commit} returns), so after the process dies (a crash, SIGKILL,
 *   an OOM kill) a send always finds its item `sending`, which start-up recovery makes
 *   `unknown` (reconciled before any new post). A commit of claims alone is not
 *   fsynced (`synchronous=NORMAL` for it): the WAL holds it in the kernel's cache, which
 *   outlives the process, and the next commit with an outcome (the claim's own, a few
 *   hundred milliseconds later) fsyncs the WAL and the claim with it. Only a power cut
 *   in between loses the claim: the item is `pending` again and may be posted twice (a
 *   duplicate, never a loss). That saves an fsync per recording (docs/ARCHITECTURE.md,
 *   "The write path");
 * - an outcome is reported (log, observer, the caller's promise) only once committed.
 *   An outcome lost to a crash before its commit leaves its item `sending`: the same
 *   recovery, and the service already holding it, the id is adopted, not re-posted;
 * - what depends on an outcome (a detection due because its recording is `uploaded`)
 *   is claimed in the same transaction as that outcome or a later one, never earlier.
 */

/** The transactions of the queue database the group commit needs (src/queue/transaction.ts). */
export interface CommitQueue {
  /**
   * Runs `fn` in one transaction and commits it durably; says whether it wrote (a commit
   * that wrote nothing costs no fsync). Refuses to run inside another transaction: its
   * "commit" would then be a savepoint, durable only later.
   */
  commit<T>(fn: () => T, options?: { durable?: boolean }): { value: T; wrote: boolean };
  /** Runs `fn` in a savepoint of the current transaction: if it throws, only its writes are undone. */
  savepoint<T>(fn: () => T): T;
}

interface Waiting {
  write: () => void;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class GroupCommit {
  private pending: Waiting[] = [];
  /** Commits that wrote something (one fsync each) so far; a pass with nothing to record or claim costs none. */
  commits = 0;
  /** Writes recorded so far. */
  recorded = 0;

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
    try {
      // Outcomes are durable at their commit (an fsync). A commit of claims alone is not:
      // it reaches the WAL (a SIGKILL keeps it) and is fsynced with the next outcome's.
      ({ wrote } = this.queue.commit(() => {
        for (const w of batch) {
          try {
            this.queue.savepoint(w.write);
          } catch (err) {
            errors.set(w, err);
          }
        }
        try {
          result = { value: this.queue.savepoint(then) };
        } catch (error) {
          result = { error };
        }
      }, { durable: batch.length > 0 }));
    } catch (err) {
      for (const w of batch) w.reject(err);
      throw err;
    }
    if (wrote) this.commits++;
    this.recorded += batch.length;
    for (const w of batch) {
      if (errors.has(w)) w.reject(errors.get(w));
      else w.resolve();
    }
    if (!result || 'error' in result) throw result?.error;
    return result.value;
  }
}
