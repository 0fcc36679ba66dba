import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync } from 'node:fs';
import type { Config } from '../config/index.js';
import type { IngestContext } from '../ingest/context.js';
import { Pairing, type InputFile } from '../ingest/pairing.js';
import { InputWatcher } from '../ingest/watcher.js';
import { createStationPolicy } from '../policy/recording-policy.js';
import type { ChangedKeys } from './changed-keys.js';
import type { Component } from './component.js';
import type { StationContext } from './context.js';

/** How long a stop waits for ingest to hand over what it has started. */
const STOP_IDLE_MS = 3_000;

/** How often WAVs whose result never came are looked for (the spool's `incoming/`). */
const SWEEP_INCOMING_MS = 60_000;

/**
 * The watcher on `input.dir` and the pairing of result files with their audio, which
 * queues recordings and detections (the ingest context carries the policies, labels
 * and spool). Stopped first of the pipeline, so nothing new enters the queue while the
 * rest stops. Once a minute it discards the WAVs whose result never came.
 */
export class IngestComponent implements Component {
  readonly name = 'ingest';
  readonly pairing: Pairing;
  readonly watcher: InputWatcher<InputFile>;
  private readonly ingest: IngestContext;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ctx: StationContext) {
    const { log, bus } = ctx;
    const config = ctx.config.current;
    // Ingest stamps the queue by the expiry clock too: an item queued while the clock is
    // jumped would otherwise be due, and its gate hold expire, only when that time comes.
    this.ingest = { ...ctx.prepared.ingest, queueNow: ctx.expiry.now };
    this.pairing = new Pairing({
      ctx: this.ingest,
      mode: config.input.format,
      jsonTimeoutMs: config.input.analyzerpiJsonTimeoutSec * 1000,
      recheck: (file, delayMs) => this.watcher.recheck(file, delayMs),
      onQueued: () => bus.emit('queued'),
      onOutcome: (file, outcome) => {
        if (outcome.status === 'queued') {
          log.info({ file, detections: outcome.newDetections, audio: outcome.audio }, 'recording queued');
        } else if (outcome.status === 'error') {
          log.error({ file, code: outcome.code }, outcome.message);
        } else if (outcome.status === 'no-detections') {
          log.debug({ file }, 'no detection to post (input.minConfidence, filters)');
        }
        if ('problems' in outcome) for (const problem of outcome.problems) log.warn({ file }, problem);
      },
    });
    this.watcher = new InputWatcher({
      dir: config.input.dir,
      stableMs: config.input.stableMs,
      rescanIntervalMs: config.input.rescanIntervalSec * 1000,
      classify: this.pairing.classify,
      isDone: this.pairing.isDone,
      onAppear: this.pairing.onAppear,
      onStable: this.pairing.onStable,
      onSkip: (file, why) => log.warn({ file }, `skipped ${file}: ${why}`),
      onError: (err) => log.error(`watcher: ${err.message}`),
      holdRoot: (dir) => ctx.prepared.lock.holdInput(dir),
    });
    ctx.state.publish('watcher', () => ({ ready: this.watcher.isReady, pending: this.watcher.pendingCount, dir: config.input.dir }));
    // Linked or copied, counted where the daemon runs (in the unit's mount namespace): what doctor and status report.
    ctx.state.publish('audio', () => ({ ...this.ingest.spool.taken }));
  }

  async start(): Promise<void> {
    const { dir } = this.ctx.config.current.input;
    if (!existsSync(dir)) {
      // A card or share mounted late: the watcher and the rescans pick it up when it appears.
      this.ctx.log.warn(`input.dir ${dir} does not exist (yet); waiting for it`);
    }
    await this.watcher.start();
    await this.pairing.sweepIncoming();
    this.timer = setInterval(() => void this.pairing.sweepIncoming().catch(() => 0), SWEEP_INCOMING_MS);
  }

  /**
   * The station's policies (`input.minConfidence`, `privacy.*`, `filters.*`) and the
   * ingest limits apply to the next result file read; one already being read keeps the
   * policy it started with.
   */
  reload(next: Config, changed: ChangedKeys): void {
    if (changed.has('input.minConfidence', 'privacy.*', 'filters.*')) {
      this.ingest.policy = createStationPolicy(next);
      this.ctx.log.info('the station policies changed (input.minConfidence, privacy, filters): applied to the next recording');
    }
    this.ingest.minFreeMb = next.disk.minFreeMb;
    this.ingest.maxResultFileBytes = next.input.maxResultFileMb * 1024 * 1024;
    this.ingest.lat = next.station.latitude ?? null;
    this.ingest.lon = next.station.longitude ?? null;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.watcher.close();
    await Promise.race([this.pairing.idle(), delay(STOP_IDLE_MS)]);
    await this.pairing.close();
  }
}

/** A wait that does not keep the process alive (a stop must not wait on it). */
const delay = (ms: number): Promise<void> => sleep(ms, undefined, { ref: false });
