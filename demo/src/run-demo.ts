import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServiceClient, type ServiceClient } from '../../src/api/index.js';
import { systemTimeZone, type ConfigInput } from '../../src/config/index.js';
import { startDaemon, type RunningDaemon } from '../../src/daemon/index.js';
import { startEmulator, type RunningEmulator } from '@station-agent/emulator';
import { errorMessage } from '../../src/errors.js';
import { createLogger } from '../../src/log/index.js';
import { queueCounts, type QueueCounts } from '../../src/queue/index.js';
import { DemoError } from './errors.js';
import { DEMO_LABELS_FILE, writeSampleFolder, type SampleFile } from './sample-data.js';
import { DEMO_MIN_CONFIDENCE, expectedAtService, planSamples, type SamplePlan } from './sample-plan.js';
import { readServiceSummary, type ServiceSummary } from './service-summary.js';

/**
 * `station-agent demo`: the whole pipeline on one machine, with no token and no
 * network. Starts the local service in-process with a generated station token,
 * writes a sample analyzer output folder (synthesised audio, several result
 * formats), runs the agent exactly as `station-agent run` does (`startDaemon`
 * with a config file), waits until the queue has drained, and reads back what the
 * service now holds. Then stops everything and removes its temporary folder.
 *
 * The agent's log goes to `agent.log` in that folder (kept with `keep`), so the
 * terminal shows only the narrative.
 */
export interface DemoOptions {
  /** Keep the temporary folder (samples, queue, config, agent.log) and say where. */
  keep?: boolean;
  /** Progress lines for people. */
  say?: (line: string) => void;
  /** How long the queue may take to drain. Default 60 s. */
  timeoutMs?: number;
  /** Aborts the wait (Ctrl-C); everything is still stopped and removed. */
  signal?: AbortSignal;
  now?: () => number;
}

export interface DemoResult {
  serviceUrl: string;
  station: { latitude: number; longitude: number; timezone: string };
  samples: (SampleFile & { start: string })[];
  expected: ReturnType<typeof expectedAtService>;
  service: ServiceSummary;
  elapsedMs: number;
  /** The temporary folder when kept, else null (removed). */
  keptDir: string | null;
  logFile: string | null;
}

const STATION = { latitude: 52.52, longitude: 13.4 };
const POLL_MS = 200;

export async function runDemo(options: DemoOptions = {}): Promise<DemoResult> {
  const say = options.say ?? (() => {});
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const root = await mkdtemp(path.join(tmpdir(), 'station-agent-demo-'));
  const inputDir = path.join(root, 'analyzer-output');
  const logFile = path.join(root, 'agent.log');
  const token = randomBytes(24).toString('base64url');
  const timezone = systemTimeZone();

  let emulator: RunningEmulator | undefined;
  let daemon: RunningDaemon | undefined;
  let client: ServiceClient | undefined;
  let keep = options.keep === true;
  try {
    emulator = await startEmulator({
      port: 0,
      db: ':memory:',
      dataDir: path.join(root, 'service-media'),
      stations: [{ token, name: 'Demo garden', lat: STATION.latitude, lon: STATION.longitude, timezone }],
    });
    say(`starting the local service at ${emulator.url}`);

    const configPath = path.join(root, 'config.json');
    await writeFile(configPath, `${JSON.stringify(demoConfig(emulator.url, token, timezone, inputDir, path.join(root, 'agent-data')), null, 2)}\n`, { mode: 0o600 });
    // The analyzer's folder is there before the agent starts, as on a station (a missing one is warned about).
    await mkdir(inputDir);
    const logger = createLogger({ level: 'debug', destination: { write: (line: string) => appendLine(logFile, line) } });
    daemon = await startDaemon({ path: configPath, env: {}, logger });

    const plan = planSamples({ now: now(), zone: timezone });
    const expected = expectedAtService(plan, DEMO_MIN_CONFIDENCE);
    const formats = [...new Set(plan.recordings.map((r) => r.format))].join(', ');
    say(`writing ${plan.recordings.length} sample recordings (${plan.durationSec} s each; results as ${formats}) to ${inputDir}`);
    const started = now();
    const files = await writeSampleFolder(inputDir, plan);

    say(
      `uploading: the agent queues ${expected.soundscapes} soundscapes and ${expected.detections} detections ` +
        `(${expected.below} below input.minConfidence ${DEMO_MIN_CONFIDENCE} stay local) ...`,
    );
    await waitForDrain(daemon, expected, { timeoutMs, signal: options.signal, logFile });
    const elapsedMs = now() - started;
    say(`uploaded in ${(elapsedMs / 1000).toFixed(1)} s; the service now holds:`);

    client = createServiceClient({ baseUrl: emulator.url, token });
    const service = await readServiceSummary(client);
    checkAgainstPlan(service, expected, plan, files);
    return {
      serviceUrl: emulator.url,
      station: { ...STATION, timezone },
      samples: files.map((f) => ({ ...f, start: new Date(f.startMs).toISOString() })),
      expected,
      service,
      elapsedMs,
      keptDir: keep ? root : null,
      logFile: keep ? logFile : null,
    };
  } catch (err) {
    // Keep what explains a failure (the samples, the queue, agent.log).
    if (!(err instanceof DemoError && err.interrupted)) keep = true;
    throw err instanceof DemoError ? err : new DemoError(`demo failed: ${errorMessage(err)}`, { cause: err });
  } finally {
    await daemon?.stop().catch(() => {});
    await client?.close().catch(() => {});
    await emulator?.close().catch(() => {});
    if (keep) say(`kept ${root} (samples, queue, config, agent.log)`);
    else await rm(root, { recursive: true, force: true });
  }
}

