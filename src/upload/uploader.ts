import type { Logger } from 'pino';
import { errorCode, errorMessage } from '../errors.js';
import { AdaptiveConcurrency } from './adaptive-concurrency.js';
import { backoffDelay, type BackoffOptions } from '../system/backoff.js';
import { CircuitBreaker, type CircuitState } from './circuit-breaker.js';
import { GroupCommit } from './group-commit.js';
import { decide, type Decision, type PauseReason } from './decide.js';
import type { UploadApi, UploadObserver } from './ports.js';
import { SpeciesIdCache } from './reconcile.js';
import { sendDetection, sendRecording, type SendContext, type SendResult, type SoundscapeBody } from './send.js';
import { QueueTransitionError, type ClaimedDetection, type ItemKind, type RecordingItem } from '../queue/index.js';
import type { PreparedSoundscape, SoundscapePreparer } from '../encode/soundscape-preparer.js';
import type { UploadQueue } from './upload-queue.js';
import type { LinkGate, LinkVerdict } from './link-policy.js';

export interface UploaderOptions {
  /** Most requests in flight; the adaptive limit moves between 1 and this. */
  concurrency: number;
  backoff: BackoffOptions;
  /** How often a paused or tripped uploader probes the service. */
  probeIntervalMs: number;
  /** Detections whose audio could not be spooled go without a soundscape after this. */
  noSoundscapeAfterMs: number;
  /**
   * No soundscape is uploaded at all (`privacy.audio: never`): recordings are never
   * claimed, also those queued before the switch, and detections never wait for one.
   */
  audioWithheld?: () => boolean;
  /**
   * The least time between an unknown outcome and the lookup that reconciles it. The
   * real service goes on storing a request after the client gave up on it, so looking
   * too soon finds nothing and the re-post duplicates. Default 0 (tests); the daemon
   * uses twice the request timeout.
   */
  reconcileDelayMs?: number;
  /**
   * How long `stop()` lets requests in flight finish before abandoning them. An
   * abandoned request becomes `unknown` and costs a lookup at the next start, and a
   * request the service already stored would otherwise be reconciled rather than
   * recorded: a restart by systemd should not turn every in-flight item into one.
   * Default 0 (tests that stop on purpose mid-request); the daemon uses 5 s, well
   * inside the unit's TimeoutStopSec.
   */
  stopGraceMs?: number;
  /**
   * Upload windows, data budget and bandwidth cap (`link-policy.ts`). Absent: every
   * item goes as soon as it is due, at full speed. A link hold is not a pause: the
   * station is fine, it waits by design (status shows it under "Link").
   */
  link?: LinkGate;
  /**
   * The encode step (src/encode): WAV recordings are encoded into memory before their
   * claim and sent from there. Absent: only recordings whose spool file is FLAC go.
   */
  soundscapes?: SoundscapePreparer;
  now?: () => number;
}

export interface UploaderStatus {
  running: boolean;
  inFlight: number;
  concurrencyLimit: number;
  circuit: CircuitState;
  circuitRetryAt: number | null;
  probes: number;
  paused: { reason: string; message: string; since: number }[];
  lastSuccessAt: number | null;
  lastError: { message: string; code: string; at: number } | null;
}

/**
 * The longest an outcome waits for those of the other requests in flight, to share their
 * commit (an fsync). Detections of one recording are posted together and answer within
 * milliseconds of each other; a long soundscape upload beside them is not waited for.
 */
export const OUTCOME_WAIT_MS = 100;

/** Something other than the service that holds all uploads (an unsynchronised clock). */
export type HoldCheck = () => string | null;

/** Why uploads are not flowing: the service's verdicts, or the station's own clock. */
export type HoldReason = PauseReason | 'clock-unsynchronized';

/**
 * The upload loop. It claims due items from the queue as slots free up, sends
 * them, and turns every failure into a queue transition through the decision table
 * in `decide.ts`. Recordings go before detections (a detection is only due once
 * its soundscape has the service's id); claims alternate between the newest and
 * the oldest items so a backlog of days never starves today's recordings.
 *
 * Queue writes go through a group commit (`group-commit.ts`): the outcomes that arrive
 * while a commit runs are recorded together in the next one, which also holds the next
 * claim; a request goes out only once its claim is committed, and an outcome is
 * reported only once it is.
 *
 * A recording whose spool file is a WAV is encoded into memory first (`soundscapes`, the
 * encode step), while it is still `pending`: the encode holds a slot, and the pass after
 * it claims the recording by id and sends the FLAC from memory. `sending` thus always
 * means that a request may be at the service.
 */
