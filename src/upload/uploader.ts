import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';
import type { BackoffOptions } from '../system/backoff.js';
import { UploadHealth, type HealthStatus, type HoldCheck } from './health.js';
import { OutcomeWriter } from './outcomes.js';
import { PassLoop } from './pass-loop.js';
import { claimPlan, gatePass, idleWait, PROBE_WAIT_MS, untilLinkChange, type ClaimStep, type GateVerdict } from './planner.js';
import type { UploadApi, UploadObserver } from './ports.js';
import { SpeciesIdCache } from './reconcile.js';
import { sendDetection, sendRecording, type SendContext, type SoundscapeBody } from './send.js';
import { QueueTransitionError, type ClaimedDetection, type ItemKind, type RecordingItem } from '../queue/index.js';
import type { EncodeStep, PreparedSoundscape } from '../encode/soundscape-preparer.js';
import type { UploadQueue } from './upload-queue.js';
import type { LinkGate } from './link-policy.js';

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
  soundscapes?: EncodeStep;
  now?: () => number;
}

export interface UploaderStatus extends HealthStatus {
  running: boolean;
  inFlight: number;
}

/** What one pass claimed, until its commit: launched after it, undone with it. */
interface PassClaims {
  launches: (() => void)[];
  /** FLACs from memory the pass claimed: released if its commit fails (nothing goes out). */
  bodies: SoundscapeBody[];
  /** The pass took the half-open circuit's one probe permit. */
  probe: boolean;
  /** WAVs the pass hands to the encode step (not handed twice). */
  toEncode: number[];
}

/**
 * The upload loop. It claims due items from the queue as slots free up, sends them,
 * and records how each ended. Three parts do the thinking:
 * - the planner (`planner.ts`, pure): whether a pass may claim, what, and in which order
 *   (recordings before detections, a detection being due only once its soundscape has
 *   the service's id; newest and oldest alternately, so a backlog of days never starves
 *   today's recordings);
 * - the health (`health.ts`): circuit breaker, adaptive concurrency and pauses, moved by
 *   every outcome through the decision table (`decide.ts`);
 * - the outcome writer (`outcomes.ts`): the outcomes in group commits (`group-commit.ts`)
 *   that also hold the next claim; a request goes out only once its claim is committed,
 *   and an outcome is reported only once it is.
 *
 * A recording whose spool file is a WAV is encoded into memory first (`soundscapes`, the
 * encode step), while it is still `pending`: the encode holds a slot, and the pass after
 * it claims the recording by id and sends the FLAC from memory. `sending` thus always
 * means that a request may be at the service.
 */
export class Uploader {
  private options: UploaderOptions & { now: () => number };
  private readonly health: UploadHealth;
  private readonly outcomes: OutcomeWriter;
  private readonly loop: PassLoop;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private readonly send: SendContext;
  /** Passes that claimed so far: the planner alternates on it. */
  private turn = 0;

  constructor(
    private readonly queue: UploadQueue,
    api: UploadApi,
    private readonly log: Logger,
    options: UploaderOptions,
    holdCheck: HoldCheck = () => null,
    observer: UploadObserver = {},
  ) {
    this.options = { ...options, now: options.now ?? Date.now };
    this.health = new UploadHealth(this.options, log, holdCheck, observer);
    this.loop = new PassLoop(log);
    this.outcomes = new OutcomeWriter(queue, log, observer, this.loop, options.link);
    this.send = {
      api,
      isRemoteIdTaken: (kind, remoteId) => this.outcomes.isRemoteIdTaken(kind, remoteId),
      species: new SpeciesIdCache(),
      signal: this.abort.signal,
      link: options.link,
    };
  }

  start(): void {
    this.loop.start(() => this.pass());
  }

  /**
   * The station token changed (the operator fixed the token file or the config):
   * a pause on a refused token probes with the new one now, not at the next interval.
   */
  tokenChanged(): void {
    if (this.health.tokenChanged()) this.notify();
  }

  /** Commits that wrote (one fsync each), and the outcomes they recorded (tests, benchmark). */
  get commitStats(): { commits: number; outcomes: number } {
    return { commits: this.outcomes.commits.commits, outcomes: this.outcomes.commits.recorded };
  }

