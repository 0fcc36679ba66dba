import type { Logger } from 'pino';
import type { ConfigUpdateBody, StationConfigRecord } from '../wire/types.js';
import { CONFIG_RANGES } from '../wire/types.js';
import { errorCode, errorMessage } from '../errors.js';
import { backoffDelay, reconnectDelay, type BackoffOptions } from '../system/backoff.js';
import { decide } from './decide.js';

/**
 * Keeps the station's settings at the service equal to `station.settings` of the
 * config: pushes them on start and whenever the config file changes, stores the
 * returned station record, and retries transient failures with backoff until it
 * succeeds or is superseded by a newer push.
 */
export interface ConfigSyncApi {
  updateConfig(body: ConfigUpdateBody, signal?: AbortSignal): Promise<StationConfigRecord>;
}

export interface ConfigSyncStore {
  /** The file the record is kept in (the queue database), named when it refuses the write. */
  readonly file: string;
  saveStationRecord(record: StationConfigRecord): void;
  saveSyncState(state: ConfigSyncState): void;
}

export interface ConfigSyncState {
  state: 'idle' | 'pending' | 'synced' | 'retrying' | 'rejected';
  at: number;
  error?: string;
  attempts?: number;
}

/** Problems with the documented ranges, checked before anything is sent. */
function checkSettings(settings: ConfigUpdateBody): string[] {
  const problems: string[] = [];
  for (const [key, [min, max]] of Object.entries(CONFIG_RANGES)) {
    const value = settings[key as keyof typeof CONFIG_RANGES];
    if (value === undefined) continue;
    if (typeof value !== 'number' || Number.isNaN(value) || value < min || value > max) {
      problems.push(`station.settings.${key} must be between ${min} and ${max} (got ${JSON.stringify(value)})`);
    }
  }
  return problems;
}

export class ConfigSync {
  private generation = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly abort = new AbortController();
  private current: ConfigSyncState = { state: 'idle', at: Date.now() };

  constructor(
    private readonly api: ConfigSyncApi,
    private readonly store: ConfigSyncStore,
    private readonly log: Logger,
    private readonly backoff: BackoffOptions,
  ) {}

  get state(): ConfigSyncState {
    return this.current;
  }

  /**
   * Pushes `settings` (a newer push supersedes a pending retry). Resolves after the
   * first attempt. With no settings the update is empty: it changes nothing at the
   * service and still returns the station record, which `status` shows.
   */
  async push(settings: ConfigUpdateBody): Promise<void> {
    const gen = ++this.generation;
    if (this.timer) clearTimeout(this.timer);
    const problems = checkSettings(settings);
    if (problems.length) {
      this.setState({ state: 'rejected', at: Date.now(), error: problems.join('; ') });
      this.log.error(`config sync: not pushed: ${problems.join('; ')}`);
      return;
    }
    await this.attempt(settings, gen, 0);
  }

  stop(): void {
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.abort.abort();
  }

  private async attempt(settings: ConfigUpdateBody, gen: number, attempt: number): Promise<void> {
    if (gen !== this.generation) return;
    this.setState({ state: attempt === 0 ? 'pending' : 'retrying', at: Date.now(), attempts: attempt });
    let record: StationConfigRecord;
    try {
      record = await this.api.updateConfig(settings, this.abort.signal);
    } catch (err) {
      if (gen !== this.generation || this.abort.signal.aborted) return;
      const d = decide(err, 'detection');
      if (d.action === 'retry' || d.action === 'unknown' || d.action === 'pause') {
        // A config update is idempotent: re-posting after an unknown outcome is safe. A
        // refused token may be fixed at the service: keep trying, at the slowest pace.
        const delay = d.action === 'pause' ? this.backoff.maxMs : this.retryDelay(attempt, d.action === 'retry' ? d.retryAfterMs : undefined);
        this.retry(settings, gen, attempt, delay, d.code, d.message);
        return;
      }
      this.setState({ state: 'rejected', at: Date.now(), error: d.message || errorMessage(err), attempts: attempt + 1 });
      this.log.error(`config sync: the service rejected the station settings: ${d.message}`);
      return;
    }
    if (gen !== this.generation) return;
    try {
      this.store.saveStationRecord(record);
    } catch (err) {
      // A full card, a read-only mount: the file by its path and the error by its code,
      // as the daemon's other queue writes say it, so the operator looks at the right file system.
      this.retry(settings, gen, attempt, this.retryDelay(attempt), errorCode(err), `cannot write to the queue database ${this.store.file}: ${errorMessage(err)}`);
      return;
    }
    this.setState({ state: 'synced', at: Date.now(), attempts: attempt + 1 });
    this.log.info({ station: record.id }, 'config sync: station settings pushed');
  }

  /**
   * One station pushing one update: nothing to spread over other clients, so no full
   * jitter (a wait near zero after a long one); each wait is at least the one before
   * until `upload.backoffMaxMs`, and a failure that repeats (a full card) is logged
   * less and less often instead of every second or so.
   */
  private retryDelay(attempt: number, retryAfterMs?: number): number {
    return retryAfterMs !== undefined ? backoffDelay(attempt, this.backoff, retryAfterMs) : reconnectDelay(attempt, this.backoff);
  }

  private retry(settings: ConfigUpdateBody, gen: number, attempt: number, delay: number, code: string, message: string): void {
    this.setState({ state: 'retrying', at: Date.now(), error: message, attempts: attempt + 1 });
    this.log.warn({ code, retryInMs: delay }, `config sync failed, will retry: ${message}`);
    this.timer = setTimeout(() => void this.attempt(settings, gen, attempt + 1), delay);
    this.timer.unref();
  }

  private setState(state: ConfigSyncState): void {
    this.current = state;
    this.store.saveSyncState(state);
  }
}