export class Uploader {
  private readonly circuit: CircuitBreaker;
  private readonly concurrency: AdaptiveConcurrency;
  private readonly inFlight = new Set<Promise<void>>();
  /** Requests whose outcome is not yet handed to the group commit: what holds a slot. */
  private sends = 0;
  private readonly commits: GroupCommit;
  /** Service ids whose `markUploaded` waits for its commit (not yet visible to `isRemoteIdTaken`). */
  private readonly adopting = new Set<string>();
  private commitScheduled = false;
  /** Outcomes wait for those of the other requests in flight (at most OUTCOME_WAIT_MS). */
  private commitTimer: NodeJS.Timeout | null = null;
  /** FLACs from memory the current pass claimed: released if its commit fails (nothing goes out). */
  private passBodies: SoundscapeBody[] = [];
  /** The current pass took the half-open circuit's one probe permission. */
  private probeTaken = false;
  private readonly abort = new AbortController();
  private readonly species = new SpeciesIdCache();
  private readonly pauses = new Map<HoldReason, { message: string; since: number; probeAt: number }>();
  /** Items whose outcome the queue refused to record: still `sending` there, no longer in flight. */
  private readonly stranded = new Map<string, { kind: ItemKind; id: number }>();
  private readonly now: () => number;
  private running = false;
  private loopDone: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private newestFirst = true;
  private recordingsFirst = true;
  private probing = false;
  /** The token changed while a probe was in flight: its verdict is about the old one. */
  private probeStale = false;
  private lastSuccessAt: number | null = null;
  private lastError: UploaderStatus['lastError'] = null;

