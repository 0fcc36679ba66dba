import { redactUrl } from '../wire/redact.js';
import { emptyCounts } from '../policy/counts.js';
import { freeBytesNear, isDiskLow, minFreeBytes } from '../system/disk.js';
import { queueDbPath, queueExists } from './queue-file.js';
import { RUNTIME_META_KEY, daemonLiveness, parseRuntimeSnapshot, } from './runtime.js';
const EMPTY_COUNTS = { pending: 0, sending: 0, unknown: 0, uploaded: 0, failed: 0, dropped: 0 };
export async function collectStatus(options) {
    const { config } = options;
    const probe = options.offline
        ? null
        : import('./probe.js').then(({ probeService }) => probeService(config, { timeoutMs: options.probeTimeoutMs, tokenProblem: options.tokenProblem }));
    const free = freeBytesNear(config.dataDir);
    const systemClock = import('../system/clock.js').then(({ clockSyncState }) => clockSyncState({ timeoutMs: 1_000 }));
    const linkPolicy = import('../upload/link-policy.js');
    const audioCopy = import('../system/audio-copy-cost.js')
        .then((m) => m.audioCopyCost(config.input.dir, config.dataDir, null))
        .then((c) => c.copies ? { why: c.why, bytesPerRecording: c.bytesPerRecording, bytesPerDay: c.bytesPerDay, estimated: c.estimated, ramDiskAudio: config.input.ramDiskAudio } : null);
    const stored = queueExists(config.dataDir) ? await readQueue(config) : null;
    const now = options.now ?? Date.now();
    const runtime = stored?.runtime ?? null;
    const liveness = daemonLiveness(runtime, now);
    const live = liveness.state === 'running' ? runtime : null;
    const freeNow = (await free) ?? null;
    const minFree = minFreeBytes(config.disk.minFreeMb);
    return {
        generatedAt: iso(now),
        configFile: options.configFile,
        daemon: {
            state: liveness.state,
            detail: liveness.detail,
            pid: runtime?.pid ?? null,
            startedAt: iso(runtime?.startedAt),
            updatedAt: iso(runtime?.updatedAt),
        },
        queue: {
            file: queueDbPath(config.dataDir),
            exists: stored !== null,
            soundscapes: stored?.counts.recordings ?? { ...EMPTY_COUNTS },
            detections: stored?.counts.detections ?? { ...EMPTY_COUNTS },
            oldestPendingAt: iso(stored?.counts.oldestPendingAt),
            oldestPendingAgeSec: stored?.counts.oldestPendingAt != null ? Math.max(0, Math.round((now - stored.counts.oldestPendingAt) / 1000)) : null,
            held: { soundscapes: stored?.held.recording ?? {}, detections: stored?.held.detection ?? {} },
            filesInError: {
                count: stored?.filesInError.count ?? 0,
                latest: (stored?.filesInError.latest ?? []).map((f) => ({ file: f.path, error: f.detail, at: iso(f.at) })),
            },
        },
        uploads: uploads(runtime, live, stored),
        service: probe ? await probe : null,
        token: { problem: options.tokenProblem ?? null },
        disk: {
            dataDir: config.dataDir,
            freeBytes: freeNow,
            minFreeBytes: minFree,
            low: freeNow === null ? null : isDiskLow(freeNow, config.disk.minFreeMb),
            spoolFiles: stored?.spool.files ?? 0,
            spoolBytes: stored?.spool.bytes ?? 0,
            audioCopy: await audioCopy,
        },
        clock: live ? { state: live.clock, source: 'daemon' } : { state: await systemClock, source: 'system' },
        configSync: runtime
            ? {
                state: runtime.configSync.state,
                at: iso(runtime.configSync.at),
                error: runtime.configSync.error ?? null,
                attempts: runtime.configSync.attempts ?? null,
            }
            : null,
        station: stored?.station ?? null,
        watcher: live ? { ...live.watcher } : null,
        mqtt: config.mqtt.enabled ? mqttStatus(config, live, stored) : null,
        policy: stored?.policy ?? emptyCounts(),
        link: linkReport((await linkPolicy).LinkPolicy, config, stored?.audioBudget, live, now),
    };
}
function mqttStatus(config, live, stored) {
    const m = live?.mqtt ?? null;
    return {
        broker: m?.broker ?? (config.mqtt.url ? redactUrl(config.mqtt.url) : null),
        connected: m ? m.connected : null,
        pendingDetections: stored?.mqttOutbox?.detections ?? 0,
        pendingUpdates: stored?.mqttOutbox?.updates ?? 0,
        lastPublishAt: iso(m?.lastPublishAt),
        lastError: m?.lastError ? { message: m.lastError.message, code: m.lastError.code, at: iso(m.lastError.at) } : null,
    };
}
function linkReport(Policy, config, stored, live, now) {
    const u = config.upload;
    const policy = new Policy({ windows: u.windows, windowsAudioOnly: u.windowsAudioOnly, audioBytesPerSec: u.audioBytesPerSec, audioBytesPerDay: u.audioBytesPerDay, zone: config.station.timezone }, { load: () => stored, save: () => { } }, () => now);
    const s = policy.status(now);
    return {
        windows: s.windows,
        windowsAudioOnly: s.windowsAudioOnly,
        windowOpen: s.windowOpen,
        windowChangesAt: iso(s.windowChangesAt),
        budget: s.budget ? { ...s.budget, renewsAt: iso(s.budget.renewsAt) } : null,
        capBytesPerSec: s.capBytesPerSec,
        rateBytesPerSec: live?.link?.rateBytesPerSec ?? null,
    };
}
async function readQueue(config) {
    const [{ openQueue }, { queueCounts }, { spoolUsage }, { getMeta }, { readPolicyCounts }, { holdCounts }, { filesInError }, outbox] = await Promise.all([
        import('../queue/db.js'),
        import('../queue/counts.js'),
        import('../queue/retention.js'),
        import('../queue/meta.js'),
        import('../policy/counts.js'),
        import('../queue/hold-counts.js'),
        import('../queue/ingested-files.js'),
        config.mqtt.enabled ? import('../queue/mqtt-outbox-counts.js') : null,
    ]);
    const q = openQueue(queueDbPath(config.dataDir));
    try {
        return q.read(() => ({
            counts: queueCounts(q),
            spool: spoolUsage(q),
            held: holdCounts(q),
            filesInError: filesInError(q),
            runtime: parseRuntimeSnapshot(getMeta(q, RUNTIME_META_KEY)),
            lastSuccessAt: getMeta(q, 'lastSuccessAt'),
            station: readStation(getMeta(q, 'station')),
            mqttOutbox: outbox ? outbox.outboxCounts(q) : null,
            policy: readPolicyCounts(q),
            audioBudget: getMeta(q, 'audioBudget'),
        }));
    }
    finally {
        q.close();
    }
}
export function readStation(value) {
    if (typeof value !== 'object' || value === null)
        return null;
    const v = value;
    if (typeof v.record === 'object' && v.record !== null) {
        return { record: v.record, syncedAt: iso(typeof v.syncedAt === 'number' ? v.syncedAt : null) };
    }
    if (typeof v.id === 'number')
        return { record: v, syncedAt: null };
    return null;
}
function uploads(runtime, live, stored) {
    const lastSuccess = Math.max(runtime?.uploader.lastSuccessAt ?? 0, stored?.lastSuccessAt ?? 0);
    const lastError = runtime?.uploader.lastError ?? null;
    const asOf = live ? null : iso(runtime?.updatedAt);
    const paused = (runtime?.uploader.paused ?? []).map((p) => ({
        scope: null,
        reason: p.reason,
        message: p.message,
        since: iso(p.since),
        asOf,
    }));
    return {
        lastSuccessAt: lastSuccess > 0 ? iso(lastSuccess) : null,
        lastError: lastError ? { message: lastError.message, code: lastError.code, at: iso(lastError.at) } : null,
        paused,
        circuit: live?.uploader.circuit ?? null,
        circuitRetryAt: iso(live?.uploader.circuitRetryAt),
        inFlight: live?.uploader.inFlight ?? null,
        concurrencyLimit: live?.uploader.concurrencyLimit ?? null,
        probes: live?.uploader.probes ?? null,
    };
}
function iso(ms) {
    return typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : null;
}
