import { errorCode, errorMessage } from '../errors.js';
import { isAudioFault, MAX_HELD_WAV_BYTES, MAX_IN_MEMORY_WAV_BYTES } from './limits.js';
import { SPOOL_WAV } from './limits.js';
const PAUSE_MIN_MS = 1_000;
const PAUSE_MAX_MS = 300_000;
export class SoundscapePreparer {
    encoder;
    log;
    onReady;
    encoding = new Map();
    readyItems = new Map();
    busy;
    maxWavBytes;
    maxHeldBytes;
    now;
    held = 0;
    pausedUntil = 0;
    failures = 0;
    stopped = false;
    constructor(encoder, log, onReady, options = {}) {
        this.encoder = encoder;
        this.log = log;
        this.onReady = onReady;
        this.busy = options.busy ?? new Set();
        this.maxWavBytes = options.maxWavBytes ?? MAX_IN_MEMORY_WAV_BYTES;
        this.maxHeldBytes = options.maxHeldBytes ?? MAX_HELD_WAV_BYTES;
        this.now = options.now ?? Date.now;
    }
    get maxBytes() {
        return this.maxWavBytes;
    }
    get inProgress() {
        return this.encoding.size;
    }
    get ready() {
        return this.readyItems.size;
    }
    excluded() {
        return [...this.busy];
    }
    canStart() {
        return !this.stopped && this.now() >= this.pausedUntil && this.held < this.maxHeldBytes;
    }
    get pausedUntilMs() {
        return this.now() < this.pausedUntil ? this.pausedUntil : null;
    }
    start(items) {
        let started = 0;
        for (const item of items) {
            if (!this.canStart() || this.encoding.has(item.id) || this.readyItems.has(item.id) || this.busy.has(item.id))
                continue;
            const size = item.filesize ?? this.maxWavBytes;
            if (this.held > 0 && this.held + size > this.maxHeldBytes)
                break;
            this.held += size;
            this.encoding.set(item.id, item);
            this.busy.add(item.id);
            started++;
            void this.encodeOne(item);
        }
        return started;
    }
    take(max) {
        const out = [];
        for (const [id, item] of this.readyItems) {
            if (out.length >= max)
                break;
            this.readyItems.delete(id);
            out.push(item);
        }
        return out;
    }
    release(item) {
        this.held = Math.max(0, this.held - (item.filesize ?? this.maxWavBytes));
        this.busy.delete(item.id);
    }
    discardReady() {
        for (const item of this.take(Number.POSITIVE_INFINITY))
            this.release(item);
    }
    stop() {
        this.stopped = true;
        this.discardReady();
    }
    async encodeOne(item) {
        let prepared;
        try {
            const flac = await this.encoder.encodeToMemory(item.spoolPath, SPOOL_WAV);
            this.failures = 0;
            this.log.debug({ item: item.id, bytes: flac.bytes, engine: flac.engine, into: 'memory' }, 'recording encoded to FLAC');
            prepared = { ...item, flac };
        }
        catch (err) {
            if (isAudioFault(err)) {
                prepared = { ...item, fault: err };
            }
            else if (!this.stopped) {
                const pauseMs = Math.min(PAUSE_MAX_MS, PAUSE_MIN_MS * 2 ** Math.min(this.failures, 20));
                this.failures++;
                this.pausedUntil = this.now() + pauseMs;
                this.log.warn({ item: item.id, code: errorCode(err), retryInMs: pauseMs }, `encoding failed, soundscapes wait: ${errorMessage(err)}`);
            }
        }
        finally {
            this.encoding.delete(item.id);
        }
        if (prepared && !this.stopped) {
            this.readyItems.set(item.id, prepared);
        }
        else {
            this.release(item);
        }
        this.onReady();
    }
}
