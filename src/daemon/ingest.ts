import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync } from 'node:fs';
import type { Config } from '../config/index.js';
import type { IngestContext } from '../ingest/context.js';
import { Pairing, type InputFile } from '../ingest/pairing.js';
import { InputWatcher } from '../ingest/watcher.js';
import type { Logger } from '../log/index.js';
import { createStationPolicy } from '../policy/recording-policy.js';
import type { Component } from './component.js';
import type { EventBus } from './events.js';

/** How long a stop waits for ingest to hand over what it has started. */
const STOP_IDLE_MS = 3_000;

/**
 * The watcher on `input.dir` and the pairing of result files with their audio, which
 * queues recordings and detections (the ingest context carries the policies, labels
 * and spool). Stopped first of the pipeline, so nothing new enters the queue while the
 * rest stops.
 */
export class IngestComponent implements Component {
  readonly name = 'ingest';
  readonly pairing: Pairing;
  readonly watcher: InputWatcher<InputFile>;
  private policyJson: string;

  constructor(
    private readonly config: Config,
    readonly ctx: IngestContext,
    private readonly deps: { log: Logger; bus: EventBus },
  ) {
    const { log, bus } = deps;
    this.policyJson = JSON.stringify([config.input.minConfidence, config.privacy, config.filters]);
    this.pairing = new Pairing({
      ctx,
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
    });
  }

  async start(): Promise<void> {
    if (!existsSync(this.config.input.dir)) {
      // A card or share mounted late: the watcher and the rescans pick it up when it appears.
      this.deps.log.warn(`input.dir ${this.config.input.dir} does not exist (yet); waiting for it`);
    }
    await this.watcher.start();
    await this.pairing.sweepIncoming();
  }

  /**
   * The station's policies (`input.minConfidence`, `privacy.*`, `filters.*`) and the
   * ingest limits apply to the next result file read; one already being read keeps the
   * policy it started with.
   */
  reload(next: Config): void {
    const policy = JSON.stringify([next.input.minConfidence, next.privacy, next.filters]);
    if (policy !== this.policyJson) {
      this.policyJson = policy;
      this.ctx.policy = createStationPolicy(next);
      this.deps.log.info('the station policies changed (input.minConfidence, privacy, filters): applied to the next recording');
    }
    this.ctx.minFreeMb = next.disk.minFreeMb;
    this.ctx.maxResultFileBytes = next.input.maxResultFileMb * 1024 * 1024;
    this.ctx.lat = next.station.latitude ?? null;
    this.ctx.lon = next.station.longitude ?? null;
  }

  async stop(): Promise<void> {
    await this.watcher.close();
    await Promise.race([this.pairing.idle(), delay(STOP_IDLE_MS)]);
    await this.pairing.close();
  }
}

/** A wait that does not keep the process alive (a stop must not wait on it). */
const delay = (ms: number): Promise<void> => sleep(ms, undefined, { ref: false });