  /** A reloaded `upload.noSoundscapeAfterSec`: the next claim follows it. */
  retune(settings: Pick<UploaderOptions, 'noSoundscapeAfterMs'>): void {
    this.options = { ...this.options, ...settings };
    this.notify();
  }

  /** New work was queued: look now instead of at the next timer. */
  notify(): void {
    this.loop.wake();
  }

  /**
   * Stops claiming, lets what is in flight finish for up to `stopGraceMs`, aborts
   * the rest (those items become `unknown` and are reconciled on the next start),
   * and waits for the queue writes to finish.
   */
  async stop(): Promise<void> {
    if (!this.loop.running) return;
    await this.loop.stop();
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
    this.outcomes.finish();
  }

  status(): UploaderStatus {
    return { running: this.loop.running, inFlight: this.inFlight.size, ...this.health.status() };
  }

  /**
   * One pass: the waiting outcomes and the next claims in one commit, then the claimed
   * requests go out. A pass with no outcome to record, nothing stranded, and nothing it
   * may claim (uploads held or paused, the circuit open, every slot taken: what most wakes
   * find while a recording's requests are in flight) opens no transaction at all.
   */
  private pass(): number {
    const pass: PassClaims = { launches: [], bodies: [], probe: false, toEncode: [] };
    const gated = this.outcomes.waiting ? null : this.gate(this.options.now(), pass);
    if (gated && !gated.claim) {
      for (const go of pass.launches) go();
      return gated.waitMs;
    }
    let waitMs: number;
    try {
      waitMs = this.outcomes.commitPass(() => this.fill(pass, gated));
    } catch (err) {
      // The pass's claims are undone and nothing goes out: a probe permit it took would
      // otherwise stay taken, and a half-open circuit would wait for a verdict for ever;
      // FLACs it took from the encode step would hold their memory (and slots) for ever.
      if (pass.probe) this.health.returnProbe();
      for (const body of pass.bodies) body.release?.();
      throw err;
    }
    for (const go of pass.launches) go();
    return waitMs;
  }

  /** The planner's gate over the health, the link and the slots; reads nothing from the queue. A due probe of a refused token goes into the pass's launches. */
  private gate(now: number, pass: PassClaims): GateVerdict {
    const input = this.health.gateInput(now, this.outcomes.requestsOut, this.options.soundscapes?.inProgress ?? 0);
    const verdict = gatePass({ ...input, link: input.held ? undefined : this.options.link?.verdict() });
    if (!verdict.claim && verdict.probeToken) pass.launches.push(() => this.track(this.probeToken()));
    return verdict;
  }

  /**
   * The planner's claims, run inside the pass's transaction; their sends go into the
   * pass's launches, started once the claim is committed. Returns how long to sleep
   * before looking again. `gated`: the pass's gate, when it asked before the transaction
   * (otherwise asked here, after the outcomes are written).
   */
  private fill(pass: PassClaims, gated: GateVerdict | null): number {
    const { now, probeIntervalMs, soundscapes } = { ...this.options, now: this.options.now() };
    this.outcomes.unstrand(now);
    const gate = gated ?? this.gate(now, pass);
    if (!gate.claim) return gate.waitMs;
    if (gate.probe) {
      if (!this.health.takeProbe()) return PROBE_WAIT_MS;
      pass.probe = true;
    }
    const plan = claimPlan({
      now,
      probeIntervalMs,
      slots: gate.slots,
      link: gate.link,
      turn: this.turn++,
      audioWithheld: this.options.audioWithheld?.() === true,
      noAudioAfterMs: this.options.noSoundscapeAfterMs,
      soundscapePause: this.health.soundscapePause,
      encoder: soundscapes && { ready: soundscapes.ready },
    });
    let step = plan.next();
    while (!step.done) step = plan.next(this.claim(step.value, now, pass));
    const tally = step.value;
    if (tally.recordings > 0) this.health.soundscapeProbed(now);
    if (pass.probe && tally.requests === 0) this.health.returnProbe();
    if (tally.started > 0) return untilLinkChange(gate.link, probeIntervalMs);
    const nextDueAt = this.queue.nextDueAt({ now, ...tally.waits });
    return idleWait({ now, probeIntervalMs, link: gate.link, nextDueAt, encodePausedUntil: soundscapes?.pausedUntilMs ?? null });
  }