  constructor(
    private readonly queue: UploadQueue,
    private readonly api: UploadApi,
    private readonly log: Logger,
    private options: UploaderOptions,
    private readonly holdCheck: HoldCheck = () => null,
    private readonly observer: UploadObserver = {},
  ) {
    this.now = options.now ?? Date.now;
    this.circuit = new CircuitBreaker({
      now: this.now,
      minOpenMs: Math.min(5_000, options.probeIntervalMs),
      maxOpenMs: options.probeIntervalMs,
    });
    // At the configured limit from the start: at half of it, the first recording's detections
    // (a few, claimed together) did not all fit, and their outcomes took two commits (two
    // fsyncs). A 429/503 still halves it at once.
    this.concurrency = new AdaptiveConcurrency(options.concurrency, options.concurrency);
    this.commits = new GroupCommit(queue, () => this.scheduleCommit());
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /**
   * The station token changed (the operator fixed the token file or the config):
   * a pause on a refused token probes with the new one now, not at the next interval.
   */
  tokenChanged(): void {
    const pause = this.pauses.get('token-rejected');
    if (!pause) return;
    pause.probeAt = 0;
    if (this.probing) this.probeStale = true;
    this.notify();
  }

  /** Commits that wrote (one fsync each), and the outcomes they recorded (tests, benchmark). */
  get commitStats(): { commits: number; outcomes: number } {
    return { commits: this.commits.commits, outcomes: this.commits.recorded };
  }

  /** A reloaded `upload.noSoundscapeAfterSec`: the next claim follows it. */
  retune(settings: Pick<UploaderOptions, 'noSoundscapeAfterMs'>): void {
    this.options = { ...this.options, ...settings };
    this.notify();
  }

  /** New work was queued: look now instead of at the next timer. */
  notify(): void {
    this.wake?.();
  }

  /**
   * Stops claiming, lets what is in flight finish for up to `stopGraceMs`, aborts
   * the rest (those items become `unknown` and are reconciled on the next start),
   * and waits for the queue writes to finish.
   */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake?.();
    await this.loopDone;
    // Encoded recordings not yet claimed stay `pending`: encoded again after the restart.
    this.options.soundscapes?.stop();
    const grace = this.options.stopGraceMs ?? 0;
    if (grace > 0 && this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.inFlight]),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, grace))),
      ]);
      clearTimeout(timer);
    }
    this.abort.abort();
    await Promise.allSettled([...this.inFlight]);
    // Outcomes recorded by the last tasks were committed by scheduleCommit; nothing waits.
    if (this.commitTimer) clearTimeout(this.commitTimer);
    this.commitTimer = null;
    if (this.commits.waiting > 0) this.commitOutcomes();
    // Nothing comes after the last outcomes to fsync them: a power cut after a clean stop
    // would otherwise cost their lookups at the next start.
    try {
      this.commits.flush();
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'the last upload outcomes could not be made durable: they are looked up at the service after a power cut');
    }
  }

  status(): UploaderStatus {
    return {
      running: this.running,
      inFlight: this.inFlight.size,
      concurrencyLimit: this.concurrency.limit,
      circuit: this.circuit.current,
      circuitRetryAt: this.circuit.retryAt || null,
      probes: this.circuit.probes,
      paused: [...this.pauses].map(([reason, p]) => ({ reason, message: p.message, since: p.since })),
      lastSuccessAt: this.lastSuccessAt,
      lastError: this.lastError,
    };
  }

  /**
   * A first outcome waits for its commit. While other requests are in flight (a
   * recording's detections go out together and answer within milliseconds of each
   * other), it waits for their outcomes too, at most {@link OUTCOME_WAIT_MS}: one fsync
   * for all of them instead of one each. Then it commits once the outcomes that arrived
   * in the same turn of the event loop are all in, together with the next claim (the
   * loop's pass), or alone when stopped.
   */
  private scheduleCommit(): void {
    if (this.commitScheduled || this.commitTimer) return;
    if (this.sends > 0 && this.running) {
      // At the deadline the outcomes commit, with the claims for the slots their answers
      // freed, whatever is still in flight: one slow answer (a long soundscape upload on a
      // slow link) holds neither the others' outcomes nor their slots beyond it.
      this.commitTimer = setTimeout(() => {
        this.commitTimer = null;
        this.commitSoon();
      }, OUTCOME_WAIT_MS);
      return;
    }
    this.commitSoon();
  }

  private commitSoon(): void {
    if (this.commitScheduled) return;
    this.commitScheduled = true;
    setImmediate(() => {
      this.commitScheduled = false;
      if (this.commits.waiting === 0) return;
      if (this.running && this.wake) this.wake();
      else this.commitOutcomes();
    });
  }

  /** An outcome was handed to the group commit: the last one of those in flight commits now. */
  private outcomeArrived(): void {
    if (this.commitTimer && this.sends === 0) {
      clearTimeout(this.commitTimer);
      this.commitTimer = null;
      this.scheduleCommit();
    }
  }

  private commitOutcomes(): void {
    try {
      this.commits.commit(() => undefined);
    } catch (err) {
      this.log.error({ err: errorMessage(err) }, 'upload outcomes: queue error');
    }
  }

  /**
   * One pass: the waiting outcomes and the next claims in one commit, then the claimed
   * requests go out. A pass with no outcome to record, nothing stranded, and nothing it
   * may claim (uploads held or paused, the circuit open, every slot taken: what most wakes
   * find while a recording's requests are in flight) opens no transaction at all.
   */
  private pass(): number {
    const launches: (() => void)[] = [];
    this.probeTaken = false;
    this.passBodies = [];
    const quiet = this.commits.waiting === 0 && this.stranded.size === 0;
    const open = quiet ? this.gate(this.now(), launches) : null;
    if (typeof open === 'number') {
      for (const go of launches) go();
      return open;
    }
    let waitMs: number;
    try {
      waitMs = this.commits.commit(() => this.fill(launches, open));
    } catch (err) {
      // The pass's claims are undone and nothing goes out: a probe permission it took would
      // otherwise stay taken, and a half-open circuit would wait for a verdict for ever;
      // FLACs it took from the encode step would hold their memory (and slots) for ever.
      if (this.probeTaken) this.circuit.cancelProbe();
      for (const body of this.passBodies) body.release?.();
      throw err;
    }
    for (const go of launches) go();
    return waitMs;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let waitMs: number;
      try {
        waitMs = this.pass();
      } catch (err) {
        // A queue error (disk full, locked database) must not kill the loop: log and retry.
        this.log.error({ err: errorMessage(err) }, 'upload loop: queue error');
        waitMs = 5_000;
      }
      if (!this.running) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(10, waitMs));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /**
   * What the limits allow before any queue read: how long to sleep when nothing may be
   * claimed (held, the link closed, paused, the circuit open, no free slot), or the link's
   * verdict and the free slots. Reads nothing from the queue, so a pass can ask it before
   * opening a transaction. A due probe of a refused token goes into `launches`.
   */
  private gate(now: number, launches: (() => void)[]): number | { link: LinkVerdict | undefined; slots: number } {
    const idle = this.options.probeIntervalMs;
    const hold = this.holdCheck();
    if (hold) {
      this.setHold(hold);
      return Math.min(idle, 30_000);
    }
    this.pauses.delete('clock-unsynchronized');

    const link = this.options.link?.verdict();
    if (link && !link.uploads) return untilLinkChange(link, idle);

    const stationPause = this.pauses.get('token-rejected');
    if (stationPause) {
      if (now >= stationPause.probeAt && !this.probing) launches.push(() => this.track(this.probeStation()));
      return Math.max(1_000, stationPause.probeAt - now);
    }

    if (this.circuit.current === 'open') return Math.max(10, this.circuit.retryAt - now);

    // An encode under way holds a slot, and so does one waiting for its claim (fill).
    const slots = this.concurrency.limit - this.sends - (this.options.soundscapes?.inProgress ?? 0);
    if (slots <= 0) return idle;
    return { link, slots };
  }

  /**
   * Claims as many items as the limits allow, inside the pass's transaction; their sends
   * go into `launches`, started once the claim is committed. Returns how long to sleep
   * before looking again. `open`: the pass's {@link gate}, when it asked before the
   * transaction (otherwise asked here, after the outcomes are written).
   */
  private fill(launches: (() => void)[], open: ReturnType<Uploader['gate']> | null): number {
    const now = this.now();
    const idle = this.options.probeIntervalMs;
    this.unstrand(now);
    const allowed = open ?? this.gate(now, launches);
    if (typeof allowed === 'number') return allowed;
    const { link } = allowed;
    let { slots } = allowed;
    // Sleep no longer than until the window opens or the budget renews.
    const untilLink = (ms: number) => untilLinkChange(link, ms);

    const soundscapes = this.options.soundscapes;
    const probing = this.circuit.current === 'half-open';
    if (probing) {
      // One request probes the service; the rest wait for its verdict.
      if (this.circuit.tryAcquire() !== 'probe') return 1_000;
      this.probeTaken = true;
      slots = Math.min(1, slots);
    }

    const order = this.newestFirst ? 'newest' : 'oldest';
    this.newestFirst = !this.newestFirst;

    const soundscapePause = this.pauses.get('soundscape-format-rejected');
    const audioWithheld = this.options.audioWithheld?.() === true;
    // What detections whose soundscape waits (or will never come) wait for: the claim and the next wake read the same.
    const noAudioAfterMs = this.options.noSoundscapeAfterMs;
    const waits = { noAudioAfterMs, audioHeld: link?.audio === false, audioWithheld };
    let recordingBudget = audioWithheld || link?.audio === false ? 0 : !soundscapePause ? slots : now >= soundscapePause.probeAt ? 1 : 0;
    let started = 0;
    /** Requests launched (an encode holds a slot but is no request: it cannot probe). */
    let sent = 0;
    const launchRecording = (item: RecordingItem, body?: SoundscapeBody) => {
      if (body) this.passBodies.push(body);
      if (soundscapePause) soundscapePause.probeAt = now + this.options.probeIntervalMs;
      launches.push(() => this.launch('recording', item, body));
      recordingBudget--;
      started++;
      sent++;
    };
    if (soundscapes) {
      // Recordings encoded into memory go first: they hold memory, and were due when chosen.
      if (recordingBudget === 0) soundscapes.discardReady();
      else for (const { claimed, body } of this.claimPrepared(soundscapes, now, Math.min(slots, recordingBudget))) launchRecording(claimed, body);
      // The rest that are ready keep their slots for a later pass.
      slots -= soundscapes.ready;
    }
    // Neither kind starves the other: recordings get at most half the free slots first
    // (with one free slot, every other fill), detections the rest, and recordings may
    // then take what detections left unused. A backlog of soundscapes cannot hold back
    // the detections of today's recordings, nor the reverse.
    const recordingShare = slots === 1 ? (this.recordingsFirst ? 1 : 0) : Math.ceil(slots / 2);
    this.recordingsFirst = !this.recordingsFirst;
    const toEncode: number[] = [];
    const claimRecordings = (limit: number) => {
      if (limit <= 0) return;
      const before = started;
      for (const item of this.queue.claimRecordings({ now, limit, order })) launchRecording(item);
      // Then WAVs to encode: read, not claimed; the pass after their encode claims them.
      const room = Math.min(limit - (started - before), recordingBudget);
      if (soundscapes && room > 0 && soundscapes.canStart()) {
        const exclude = [...soundscapes.excluded(), ...toEncode];
        const due = this.queue.wavRecordingsDue({ now, limit: room, order, exclude, maxBytes: soundscapes.maxBytes });
        if (due.length > 0) {
          toEncode.push(...due.map((d) => d.id));
          launches.push(() => void soundscapes.start(due));
          started += due.length;
          recordingBudget -= due.length;
        }
      }
    };
    // Recordings sent from memory above count toward their share.
    claimRecordings(Math.min(recordingShare - started, recordingBudget));
    if (started < slots) {
      for (const item of this.queue.claimDetections({ now, limit: slots - started, order, ...waits })) {
        launches.push(() => this.launch('detection', item));
        started++;
        sent++;
      }
    }
    claimRecordings(Math.min(slots - started, recordingBudget));
    if (probing && sent === 0) this.circuit.cancelProbe();
    if (started > 0) return untilLink(idle);
    const next = this.queue.nextDueAt({ now, ...waits });
    const paused = soundscapes?.pausedUntilMs;
    const wake = paused == null ? next : next == null ? paused : Math.min(next, paused);
    return untilLink(wake == null ? idle : Math.min(idle, Math.max(10, wake - now)));
  }

  /**
   * Claims the recordings the encode step has ready, by id and spool file (those that
   * moved on meanwhile, dropped or held, are let go). Audio that could not be encoded
   * fails its `pending` recording here, before any request; an `unknown` one is claimed
   * all the same, to be looked up at the service first (the earlier send may be there).
   */
  private claimPrepared(soundscapes: SoundscapePreparer, now: number, limit: number): { claimed: RecordingItem; body: SoundscapeBody }[] {
    const ready = soundscapes.take(limit);
    if (ready.length === 0) return [];
    const byId = new Map<number, PreparedSoundscape>(ready.map((p) => [p.id, p]));
    const toClaim: PreparedSoundscape[] = [];
    for (const p of ready) {
      if (p.fault && !p.reconcile) {
        const failed = this.queue.failUnencodable(p.id, p.spoolPath, { error: p.fault.message, code: errorCode(p.fault) });
        soundscapes.release(p);
        if (failed) {
          this.observer.outcome?.('recording', 'failed', 0);
          this.log.error({ kind: 'recording', item: p.id, code: errorCode(p.fault) }, `recording not uploadable, its detections go without a soundscape: ${p.fault.message}`);
        }
      } else {
        toClaim.push(p);
      }
    }
    const claimed = this.queue.claimEncoded({ now, items: toClaim });
    const out: { claimed: RecordingItem; body: SoundscapeBody }[] = [];
    for (const item of claimed) {
      const p = byId.get(item.id)!;
      byId.delete(item.id);
      out.push({ claimed: item, body: p.flac ? { flac: p.flac.data, release: () => soundscapes.release(p) } : { fault: p.fault, release: () => soundscapes.release(p) } });
    }
    // Not claimed: dropped, held, or no longer due meanwhile. Their FLAC goes.
    for (const p of toClaim) if (byId.has(p.id)) soundscapes.release(p);
    return out;
  }

  private launch(kind: 'recording', item: RecordingItem, body?: SoundscapeBody): void;
  private launch(kind: 'detection', item: ClaimedDetection): void;
  private launch(kind: ItemKind, item: RecordingItem | ClaimedDetection, body?: SoundscapeBody): void {
    const ctx: SendContext = {
      api: this.api,
      isRemoteIdTaken: (k, remoteId) => this.adopting.has(`${k}:${remoteId}`) || this.queue.isRemoteIdTaken(k, remoteId),
      species: this.species,
      signal: this.abort.signal,
      link: this.options.link,
    };
    const started = this.now();
    this.sends++;
    const send =
      kind === 'recording'
        ? sendRecording(ctx, item as RecordingItem, body).finally(() => body?.release?.())
        : sendDetection(ctx, item as ClaimedDetection);
    const task = send.then(
      (result) => {
        this.sends--;
        return this.recordUploaded(kind, item.id, result);
      },
      (err: unknown) => {
        this.sends--;
        throw err;
      },
    );
    this.track(
      task.then(
        (result) => {
          this.circuit.success();
          this.concurrency.success();
          this.lastSuccessAt = this.now();
          if (kind === 'recording') this.pauses.delete('soundscape-format-rejected');
          this.observer.outcome?.(kind, result.reconciled ? 'reconciled' : 'uploaded', this.now() - started, result.bytes);
          this.log.info(
            { kind, item: item.id, remoteId: result.remoteId, reconciled: result.reconciled || undefined },
            result.reconciled ? `${kind} already at the service: id adopted` : `${kind} uploaded`,
          );
        },
        (err: unknown) => this.recordFailure(kind, item, err, started),
      ),
    );
  }

  /** `markUploaded` in the next group commit; resolves once it is durable. */
  private async recordUploaded(kind: ItemKind, id: number, result: SendResult): Promise<SendResult> {
    const key = `${kind}:${result.remoteId}`;
    this.adopting.add(key);
    try {
      const recorded = this.commits.record(() => {
        this.queue.markUploaded(kind, id, result.remoteId, result.sentBytes);
        if (kind === 'recording') this.options.link?.audioDone();
      });
      this.outcomeArrived();
      await recorded;
    } finally {
      this.adopting.delete(key);
    }
    return result;
  }

  /** Decides what a failure means, records it in the next group commit, and reports it once committed. */
  private async recordFailure(kind: ItemKind, item: RecordingItem | ClaimedDetection, err: unknown, started: number): Promise<void> {
    if (err instanceof QueueTransitionError) {
      // An operator dropped or retried the item while it was in flight: their word stands.
      this.log.warn({ kind, item: item.id }, `${kind} changed by an operator while being sent: ${err.message}`);
      return;
    }
    const outcome = this.handleFailure(kind, item, err, started);
    try {
      const recorded = this.commits.record(() => {
        outcome.write();
        // The bytes a failed soundscape upload sent still count toward the day's budget.
        if (kind === 'recording') this.options.link?.audioDone();
      });
      this.outcomeArrived();
      await recorded;
    } catch (writeErr) {
      if (writeErr instanceof QueueTransitionError) {
        this.log.warn({ kind, item: item.id }, `${kind} changed by an operator while being sent: ${writeErr.message}`);
      } else {
        this.strand(kind, item.id, writeErr);
      }
      return;
    }
    outcome.report();
  }

  /**
   * The decision table applied: the circuit, the concurrency and the pauses move now;
   * the queue write (`write`) and what is reported of it (`report`) wait for the commit.
   */
  private handleFailure(kind: ItemKind, item: RecordingItem | ClaimedDetection, err: unknown, started: number): { write: () => void; report: () => void } {
    const stopping = this.abort.signal.aborted;
    const d: Decision = decide(err, kind);
    const now = this.now();
    this.lastError = { message: d.message, code: d.code, at: now };
    const elapsed = now - started;
    switch (d.action) {
      case 'retry': {
        if (d.serviceDown) this.circuit.failure();
        else this.circuit.release();
        if (d.throttle) this.concurrency.throttled();
        let delay = backoffDelay(item.attempts, this.options.backoff, d.retryAfterMs);
        if (d.serviceDown && this.circuit.current === 'open') {
          // The service is down, not this item: let it go as soon as the circuit does, so the
          // backlog drains right after an outage instead of each item sitting out its own backoff.
          delay = Math.min(delay, Math.max(0, this.circuit.retryAt - now));
        }
        return {
          write: () => void this.queue.retryLater(kind, item.id, { error: d.message, code: d.code, nextAttemptAt: now + delay }),
          report: () => {
            this.observer.outcome?.(kind, 'retry', elapsed);
            this.log.warn({ kind, item: item.id, code: d.code, retryInMs: delay }, `${kind} upload failed, will retry: ${d.message}`);
          },
        };
      }
      case 'unknown': {
        // A full or locked queue database says nothing about the service: it must not
        // open the circuit (whose interval would then keep uploads waiting after space returns).
        if (!stopping && !d.code.startsWith('SQLITE_')) this.circuit.failure();
        else this.circuit.release();
        const delay = Math.max(this.options.reconcileDelayMs ?? 0, stopping ? 0 : backoffDelay(item.attempts, this.options.backoff));
        return {
          write: () => void this.queue.outcomeUnknown(kind, item.id, { error: d.message, code: d.code, nextAttemptAt: now + delay }),
          report: () => {
            this.observer.outcome?.(kind, 'unknown', elapsed);
            this.log.warn(
              { kind, item: item.id, code: d.code },
              stopping
                ? `${kind} upload abandoned at shutdown; it will be reconciled before any new post`
                : `${kind} upload outcome unknown; it will be reconciled before any new post: ${d.message}`,
            );
          },
        };
      }
      case 'pause': {
        this.circuit.release();
        this.setPause(d.reason, d.message);
        return {
          write: () => void this.queue.retryLater(kind, item.id, { error: d.message, code: d.code, nextAttemptAt: now }),
          report: () => this.observer.outcome?.(kind, 'paused', elapsed),
        };
      }
      case 'fail': {
        this.circuit.release();
        return {
          write: () => void this.queue.fail(kind, item.id, { error: d.message, code: d.code }),
          report: () => {
            this.observer.outcome?.(kind, 'failed', elapsed);
            this.log.error({ kind, item: item.id, code: d.code }, `${kind} failed, not retried automatically: ${d.message}`);
          },
        };
      }
    }
  }

  private setPause(reason: PauseReason, message: string): void {
    if (!this.pauses.has(reason)) {
      this.log.error({ pause: reason }, `uploads paused: ${message}`);
    }
    const now = this.now();
    this.pauses.set(reason, {
      message,
      since: this.pauses.get(reason)?.since ?? now,
      probeAt: now + this.options.probeIntervalMs,
    });
  }

  /** A hold that does not come from the service (the clock) shows in status like a pause. */
  private setHold(message: string): void {
    if (!this.pauses.has('clock-unsynchronized')) {
      this.log.warn({ pause: 'clock-unsynchronized' }, `uploads held: ${message}`);
      this.pauses.set('clock-unsynchronized', { message, since: this.now(), probeAt: Infinity });
    }
  }

  private async probeStation(): Promise<void> {
    this.probing = true;
    try {
      await this.api.probe(this.abort.signal);
      this.pauses.delete('token-rejected');
      this.log.info('the service accepts the station token again: uploads resume');
      this.observer.tokenAccepted?.();
    } catch (err) {
      const d = decide(err, 'detection');
      const pause = this.pauses.get('token-rejected');
      if (pause) pause.probeAt = this.probeStale ? 0 : this.now() + this.options.probeIntervalMs;
      if (d.action !== 'pause') this.log.debug({ code: d.code }, 'probe failed');
    } finally {
      this.probing = false;
      this.probeStale = false;
      this.notify();
    }
  }

  /**
   * The queue database refused to record how a send ended (disk full, locked): the
   * item stays `sending` in the database, where only a restart would find it again.
   * It is kept here and made `unknown` (reconciled before any new post: the service
   * may have it) as soon as the database takes writes again.
   */
  private strand(kind: ItemKind, id: number, err: unknown): void {
    this.stranded.set(`${kind}:${id}`, { kind, id });
    this.log.error(
      { kind, item: id, err: errorMessage(err) },
      `${kind} outcome not recorded, the queue database refused the write; it will be reconciled once the database takes writes again`,
    );
  }

  private unstrand(now: number): void {
    for (const [key, { kind, id }] of this.stranded) {
      try {
        this.queue.outcomeUnknown(kind, id, { error: 'the outcome of the send could not be recorded', code: 'ERR_OUTCOME_UNKNOWN', nextAttemptAt: now });
      } catch (err) {
        // Refused again: the next pass tries again. Moved by an operator meanwhile: theirs.
        if (!(err instanceof QueueTransitionError)) return;
      }
      this.stranded.delete(key);
    }
  }

  private track(task: Promise<void>): void {
    this.inFlight.add(task);
    void task
      .catch((err: unknown) => this.log.error({ err: errorMessage(err) }, 'upload task crashed'))
      .finally(() => {
        this.inFlight.delete(task);
        this.notify();
      });
  }
}

/** `ms`, or less when the link's verdict changes sooner (a window opens, the budget renews). */
function untilLinkChange(link: LinkVerdict | undefined, ms: number): number {
  return link?.changesInMs == null ? ms : Math.min(ms, Math.max(10, link.changesInMs));
}
