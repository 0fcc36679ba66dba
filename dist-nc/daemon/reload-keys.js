import { configKeys } from '../config/schema-keys.js';
export const RELOAD_AT_ONCE = [
    'service.token',
    'service.tokenFile',
    'station.latitude',
    'station.longitude',
    'station.settings.*',
    'input.minConfidence',
    'input.afterUpload',
    'input.moveTo',
    'input.maxResultFileMb',
    'upload.noSoundscapeAfterSec',
    'upload.windows',
    'upload.windowsAudioOnly',
    'upload.audioBytesPerSec',
    'upload.audioBytesPerDay',
    'retention.keepUploadedDays',
    'disk.minFreeMb',
    'clock.requireSync',
    'privacy.*',
    'filters.*',
    'alerts.noUploadHours',
    'alerts.holdSec',
    'alerts.minIntervalSec',
    'log.level',
];
export function keyMatches(pattern, id) {
    return pattern.endsWith('.*') ? id.startsWith(pattern.slice(0, -1)) : id === pattern;
}
export function appliesAtOnce(id) {
    return RELOAD_AT_ONCE.some((pattern) => keyMatches(pattern, id));
}
export function reloadable(running, next) {
    const config = structuredClone(running);
    const needRestart = [];
    for (const key of configKeys()) {
        const value = valueAt(next, key.path);
        if (appliesAtOnce(key.id))
            setAt(config, key.path, value);
        else if (JSON.stringify(valueAt(running, key.path)) !== JSON.stringify(value))
            needRestart.push(key.id);
    }
    return { config, needRestart };
}
function valueAt(config, path) {
    let node = config;
    for (const part of path)
        node = node == null ? undefined : node[part];
    return node;
}
function setAt(config, path, value) {
    let node = config;
    for (const part of path.slice(0, -1))
        node = (node[part] ??= {});
    node[path[path.length - 1]] = value;
}