function demoConfig(baseUrl: string, token: string, timezone: string, inputDir: string, dataDir: string): ConfigInput {
  return {
    service: { baseUrl, token, timeoutMs: 10_000 },
    station: { ...STATION, timezone, settings: { name: 'Demo garden' } },
    input: {
      dir: inputDir,
      format: 'auto',
      minConfidence: DEMO_MIN_CONFIDENCE,
      labels: DEMO_LABELS_FILE,
      stableMs: 300,
      rescanIntervalSec: 10,
    },
    dataDir,
    upload: { backoffBaseMs: 200, backoffMaxMs: 2_000, probeIntervalSec: 5 },
    // The demo's service runs on this machine with this machine's clock.
    clock: { requireSync: 'never' },
    // The samples are 9 MB; a nearly full temp folder should not turn the demo into a wait.
    disk: { minFreeMb: 0 },
    log: { level: 'debug' },
  };
}

function waiting(c: QueueCounts): number {
  return c.recordings.pending + c.recordings.sending + c.recordings.unknown + c.detections.pending + c.detections.sending + c.detections.unknown;
}

async function waitForDrain(
  daemon: RunningDaemon,
  expected: { soundscapes: number; detections: number },
  options: { timeoutMs: number; signal?: AbortSignal; logFile: string },
): Promise<QueueCounts> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (options.signal?.aborted) throw new DemoError('demo interrupted', { interrupted: true });
    const c = queueCounts(daemon.queue);
    const failed = c.recordings.failed + c.detections.failed;
    if (failed > 0) {
      throw new DemoError(`${failed} item(s) failed to upload (${describe(c)})${problemsIn(options.logFile)}`);
    }
    if (waiting(c) === 0 && c.recordings.uploaded >= expected.soundscapes && c.detections.uploaded >= expected.detections) return c;
    if (Date.now() > deadline) {
      throw new DemoError(
        `the queue did not drain within ${Math.round(options.timeoutMs / 1000)} s: expected ${expected.soundscapes} soundscapes ` +
          `and ${expected.detections} detections uploaded, the queue holds ${describe(c)}${problemsIn(options.logFile)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function describe(c: QueueCounts): string {
  const part = (name: string, s: QueueCounts['recordings']) =>
    `${name}: ${Object.entries(s)
      .filter(([, n]) => n > 0)
      .map(([state, n]) => `${n} ${state}`)
      .join(', ') || 'none'}`;
  return `${part('soundscapes', c.recordings)}; ${part('detections', c.detections)}`;
}

/** The agent's warnings and errors, to explain a stall. */
function problemsIn(logFile: string): string {
  let lines: string[];
  try {
    lines = readFileSync(logFile, 'utf8').split('\n');
  } catch {
    return '';
  }
  const problems = lines
    .map((line) => {
      try {
        return JSON.parse(line) as { level?: string; msg?: string };
      } catch {
        return null;
      }
    })
    .filter((l): l is { level: string; msg: string } => l !== null && (l.level === 'warn' || l.level === 'error' || l.level === 'fatal'))
    .slice(-5)
    .map((l) => `\n  agent ${l.level}: ${l.msg}`);
  return problems.join('');
}

/**
 * The demo checks itself: every species with the number of detections written at
 * or above the threshold; each of those detections at its recording's start plus
 * its offset, with its confidence and its place in the soundscape; and one
 * soundscape per uploaded recording starting when its file says. A wrong time
 * zone, offset or pairing shows here.
 */
function checkAgainstPlan(service: ServiceSummary, expected: ReturnType<typeof expectedAtService>, plan: SamplePlan, files: SampleFile[]): void {
  const problems: string[] = [];
  for (const want of expected.species) {
    const got = service.species.find((s) => s.scientificName === want.scientificName);
    if ((got?.detections.total ?? 0) !== want.detections) {
      problems.push(`${want.commonName}: ${want.detections} detections written, the service holds ${got?.detections.total ?? 0}`);
    }
  }
  for (const got of service.species) {
    if (!expected.species.some((s) => s.scientificName === got.scientificName)) problems.push(`unexpected species at the service: ${got.scientificName}`);
  }
  const unmatched = [...service.detectionItems];
  const starts = new Set(service.soundscapes.items.map((s) => Date.parse(s.timestamp)));
  plan.recordings.forEach((rec, i) => {
    const kept = rec.detections.filter((d) => d.confidence >= DEMO_MIN_CONFIDENCE);
    if (kept.length > 0 && !starts.has(rec.startMs)) {
      problems.push(`no soundscape starting at ${new Date(rec.startMs).toISOString()} (${files[i].audioFile})`);
    }
    for (const d of kept) {
      const at = rec.startMs + Math.round(d.startSec * 1000);
      const found = unmatched.findIndex(
        (g) =>
          g.scientificName === d.species.scientificName &&
          Date.parse(g.timestamp) === at &&
          g.confidence === d.confidence &&
          g.soundscape?.startTime === d.startSec &&
          g.soundscape?.endTime === d.endSec,
      );
      if (found < 0) problems.push(`${files[i].resultFile}: no ${d.species.commonName} at ${new Date(at).toISOString()} (+${d.startSec} s in its soundscape)`);
      else unmatched.splice(found, 1);
    }
  });
  for (const g of unmatched) problems.push(`unexpected detection at the service: ${g.scientificName} at ${g.timestamp}`);
  if (problems.length > 0) throw new DemoError(`the service holds something else than the samples:\n  ${problems.join('\n  ')}`);
}

function appendLine(file: string, line: string): void {
  try {
    appendFileSync(file, line);
  } catch {
    // The folder is gone (removed at the end): nothing left to log to.
  }
}
