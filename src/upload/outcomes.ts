import type { Logger } from 'pino';
import { errorCode, errorMessage } from '../errors.js';
import { QueueTransitionError, type ItemKind } from '../queue/index.js';
import type { Decision } from './decide.js';
import { GroupCommit } from './group-commit.js';
import type { LinkGate } from './link-policy.js';
import type { UploadObserver } from './ports.js';
import type { SendResult } from './send.js';
import type { UploadQueue } from './upload-queue.js';

/**
 * The longest an outcome waits for those of the other requests in flight, to share their
 * commit (an fsync). Detections of one recording are posted together and answer within
 * milliseconds of each other; a long soundscape upload beside them is not waited for.
 */
const OUTCOME_WAIT_MS = 100;

/** How a send failed, as `UploadHealth.failed` decided it: what the queue records and what is reported. */
export interface Failure {
  d: Decision;
  /** When the item may go again (`unknown`: its lookup); `delayMs` after the decision. */
  nextAttemptAt: number;
  delayMs: number;
  elapsedMs: number;
  /** The uploader is stopping: an abandoned request, not the service's fault. */
  stopping: boolean;
}

/** The upload loop, as the outcome writer sees it: whether it runs, and how to wake its next pass. */
export interface PassWaker {
  readonly running: boolean;
  /** Wakes the loop's next pass (which commits the waiting outcomes with its claims); false when no pass waits to be woken. */
  wake(): boolean;
}

/**
 * Writes how each send ended: the queue transition of the outcome (`markUploaded`, or
 * what `decide` made of a failure) in the next group commit (`group-commit.ts`), and
 * reports it (log, observer) only once that commit is done. The next pass's claim shares
 * the commit; without a pass to come (stopping), the outcomes commit alone.
 *
 * An outcome the queue refused to record (disk full, locked) leaves its item `sending` in
 * the database: the item is kept here ("stranded") and made `unknown` as soon as the
 * database takes writes again.
 */
export class OutcomeWriter {
  readonly commits: GroupCommit;
  /** Requests whose outcome is not yet handed to the group commit: what holds a slot. */
  private sends = 0;
  /** Service ids whose `markUploaded` waits for its commit (not yet visible to `isRemoteIdTaken`). */
  private readonly adopting = new Set<string>();
  /** A commit on its way: in the next turn of the event loop, or once the other requests in flight answer (at most OUTCOME_WAIT_MS). */
  private next: 'soon' | NodeJS.Timeout | null = null;
  private readonly stranded = new Map<string, { kind: ItemKind; id: number }>();

  constructor(
    private readonly queue: UploadQueue,
    private readonly log: Logger,
    private readonly observer: UploadObserver,
    private readonly loop: PassWaker,
    private readonly link?: LinkGate,
  ) {
    this.commits = new GroupCommit(queue, () => this.schedule());
  }

  /** Requests out whose outcomes are still to come. */
  get requestsOut(): number {
    return this.sends;
  }

  /** A pass has something to write before its claims (outcomes, stranded items): it opens a transaction even when it may claim nothing. */
  get waiting(): boolean {
    return this.commits.waiting > 0 || this.stranded.size > 0;
  }

  /** Whether an item already holds (or is about to be recorded with) this service id. */
  isRemoteIdTaken(kind: ItemKind, remoteId: number): boolean {
    return this.adopting.has(`${kind}:${remoteId}`) || this.queue.isRemoteIdTaken(kind, remoteId);
  }

  /** A request goes out: its outcome is to come. */
  sending<T>(send: Promise<T>): Promise<T> {
    this.sends++;
    return send.finally(() => this.sends--);
  }

  /** One pass's transaction: the waiting outcomes, then `claim` (the pass's claims), committed once. */
  commitPass<T>(claim: () => T): T {
    return this.commits.commit(claim);
  }

  /** `markUploaded` in the next group commit; resolves once it is durable. */
  async uploaded(kind: ItemKind, id: number, result: SendResult): Promise<void> {
    const key = `${kind}:${result.remoteId}`;
    this.adopting.add(key);
    try {
      await this.record(() => {
        this.queue.markUploaded(kind, id, result.remoteId, result.sentBytes);
        if (kind === 'recording') this.link?.audioDone();
      });
    } finally {
      this.adopting.delete(key);
    }
  }

  /** What is reported of an upload once its commit is durable. */
  reportUploaded(kind: ItemKind, id: number, result: SendResult, elapsedMs: number): void {
    this.observer.outcome?.(kind, result.reconciled ? 'reconciled' : 'uploaded', elapsedMs, result.bytes);
    this.log.info(
      { kind, item: id, remoteId: result.remoteId, reconciled: result.reconciled || undefined },
      result.reconciled ? `${kind} already at the service: id adopted` : `${kind} uploaded`,
    );
  }

  /**
   * A `pending` recording whose audio the encode step could not encode fails before any
   * request (inside the pass's transaction), and is reported at once.
   */
  unencodable(id: number, spoolPath: string, fault: Error): void {
    const code = errorCode(fault);
    if (!this.queue.markUnencodable(id, spoolPath, { error: fault.message, code })) return;
    this.observer.outcome?.('recording', 'failed', 0);
    this.log.error({ kind: 'recording', item: id, code }, `recording not uploadable, its detections go without a soundscape: ${fault.message}`);
  }

