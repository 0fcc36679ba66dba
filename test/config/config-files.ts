import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface ConfigObject {
  service: Record<string, unknown>;
  station: Record<string, unknown>;
  input: Record<string, unknown>;
  [section: string]: unknown;
}

/** A config object with every required key, to extend per test. */
export function minimalConfig(): ConfigObject {
  return {
    service: { baseUrl: 'http://127.0.0.1:8080' },
    station: { latitude: 52.52, longitude: 13.4, timezone: 'Europe/Berlin' },
    input: { dir: '/srv/analyzer/output' },
  };
}

/** Writes a config file (JSON of `value`, or `value` itself when a string) with the given mode. */
export function writeConfig(dir: string, value: unknown, mode = 0o600, name = 'config.json'): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  chmodSync(file, mode);
  return file;
}
