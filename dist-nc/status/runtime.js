import { pidAlive } from '../system/pid.js';
import { isObject } from '../wire/json-object.js';
export const RUNTIME_META_KEY = 'runtime';
export const RUNTIME_HEARTBEAT_MS = 60_000;
export const RUNTIME_STALE_MS = 3 * RUNTIME_HEARTBEAT_MS;
export function parseRuntimeSnapshot(value) {
    if (!isObject(value) || typeof value.pid !== 'number' || typeof value.updatedAt !== 'number')
        return null;
    const uploader = isObject(value.uploader) ? value.uploader : {};
    const watcher = isObject(value.watcher) ? value.watcher : {};
    const disk = isObject(value.disk) ? value.disk : {};
    const configSync = isObject(value.configSync) ? value.configSync : {};
    return {
        pid: value.pid,
        startedAt: num(value.startedAt) ?? value.updatedAt,
        updatedAt: value.updatedAt,
        uploader: {
            inFlight: num(uploader.inFlight) ?? 0,
            concurrencyLimit: num(uploader.concurrencyLimit) ?? 0,
            circuit: oneOf(uploader.circuit, ['closed', 'open', 'half-open'], 'closed'),
            circuitRetryAt: num(uploader.circuitRetryAt),
            probes: num(uploader.probes) ?? 0,
            paused: Array.isArray(uploader.paused) ? uploader.paused.filter(isObject).map(toPause) : [],
            lastSuccessAt: num(uploader.lastSuccessAt),
            lastError: isObject(uploader.lastError) ? toError(uploader.lastError) : null,
        },
        watcher: {
            ready: watcher.ready === true,
            pending: num(watcher.pending) ?? 0,
            dir: typeof watcher.dir === 'string' ? watcher.dir : '',
        },
        clock: oneOf(value.clock, ['synchronized', 'unsynchronized', 'unknown'], 'unknown'),
        disk: {
            freeBytes: num(disk.freeBytes),
            spoolBytes: num(disk.spoolBytes) ?? 0,
            low: disk.low === true,
        },
        configSync: {
            state: oneOf(configSync.state, ['idle', 'pending', 'synced', 'retrying', 'rejected'], 'idle'),
            at: num(configSync.at) ?? value.updatedAt,
            ...(typeof configSync.error === 'string' ? { error: configSync.error } : {}),
            ...(typeof num(configSync.attempts) === 'number' ? { attempts: num(configSync.attempts) } : {}),
        },
        ...(isObject(value.mqtt)
            ? {
                mqtt: {
                    connected: value.mqtt.connected === true,
                    broker: str(value.mqtt.broker, ''),
                    lastPublishAt: num(value.mqtt.lastPublishAt),
                    lastError: isObject(value.mqtt.lastError) ? toError(value.mqtt.lastError) : null,
                },
            }
            : {}),
        ...(isObject(value.link) ? { link: value.link } : {}),
    };
}
export function daemonLiveness(snapshot, now = Date.now(), isAlive = pidAlive) {
    if (!snapshot)
        return { state: 'stopped', detail: 'no runtime snapshot in the queue (the daemon has not run with this queue)' };
    const age = now - snapshot.updatedAt;
    const seconds = Math.max(0, Math.round(age / 1000));
    if (!isAlive(snapshot.pid))
        return { state: 'stopped', detail: `pid ${snapshot.pid} is not running; last snapshot ${seconds}s old` };
    if (age > RUNTIME_STALE_MS) {
        return { state: 'not-responding', detail: `pid ${snapshot.pid} is alive but its snapshot is ${seconds}s old (refreshed every ${RUNTIME_HEARTBEAT_MS / 1000}s)` };
    }
    return { state: 'running', detail: `pid ${snapshot.pid}, snapshot ${seconds}s old` };
}
function num(v) {
    return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
function oneOf(v, allowed, fallback) {
    return typeof v === 'string' && allowed.includes(v) ? v : fallback;
}
function toPause(p) {
    return { reason: str(p.reason, 'unknown'), message: str(p.message, ''), since: num(p.since) ?? 0 };
}
function toError(e) {
    return { message: str(e.message, ''), code: str(e.code, 'ERR_UNKNOWN'), at: num(e.at) ?? 0 };
}
function str(v, fallback) {
    return typeof v === 'string' ? v : fallback;
}
