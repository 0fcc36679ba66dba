import { EXIT, errorCode, errorMessage } from '../errors.js';
import { setMeta } from '../queue/index.js';
import { OuterTransaction } from '../queue/transaction.js';
import { RUNTIME_HEARTBEAT_MS, RUNTIME_META_KEY, type RuntimeSnapshot } from '../runtime/snapshot.js';
import type { Component } from './component.js';
import type { StationContext } from './context.js';

/** How often the reporter looks whether the snapshot changed in a way status shows. */
const RUNTIME_CHECK_MS = 10_000;

/**
 * Writes the daemon's runtime snapshot (what `status` shows of a running daemon) and
 * the time of the last successful upload into the queue's meta table. Started first and
 * stopped last of all components, so its final write records the stopped state.
 *
 * Three failed writes in a row mean the database is wedged: the process exits with 70
 * (`EXIT.QUEUE_UNWRITABLE`) so that systemd restarts it.
 */
export class RuntimeReporter implements Component {
  readonly name = 'runtime reporter';
  private timer: NodeJS.Timeout | undefined;
  private dbFailures = 0;
  private lastWritten = { at: 0, signature: '' };
  private lastSuccessDirty = false;

  constructor(private readonly ctx: StationContext) {
    const { bus } = ctx;
    bus.on('outcome', (o) => {
      if (o.outcome === 'uploaded' || o.outcome === 'reconciled') this.lastSuccessDirty = true;
    });
    // The pause is over: status shows it now, not at the next periodic check.
    bus.on('tokenAccepted', () => this.write());
    bus.on('running', () => this.write(true));
  }

  start(): void {
    this.timer = setInterval(() => this.write(), RUNTIME_CHECK_MS);
  }

  stop(): void {
    clearInterval(this.timer);
    this.write(true);
  }

  /** Writes the snapshot when what status shows changed, or once per heartbeat; `force` writes it now. */
  write(force = false): void {
    const snap = this.ctx.state.snapshot();
    const sig = signature(snap);
    if (!force && sig === this.lastWritten.signature && snap.updatedAt - this.lastWritten.at < RUNTIME_HEARTBEAT_MS) return;
    try {
      // One commit for both keys, and not fsynced (synchronous=NORMAL): a snapshot is stale
      // after a power cut anyway, and a minutely fsync of its own added a quarter of an fsync
      // to every recording of a station. It reaches the card with the next durable commit
      // (a recording's ingest or outcome, a few seconds later), or at the final close.
      OuterTransaction.run(
        this.ctx.queue,
        'the runtime snapshot',
        () => {
          setMeta(this.ctx.queue, RUNTIME_META_KEY, snap);
          const at = this.lastSuccessDirty ? (this.ctx.state.get('uploader')?.lastSuccessAt ?? null) : null;
          if (at) setMeta(this.ctx.queue, 'lastSuccessAt', at);
        },
        { durable: false },
      );
      this.lastWritten = { at: snap.updatedAt, signature: sig };
      this.lastSuccessDirty = false;
      this.dbFailures = 0;
    } catch (err) {
      this.dbFailures++;
      // The file by its path: the operator's next look is at its file system (full, read-only, gone).
      const file = this.ctx.queue.path;
      this.ctx.log.error({ code: errorCode(err) }, `cannot write to the queue database ${file}: ${errorMessage(err)}`);
      if (this.dbFailures >= 3) {
        this.ctx.log.fatal({ code: errorCode(err) }, `the queue database ${file} stays unwritable (${this.dbFailures} failed writes in a row): exiting for a restart`);
        process.exit(EXIT.QUEUE_UNWRITABLE);
      }
    }
  }
}

/**
 * What an operator cares about; counters that move all the time are left out, so an
 * idle or steadily uploading station writes its snapshot once a minute, not per poll.
 */
function signature(s: RuntimeSnapshot): string {
  // The audio's first link, first copy and a near spool made: how the card is used shows at once, not after a minute.
  const audio = s.audio ? [s.audio.linked > 0, s.audio.copied > 0, s.audio.nearDir] : null;
  return JSON.stringify([s.uploader.circuit, s.uploader.paused.map((p) => p.reason), s.clock, s.disk.low, s.configSync.state, s.watcher.ready, s.mqtt?.connected, audio]);
}