  /** A failed send's decision recorded in the next group commit, and reported once committed. */
  async failed(kind: ItemKind, id: number, failure: Failure): Promise<void> {
    const { d, nextAttemptAt } = failure;
    const fields = { error: d.message, code: d.code };
    try {
      await this.record(() => {
        if (d.action === 'fail') this.queue.markFailed(kind, id, fields);
        else if (d.action === 'unknown') this.queue.markUnknown(kind, id, { ...fields, nextAttemptAt });
        else this.queue.markRetry(kind, id, { ...fields, nextAttemptAt });
        // The bytes a failed soundscape upload sent still count toward the day's budget.
        if (kind === 'recording') this.link?.audioDone();
      });
    } catch (writeErr) {
      if (writeErr instanceof QueueTransitionError) this.operatorMoved(kind, id, writeErr);
      else this.strand(kind, id, writeErr);
      return;
    }
    this.report(kind, id, failure);
  }

  /** An operator dropped or retried the item while it was in flight: their word stands. */
  operatorMoved(kind: ItemKind, id: number, err: QueueTransitionError): void {
    this.log.warn({ kind, item: id }, `${kind} changed by an operator while being sent: ${err.message}`);
  }

  /**
   * At stop, once nothing is in flight: the last outcomes commit and are made durable
   * (nothing comes after them to fsync them: a power cut after a clean stop would
   * otherwise cost their lookups at the next start).
   */
  finish(): void {
    if (this.next !== null && this.next !== 'soon') clearTimeout(this.next);
    this.next = null;
    if (this.commits.waiting > 0) this.commitAlone();
    try {
      this.commits.flush();
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'the last upload outcomes could not be made durable: they are looked up at the service after a power cut');
    }
  }

  private record(write: () => void): Promise<void> {
    const recorded = this.commits.record(write);
    // The last of the requests in flight answered: its outcomes need not wait any longer.
    if (this.next !== null && this.next !== 'soon' && this.sends === 0) {
      clearTimeout(this.next);
      this.next = null;
      this.schedule();
    }
    return recorded;
  }

  private report(kind: ItemKind, item: number, { d, delayMs, elapsedMs, stopping }: Failure): void {
    switch (d.action) {
      case 'retry':
        this.observer.outcome?.(kind, 'retry', elapsedMs);
        this.log.warn({ kind, item, code: d.code, retryInMs: delayMs }, `${kind} upload failed, will retry: ${d.message}`);
        return;
      case 'unknown':
        this.observer.outcome?.(kind, 'unknown', elapsedMs);
        this.log.warn(
          { kind, item, code: d.code },
          stopping
            ? `${kind} upload abandoned at shutdown; it will be reconciled before any new post`
            : `${kind} upload outcome unknown; it will be reconciled before any new post: ${d.message}`,
        );
        return;
      case 'pause':
        this.observer.outcome?.(kind, 'paused', elapsedMs);
        return;
      case 'fail':
        this.observer.outcome?.(kind, 'failed', elapsedMs);
        this.log.error({ kind, item, code: d.code }, `${kind} failed, not retried automatically: ${d.message}`);
    }
  }

  /**
   * A first outcome waits for its commit. While other requests are in flight (a
   * recording's detections go out together and answer within milliseconds of each
   * other), it waits for their outcomes too, at most {@link OUTCOME_WAIT_MS}: one fsync
   * for all of them instead of one each. Then it commits once the outcomes that arrived
   * in the same turn of the event loop are all in, together with the next claim (the
   * loop's pass), or alone when stopped.
   */
  private schedule(): void {
    if (this.next !== null) return;
    if (this.sends > 0 && this.loop.running) {
      // At the deadline the outcomes commit, with the claims for the slots their answers
      // freed, whatever is still in flight: one slow answer (a long soundscape upload on a
      // slow link) holds neither the others' outcomes nor their slots beyond it.
      this.next = setTimeout(() => {
        this.next = null;
        this.commitSoon();
      }, OUTCOME_WAIT_MS);
      return;
    }
    this.commitSoon();
  }

  private commitSoon(): void {
    if (this.next === 'soon') return;
    this.next = 'soon';
    setImmediate(() => {
      this.next = null;
      if (this.commits.waiting === 0) return;
      if (!(this.loop.running && this.loop.wake())) this.commitAlone();
    });
  }

  private commitAlone(): void {
    try {
      this.commits.commit(() => undefined);
    } catch (err) {
      this.log.error({ err: errorMessage(err) }, 'upload outcomes: queue error');
    }
  }

  private strand(kind: ItemKind, id: number, err: unknown): void {
    this.stranded.set(`${kind}:${id}`, { kind, id });
    this.log.error(
      { kind, item: id, err: errorMessage(err) },
      `${kind} outcome not recorded, the queue database refused the write; it will be reconciled once the database takes writes again`,
    );
  }

  /** Stranded items become `unknown` (reconciled before any new post: the service may have them), once the database takes the write. */
  unstrand(now: number): void {
    for (const [key, { kind, id }] of this.stranded) {
      try {
        this.queue.markUnknown(kind, id, { error: 'the outcome of the send could not be recorded', code: 'ERR_OUTCOME_UNKNOWN', nextAttemptAt: now });
      } catch (err) {
        // Refused again: the next pass tries again. Moved by an operator meanwhile: theirs.
        if (!(err instanceof QueueTransitionError)) return;
      }
      this.stranded.delete(key);
    }
  }
}
