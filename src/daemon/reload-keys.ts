import { configKeys } from '../config/schema-keys.js';
import type { Config } from '../config/index.js';
import { keyMatches } from './changed-keys.js';

/**
 * Which config keys a reload applies at once (docs/OPERATOR.md's table, tested against
 * this list). A `.*` entry covers every key under it. Every other key needs a restart:
 * it names a file, folder, port or connection that is opened once (dataDir, input.dir,
 * metrics.listen, the MQTT broker, the webhook's secret file), or sizes a loop that is
 * built once (upload.concurrency, backoff, probe interval).
 */
export const RELOAD_AT_ONCE: readonly string[] = [
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
  'queue.retainDays',
  'disk.minFreeMb',
  'clock.requireSync',
  'privacy.*',
  'filters.*',
  'alerts.noUploadHours',
  'alerts.holdSec',
  'alerts.minIntervalSec',
  'log.level',
];

export function appliesAtOnce(id: string): boolean {
  return RELOAD_AT_ONCE.some((pattern) => keyMatches(pattern, id));
}

/**
 * A reload as one diff: the running config with every key that applies at once taken
 * from `next`, the keys among them whose value changed (what the components are told),
 * and the changed keys that need a restart, which keep their running value so that no
 * component can half-apply one.
 */
export function reloadable(running: Config, next: Config): { config: Config; changed: string[]; needRestart: string[] } {
  const config = structuredClone(running);
  const changed: string[] = [];
  const needRestart: string[] = [];
  for (const key of configKeys()) {
    const value = valueAt(next, key.path);
    if (JSON.stringify(valueAt(running, key.path)) === JSON.stringify(value)) continue;
    if (appliesAtOnce(key.id)) {
      setAt(config, key.path, value);
      changed.push(key.id);
    } else needRestart.push(key.id);
  }
  return { config, changed, needRestart };
}

function valueAt(config: Config, path: readonly string[]): unknown {
  let node: unknown = config;
  for (const part of path) node = node == null ? undefined : (node as Record<string, unknown>)[part];
  return node;
}

function setAt(config: Config, path: readonly string[], value: unknown): void {
  let node = config as unknown as Record<string, unknown>;
  for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[path[path.length - 1]] = value;
}