  /** One of the planner's claims against the queue (or the encode step); how many it took. */
  private claim(step: ClaimStep, now: number, pass: PassClaims): number {
    const soundscapes = this.options.soundscapes;
    switch (step.step) {
      case 'discard-encoded':
        // Encoded again when audio may go.
        if (soundscapes) for (const p of soundscapes.take(Number.POSITIVE_INFINITY)) soundscapes.release(p);
        return 0;
      case 'encoded': {
        const prepared = soundscapes ? this.claimPrepared(soundscapes, now, step.limit) : [];
        for (const { claimed, body } of prepared) {
          pass.bodies.push(body);
          pass.launches.push(() => this.launch('recording', claimed, body));
        }
        return prepared.length;
      }
      case 'recordings': {
        const items = this.queue.claimRecordings({ now, limit: step.limit, order: step.order });
        for (const item of items) pass.launches.push(() => this.launch('recording', item));
        return items.length;
      }
      case 'encode': {
        const intake = soundscapes?.intake();
        if (!soundscapes || !intake) return 0;
        const exclude = [...intake.exclude, ...pass.toEncode];
        const due = this.queue.wavRecordingsDue({ now, limit: step.limit, order: step.order, exclude, maxBytes: intake.maxBytes });
        if (due.length > 0) {
          pass.toEncode.push(...due.map((d) => d.id));
          pass.launches.push(() => void soundscapes.start(due));
        }
        return due.length;
      }
      case 'detections': {
        const items = this.queue.claimDetections({ now, limit: step.limit, order: step.order, ...step.waits });
        for (const item of items) pass.launches.push(() => this.launch('detection', item));
        return items.length;
      }
    }
  }

  /**
   * Claims the recordings the encode step has ready, by id and spool file (those that
   * moved on meanwhile, dropped or held, are let go). Audio that could not be encoded
   * fails its `pending` recording here, before any request; an `unknown` one is claimed
   * all the same, to be looked up at the service first (the earlier send may be there).
   */
  private claimPrepared(soundscapes: EncodeStep, now: number, limit: number): { claimed: RecordingItem; body: SoundscapeBody }[] {
    const ready = soundscapes.take(limit);
    if (ready.length === 0) return [];
    const byId = new Map<number, PreparedSoundscape>(ready.map((p) => [p.id, p]));
    const toClaim: PreparedSoundscape[] = [];
    for (const p of ready) {
      if (p.fault && !p.reconcile) {
        this.outcomes.unencodable(p.id, p.spoolPath, p.fault);
        soundscapes.release(p);
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
    const started = this.options.now();
    const send = this.outcomes.sending(
      kind === 'recording'
        ? sendRecording(this.send, item as RecordingItem, body).finally(() => body?.release?.())
        : sendDetection(this.send, item as ClaimedDetection),
    );
    const recorded = send.then(async (result) => {
      await this.outcomes.uploaded(kind, item.id, result);
      return result;
    });
    this.track(
      recorded.then(
        (result) => {
          this.health.succeeded(kind);
          this.outcomes.reportUploaded(kind, item.id, result, this.options.now() - started);
        },
        (err: unknown) => this.failed(kind, item, err, started),
      ),
    );
  }

  /** The health moves at once; the queue write waits for the next group commit, and is reported once committed. */
  private async failed(kind: ItemKind, item: RecordingItem | ClaimedDetection, err: unknown, started: number): Promise<void> {
    if (err instanceof QueueTransitionError) {
      // An operator dropped or retried the item while it was in flight: their word stands.
      this.outcomes.operatorMoved(kind, item.id, err);
      return;
    }
    await this.outcomes.failed(kind, item.id, this.health.failed(err, kind, item.attempts, started, this.abort.signal.aborted));
  }

  private async probeToken(): Promise<void> {
    await this.health.probeToken(this.send.api, this.abort.signal);
    this.notify();
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
