import { lstat, rm } from 'node:fs/promises';
import { errorCode, errorMessage } from '../errors.js';
import { compactionCandidates, markUnencodable, replaceWithFlac } from '../queue/index.js';
import { isAudioFault, MAX_IN_MEMORY_WAV_BYTES } from './limits.js';
import { SPOOL_WAV } from './limits.js';
const BATCH = 20;
const DISK_LOW_AFTER_MS = 60_000;
const PAUSE_MIN_MS = 1_000;
const PAUSE_MAX_MS = 300_000;
export class SpoolCompaction {
    queue;
    encoder;
    log;
    options;
    running = false;
    loopDone = null;
    wake = null;
    cursor = 0;
    failures = 0;
    shared = new Set();
    maxInMemory;
    backlogAfterMs;
    idleMs;
    now;
    constructor(queue, encoder, log, options) {
        this.queue = queue;
        this.encoder = encoder;
        this.log = log;
        this.options = options;
        this.maxInMemory = options.maxInMemoryBytes ?? MAX_IN_MEMORY_WAV_BYTES;
        this.backlogAfterMs = options.backlogAfterMs ?? 15 * 60_000;
        this.idleMs = options.idleMs ?? 60_000;
        this.now = options.now ?? Date.now;
    }
    start() {
        if (this.running)
            return;
        this.running = true;
        this.loopDone = this.loop();
    }
    notify() {
        this.wake?.();
    }
    async stop() {
        this.running = false;
        this.wake?.();
        await this.loopDone;
    }
    async loop() {
        while (this.running) {
            let sleepMs = this.idleMs;
            try {
                sleepMs = await this.pass();
            }
            catch (err) {
                this.log.error({ code: errorCode(err) }, `spool compaction: queue error: ${errorMessage(err)}`);
            }
            if (!this.running)
                break;
            if (sleepMs > 0) {
                await new Promise((resolve) => {
                    const timer = setTimeout(resolve, sleepMs);
                    this.wake = () => {
                        clearTimeout(timer);
                        resolve();
                    };
                });
                this.wake = null;
            }
        }
    }
    async pass() {
        const now = this.now();
        const age = this.options.diskLow?.() ? DISK_LOW_AFTER_MS : this.backlogAfterMs;
        const candidates = compactionCandidates(this.queue, { limit: BATCH, afterId: this.cursor, maxInMemoryBytes: this.maxInMemory, queuedBefore: now - age });
        for (const item of candidates) {
            if (!this.running)
                return 0;
            this.cursor = item.id;
            if (this.options.busy.has(item.id) || this.shared.has(item.id))
                continue;
            const tooLarge = item.filesize == null || item.filesize > this.maxInMemory;
            if (!tooLarge && !(await this.lastLink(item)))
                continue;
            const paused = await this.compact(item);
            if (paused > 0)
                return paused;
        }
        if (candidates.length < BATCH) {
            this.cursor = 0;
            return this.idleMs;
        }
        return 0;
    }
    async lastLink(item) {
        const st = await lstat(item.spoolPath).catch(() => null);
        if (st && st.nlink > 1) {
            if (this.shared.size >= 10_000)
                this.shared.clear();
            this.shared.add(item.id);
            return false;
        }
        return st !== null;
    }
    async compact(item) {
        const flacPath = item.spoolPath.replace(/\.wav$/i, '') + '.flac';
        this.options.busy.add(item.id);
        try {
            const result = await this.encoder.encode(item.spoolPath, flacPath, SPOOL_WAV);
            this.failures = 0;
            const swapped = replaceWithFlac(this.queue, item.id, item.spoolPath, {
                spoolPath: flacPath,
                filesize: result.bytes,
                durationS: result.durationSec,
                sampleRate: result.sampleRate,
            });
            await rm(swapped ? item.spoolPath : flacPath, { force: true });
            if (swapped) {
                this.log.debug({ item: item.id, bytes: result.bytes, engine: result.engine }, 'waiting recording compacted to FLAC in the spool');
                this.options.onCompacted?.();
            }
            return 0;
        }
        catch (err) {
            const message = errorMessage(err);
            if (isAudioFault(err)) {
                if (markUnencodable(this.queue, item.id, item.spoolPath, { error: message, code: errorCode(err) })) {
                    this.log.error({ item: item.id, code: errorCode(err) }, `recording not uploadable, its detections go without a soundscape: ${message}`);
                    this.options.onCompacted?.();
                }
                else {
                    this.shared.add(item.id);
                }
                return 0;
            }
            const pauseMs = Math.min(PAUSE_MAX_MS, PAUSE_MIN_MS * 2 ** Math.min(this.failures, 20));
            this.failures++;
            this.log.warn({ item: item.id, code: errorCode(err), retryInMs: pauseMs }, `spool compaction: encoding failed, will retry: ${message}`);
            return pauseMs;
        }
        finally {
            this.options.busy.delete(item.id);
        }
    }
}
