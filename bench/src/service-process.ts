import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLI_MAIN, startNode, type Child } from './proc.js';

/**
 * The local service (`station-agent emulator`) in its own process, as the
 * benchmark's target: its request handling never runs on the event loop being
 * measured. A fresh process per measurement, so every run starts from an empty
 * service.
 */
export interface ServiceProcess {
  url: string;
  child: Child;
  stop(): Promise<void>;
}

export const BENCH_TOKEN = 'bench-station-token-0123456789abcdef';
export const STATION = { lat: 52.52, lon: 13.4, timezone: 'UTC' } as const;

export interface ServiceProcessOptions {
  /** A folder for the stations file (the token stays out of the process list). */
  dir: string;
  /** Added to every REST request (GET and POST), in ms; 0 for none. */
  latencyMs: number;
}

export async function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcess> {
  mkdirSync(options.dir, { recursive: true });
  const stationsFile = path.join(options.dir, 'bench-stations.json');
  writeFileSync(stationsFile, JSON.stringify([{ token: BENCH_TOKEN, name: 'Bench station', ...STATION }]), { mode: 0o600 });
  const args = [CLI_MAIN, 'emulator', '--port', '0', '--stations', stationsFile, '--seed', '1'];
  if (options.latencyMs > 0) args.push('--faults', `latency=${options.latencyMs},methods=GET+POST`);
  const child = startNode(args);
  try {
    const m = await child.waitForLine(/listening on (http:\/\/\S+)/, 30_000);
    return { url: m[1], child, stop: () => child.stop() };
  } catch (err) {
    await child.stop();
    throw err;
  }
}
