import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '@station-agent/emulator';
import { REAL_LABELS, TOKEN } from '../../helpers/agent-world.js';
import { deepMerge } from '../../helpers/merge.js';

export { deepMerge };

/**
 * The pieces the process-based scenarios share: an agent config file and the local
 * service with the test station. (In-process scenarios use test/helpers/agent-world.ts.)
 */
export const STATION = { token: TOKEN, name: 'Reliability station', lat: 52.52, lon: 13.4, timezone: 'Europe/Berlin' } as const;

export function startService(options: Partial<EmulatorOptions> = {}): Promise<RunningEmulator> {
  return startEmulator({ port: 0, stations: [STATION], labels: REAL_LABELS, ...options });
}

export interface AgentConfigOptions {
  baseUrl: string;
  inputDir: string;
  dataDir: string;
  /** Merged over the defaults, section by section. */
  extra?: Record<string, unknown>;
}

/** Writes an agent config tuned for tests (short backoff, probe interval and stable time). */
export function writeAgentConfig(file: string, o: AgentConfigOptions): string {
  const base: Record<string, unknown> = {
    service: { baseUrl: o.baseUrl, token: TOKEN, timeoutMs: 2_000 },
    station: { latitude: 52.52, longitude: 13.4, timezone: 'Europe/Berlin' },
    input: { dir: o.inputDir, format: 'auto', minConfidence: 0.1, labels: REAL_LABELS, stableMs: 100, rescanIntervalSec: 10 },
    dataDir: o.dataDir,
    upload: { concurrency: 4, backoffBaseMs: 100, backoffMaxMs: 2_000, probeIntervalSec: 1 },
    clock: { requireSync: 'never' },
    log: { level: 'debug' },
  };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(deepMerge(base, o.extra ?? {}), null, 2)}\n`, { mode: 0o600 });
  return file;
}
