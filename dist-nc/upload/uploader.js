import { errorCode, errorMessage } from '../errors.js';
import { AdaptiveConcurrency } from './adaptive-concurrency.js';
import { backoffDelay } from '../system/backoff.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { GroupCommit } from './group-commit.js';
import { decide } from './decide.js';
import { SpeciesIdCache } from './reconcile.js';
import { sendDetection, sendRecording } from './send.js';
import { QueueTransitionError } from '../queue/index.js';
export const OUTCOME_WAIT_MS = 100;
export class Uploader {
    queue;
    api;
    log;
    options;
    holdCheck;
    observer;
    circuit;
    concurrency;
    inFlight = new Set();
    sends = 0;
    commits;
    adopting = new Set();
    commitScheduled = false;
    commitTimer = null;
    passBodies = [];
    probeTaken = false;
    abort = new AbortController();
    species = new SpeciesIdCache();
    pauses = new Map();
    stranded = new Map();
    now;
    running = false;
    loopDone = null;
    wake = null;
    newestFirst = true;
    recordingsFirst = true;
    probing = false;
    probeStale = false;
    lastSuccessAt = null;
    lastError = null;
    constructor(queue, api, log, options, holdCheck = () => null, observer = {}) {
        this.queue = queue;
        this.api = api;
        this.log = log;
        this.options = options;
        this.holdCheck = holdCheck;
        this.observer = observer;
        this.now = options.now ?? Date.now;
        this.circuit = new CircuitBreaker({
            now: this.now,
            minOpenMs: Math.min(5_000, options.probeIntervalMs),
            maxOpenMs: options.probeIntervalMs,
        });
        this.concurrency = new AdaptiveConcurrency(options.concurrency, options.concurrency);
        this.commits = new GroupCommit(queue, () => this.scheduleCommit());
    }
    start() {
        if (this.running)
            return;
        this.running = true;
        this.loopDone = this.loop();
    }
    tokenChanged() {
        const pause = this.pauses.get('token-rejected');
        if (!pause)
            return;
        pause.probeAt = 0;
        if (this.probing)
            this.probeStale = true;
        this.notify();
    }
    get commitStats() {
        return { commits: this.commits.commits, outcomes: this.commits.recorded };
    }
    retune(settings) {
        this.options = { ...this.options, ...settings };
        this.notify();
    }
    notify() {
        this.wake?.();
    }
    async stop() {
        if (!this.running)
            return;
        this.running = false;
        this.wake?.();
        await this.loopDone;
        this.options.soundscapes?.stop();
        const grace = this.options.stopGraceMs ?? 0;
        if (grace > 0 && this.inFlight.size > 0) {
            let timer;
            await Promise.race([
                Promise.allSettled([...this.inFlight]),
                new Promise((resolve) => (timer = setTimeout(resolve, grace))),
            ]);
            clearTimeout(timer);
        }
        this.abort.abort();
        await Promise.allSettled([...this.inFlight]);
        if (this.commitTimer)
            clearTimeout(this.commitTimer);
        this.commitTimer = null;
        if (this.commits.waiting > 0)
            this.commitOutcomes();
    }
    status() {
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
    scheduleCommit() {
        if (this.commitScheduled || this.commitTimer)
            return;
        if (this.sends > 0 && this.running) {
            this.commitTimer = setTimeout(() => {
                this.commitTimer = null;
                this.scheduleCommit();
            }, OUTCOME_WAIT_MS);
            return;
        }
        this.commitScheduled = true;
        setImmediate(() => {
            this.commitScheduled = false;
            if (this.commits.waiting === 0)
                return;
            if (this.running && this.wake)
                this.wake();
            else
                this.commitOutcomes();
        });
    }
    outcomeArrived() {
        if (this.commitTimer && this.sends === 0) {
            clearTimeout(this.commitTimer);
            this.commitTimer = null;
            this.scheduleCommit();
        }
    }
    commitOutcomes() {
        try {
            this.commits.commit(() => undefined);
        }
        catch (err) {
            this.log.error({ err: errorMessage(err) }, 'upload outcomes: queue error');
        }
    }
    pass() {
        const launches = [];
        this.probeTaken = false;
        this.passBodies = [];
        const quiet = this.commits.waiting === 0 && this.stranded.size === 0;
        const open = quiet ? this.gate(this.now(), launches) : null;
        if (typeof open === 'number') {
            for (const go of launches)
                go();
            return open;
        }
        let waitMs;
        try {
            waitMs = this.commits.commit(() => this.fill(launches, open));
        }
        catch (err) {
            if (this.probeTaken)
                this.circuit.cancelProbe();
            for (const body of this.passBodies)
                body.release?.();
            throw err;
        }
        for (const go of launches)
            go();
        return waitMs;
    }
    async loop() {
        while (this.running) {
            let waitMs;
            try {
                waitMs = this.pass();
            }
            catch (err) {
                this.log.error({ err: errorMessage(err) }, 'upload loop: queue error');
                waitMs = 5_000;
            }
            if (!this.running)
                break;
            await new Promise((resolve) => {
                const timer = setTimeout(resolve, Math.max(10, waitMs));
                this.wake = () => {
                    clearTimeout(timer);
                    resolve();
                };
            });
            this.wake = null;
        }
    }
    gate(now, launches) {
        const idle = this.options.probeIntervalMs;
        const hold = this.holdCheck();
        if (hold) {
            this.setHold(hold);
            return Math.min(idle, 30_000);
        }
        this.pauses.delete('clock-unsynchronized');
        const link = this.options.link?.verdict();
        if (link && !link.uploads)
            return untilLinkChange(link, idle);
        const stationPause = this.pauses.get('token-rejected');
        if (stationPause) {
            if (now >= stationPause.probeAt && !this.probing)
                launches.push(() => this.track(this.probeStation()));
            return Math.max(1_000, stationPause.probeAt - now);
        }
        if (this.circuit.current === 'open')
            return Math.max(10, this.circuit.retryAt - now);
        const slots = this.concurrency.limit - this.sends - (this.options.soundscapes?.inProgress ?? 0);
        if (slots <= 0)
            return idle;
        return { link, slots };
    }
    fill(launches, open) {
        const now = this.now();
        const idle = this.options.probeIntervalMs;
        this.unstrand(now);
        const allowed = open ?? this.gate(now, launches);
        if (typeof allowed === 'number')
            return allowed;
        const { link } = allowed;
        let { slots } = allowed;
        const untilLink = (ms) => untilLinkChange(link, ms);
        const soundscapes = this.options.soundscapes;
        const probing = this.circuit.current === 'half-open';
        if (probing) {
            if (this.circuit.tryAcquire() !== 'probe')
                return 1_000;
            this.probeTaken = true;
            slots = Math.min(1, slots);
        }
        const order = this.newestFirst ? 'newest' : 'oldest';
        this.newestFirst = !this.newestFirst;
        const soundscapePause = this.pauses.get('soundscape-format-rejected');
        const audioWithheld = this.options.audioWithheld?.() === true;
        const noAudioAfterMs = this.options.noSoundscapeAfterMs;
        const waits = { noAudioAfterMs, audioHeld: link?.audio === false, audioWithheld };
        let recordingBudget = audioWithheld || link?.audio === false ? 0 : !soundscapePause ? slots : now >= soundscapePause.probeAt ? 1 : 0;
        let started = 0;
        let sent = 0;
        const launchRecording = (item, body) => {
            if (body)
                this.passBodies.push(body);
            if (soundscapePause)
                soundscapePause.probeAt = now + this.options.probeIntervalMs;
            launches.push(() => this.launch('recording', item, body));
            recordingBudget--;
            started++;
            sent++;
        };
        if (soundscapes) {
            if (recordingBudget === 0)
                soundscapes.discardReady();
            else
                for (const { claimed, body } of this.claimPrepared(soundscapes, now, Math.min(slots, recordingBudget)))
                    launchRecording(claimed, body);
            slots -= soundscapes.ready;
        }
        const recordingShare = slots === 1 ? (this.recordingsFirst ? 1 : 0) : Math.ceil(slots / 2);
        this.recordingsFirst = !this.recordingsFirst;
        const toEncode = [];
        const claimRecordings = (limit) => {
            if (limit <= 0)
                return;
            const before = started;
            for (const item of this.queue.claimRecordings({ now, limit, order }))
                launchRecording(item);
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
        claimRecordings(Math.min(recordingShare - started, recordingBudget));
        if (started < slots) {
            for (const item of this.queue.claimDetections({ now, limit: slots - started, order, ...waits })) {
                launches.push(() => this.launch('detection', item));
                started++;
                sent++;
            }
        }
        claimRecordings(Math.min(slots - started, recordingBudget));
        if (probing && sent === 0)
            this.circuit.cancelProbe();
        if (started > 0)
            return untilLink(idle);
        const next = this.queue.nextDueAt({ now, ...waits });
        const paused = soundscapes?.pausedUntilMs;
        const wake = paused == null ? next : next == null ? paused : Math.min(next, paused);
        return untilLink(wake == null ? idle : Math.min(idle, Math.max(10, wake - now)));
    }
    claimPrepared(soundscapes, now, limit) {
        const ready = soundscapes.take(limit);
        if (ready.length === 0)
            return [];
        const byId = new Map(ready.map((p) => [p.id, p]));
        const toClaim = [];
        for (const p of ready) {
            if (p.fault && !p.reconcile) {
                const failed = this.queue.failUnencodable(p.id, p.spoolPath, { error: p.fault.message, code: errorCode(p.fault) });
                soundscapes.release(p);
                if (failed) {
                    this.observer.outcome?.('recording', 'failed', 0);
                    this.log.error({ kind: 'recording', item: p.id, code: errorCode(p.fault) }, `recording not uploadable, its detections go without a soundscape: ${p.fault.message}`);
                }
            }
            else {
                toClaim.push(p);
            }
        }
        const claimed = this.queue.claimEncoded({ now, items: toClaim });
        const out = [];
        for (const item of claimed) {
            const p = byId.get(item.id);
            byId.delete(item.id);
            out.push({ claimed: item, body: p.flac ? { flac: p.flac.data, release: () => soundscapes.release(p) } : { fault: p.fault, release: () => soundscapes.release(p) } });
        }
        for (const p of toClaim)
            if (byId.has(p.id))
                soundscapes.release(p);
        return out;
    }
    launch(kind, item, body) {
        const ctx = {
            api: this.api,
            isRemoteIdTaken: (k, remoteId) => this.adopting.has(`${k}:${remoteId}`) || this.queue.isRemoteIdTaken(k, remoteId),
            species: this.species,
            signal: this.abort.signal,
            link: this.options.link,
        };
        const started = this.now();
        this.sends++;
        const send = kind === 'recording'
            ? sendRecording(ctx, item, body).finally(() => body?.release?.())
            : sendDetection(ctx, item);
        const task = send.then((result) => {
            this.sends--;
            return this.recordUploaded(kind, item.id, result);
        }, (err) => {
            this.sends--;
            throw err;
        });
        this.track(task.then((result) => {
            this.circuit.success();
            this.concurrency.success();
            this.lastSuccessAt = this.now();
            if (kind === 'recording')
                this.pauses.delete('soundscape-format-rejected');
            this.observer.outcome?.(kind, result.reconciled ? 'reconciled' : 'uploaded', this.now() - started, result.bytes);
            this.log.info({ kind, item: item.id, remoteId: result.remoteId, reconciled: result.reconciled || undefined }, result.reconciled ? `${kind} already at the service: id adopted` : `${kind} uploaded`);
        }, (err) => this.recordFailure(kind, item, err, started)));
    }
    async recordUploaded(kind, id, result) {
        const key = `${kind}:${result.remoteId}`;
        this.adopting.add(key);
        try {
            const recorded = this.commits.record(() => {
                this.queue.markUploaded(kind, id, result.remoteId);
                if (kind === 'recording')
                    this.options.link?.audioDone();
            });
            this.outcomeArrived();
            await recorded;
        }
        finally {
            this.adopting.delete(key);
        }
        return result;
    }
    async recordFailure(kind, item, err, started) {
        if (err instanceof QueueTransitionError) {
            this.log.warn({ kind, item: item.id }, `${kind} changed by an operator while being sent: ${err.message}`);
            return;
        }
        const outcome = this.handleFailure(kind, item, err, started);
        try {
            const recorded = this.commits.record(() => {
                outcome.write();
                if (kind === 'recording')
                    this.options.link?.audioDone();
            });
            this.outcomeArrived();
            await recorded;
        }
        catch (writeErr) {
            if (writeErr instanceof QueueTransitionError) {
                this.log.warn({ kind, item: item.id }, `${kind} changed by an operator while being sent: ${writeErr.message}`);
            }
            else {
                this.strand(kind, item.id, writeErr);
            }
            return;
        }
        outcome.report();
    }
    handleFailure(kind, item, err, started) {
        const stopping = this.abort.signal.aborted;
        const d = decide(err, kind);
        const now = this.now();
        this.lastError = { message: d.message, code: d.code, at: now };
        const elapsed = now - started;
        switch (d.action) {
            case 'retry': {
                if (d.serviceDown)
                    this.circuit.failure();
                else
                    this.circuit.release();
                if (d.throttle)
                    this.concurrency.throttled();
                let delay = backoffDelay(item.attempts, this.options.backoff, d.retryAfterMs);
                if (d.serviceDown && this.circuit.current === 'open') {
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
                if (!stopping && !d.code.startsWith('SQLITE_'))
                    this.circuit.failure();
                else
                    this.circuit.release();
                const delay = Math.max(this.options.reconcileDelayMs ?? 0, stopping ? 0 : backoffDelay(item.attempts, this.options.backoff));
                return {
                    write: () => void this.queue.outcomeUnknown(kind, item.id, { error: d.message, code: d.code, nextAttemptAt: now + delay }),
                    report: () => {
                        this.observer.outcome?.(kind, 'unknown', elapsed);
                        this.log.warn({ kind, item: item.id, code: d.code }, stopping
                            ? `${kind} upload abandoned at shutdown; it will be reconciled before any new post`
                            : `${kind} upload outcome unknown; it will be reconciled before any new post: ${d.message}`);
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
    setPause(reason, message) {
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
    setHold(message) {
        if (!this.pauses.has('clock-unsynchronized')) {
            this.log.warn({ pause: 'clock-unsynchronized' }, `uploads held: ${message}`);
            this.pauses.set('clock-unsynchronized', { message, since: this.now(), probeAt: Infinity });
        }
    }
    async probeStation() {
        this.probing = true;
        try {
            await this.api.probe(this.abort.signal);
            this.pauses.delete('token-rejected');
            this.log.info('the service accepts the station token again: uploads resume');
            this.observer.tokenAccepted?.();
        }
        catch (err) {
            const d = decide(err, 'detection');
            const pause = this.pauses.get('token-rejected');
            if (pause)
                pause.probeAt = this.probeStale ? 0 : this.now() + this.options.probeIntervalMs;
            if (d.action !== 'pause')
                this.log.debug({ code: d.code }, 'probe failed');
        }
        finally {
            this.probing = false;
            this.probeStale = false;
            this.notify();
        }
    }
    strand(kind, id, err) {
        this.stranded.set(`${kind}:${id}`, { kind, id });
        this.log.error({ kind, item: id, err: errorMessage(err) }, `${kind} outcome not recorded, the queue database refused the write; it will be reconciled once the database takes writes again`);
    }
    unstrand(now) {
        for (const [key, { kind, id }] of this.stranded) {
            try {
                this.queue.outcomeUnknown(kind, id, { error: 'the outcome of the send could not be recorded', code: 'ERR_OUTCOME_UNKNOWN', nextAttemptAt: now });
            }
            catch (err) {
                if (!(err instanceof QueueTransitionError))
                    return;
            }
            this.stranded.delete(key);
        }
    }
    track(task) {
        this.inFlight.add(task);
        void task
            .catch((err) => this.log.error({ err: errorMessage(err) }, 'upload task crashed'))
            .finally(() => {
            this.inFlight.delete(task);
            this.notify();
        });
    }
}
function untilLinkChange(link, ms) {
    return link?.changesInMs == null ? ms : Math.min(ms, Math.max(10, link.changesInMs));
}
