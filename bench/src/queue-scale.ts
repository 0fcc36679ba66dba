import path from 'node:path';
import { enqueueMany, openQueue, type EnqueueInput } from '../../src/queue/index.js';
import { writeAgentConfig } from './agent-config.js';
import type { BenchOptions } from './options.js';
import { CLI_MAIN, CLI_MODULES_MAIN, startNode } from './proc.js';
import { figure, median, type Figure } from './report.js';
import { STATION } from './service-process.js';
import { operatorEnvironment } from './unit-options.js';

/**
 * Queue scale: `station-agent status --json --offline` on a queue of many
 * detections (a long outage's backlog: every recording with its FLAC in the
 * spool, 10 detections each, all waiting), timed as a whole process (wall clock,
 * median of `statusRuns`). For comparison, timed the same way: `status` where no
 * queue exists yet (what the queue adds) and the CLI's bare start-up (`--version`).
 *
 * And, in the same rounds, both commands in the forms the start-up could take on the new
 * runtime: the bundle (what ships) with Node's compile cache (the folder NODE_COMPILE_CACHE
 * names, which bin/station-agent sets under systemd with module.enableCompileCache), and tsc's
 * modules as they are (dist/cli/main.js, the bundle's entry: no bundle) with and without it.
 * Each cache is filled by one run first, as a station's first start fills its own.
 */
const DETECTIONS_PER_RECORDING = 10;
const BATCH_RECORDINGS = 1_000;

export async function runQueueScale(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  const cfg = writeAgentConfig({ dir, serviceUrl: 'http://127.0.0.1:9' });
  const total = options.queueDetections;
  const seeded = performance.now();
  seed(path.join(cfg.dataDir, 'queue.db'), total);
  log(`queue: ${total} detections seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

  const emptyCfg = writeAgentConfig({ dir: path.join(dir, 'empty'), serviceUrl: 'http://127.0.0.1:9' });
  // Round-robin, so that a busy minute of the machine falls on every command alike and
  // the ratios to a bare `node -e 0` (started in the same round) hold.
  const status: number[] = [];
  const empty: number[] = [];
  const startup: number[] = [];
  const bare: number[] = [];
  const forms = STARTUP_FORMS.map((form) => ({ ...form, env: form.cache ? { NODE_COMPILE_CACHE: path.join(dir, `compile-cache-${form.id}`) } : {}, status: [] as number[], version: [] as number[] }));
  for (const form of forms) await timeNode([form.main, '--version'], form.env);
  for (let i = 0; i < options.statusRuns; i++) {
    const { ms, stdout } = await timeNode([CLI_MAIN, 'status', '--json', '--offline', '--config', cfg.configPath]);
    const report = JSON.parse(stdout) as { queue: { detections: { pending: number } } };
    if (report.queue.detections.pending !== total) {
      throw new Error(`status shows ${report.queue.detections.pending} pending detections, the queue holds ${total}`);
    }
    status.push(ms);
    empty.push((await timeNode([CLI_MAIN, 'status', '--json', '--offline', '--config', emptyCfg.configPath])).ms);
    startup.push((await timeNode([CLI_MAIN, '--version'])).ms);
    bare.push((await timeNode(['-e', '0'])).ms);
    for (const form of forms) {
      form.status.push((await timeNode([form.main, 'status', '--json', '--offline', '--config', cfg.configPath], form.env)).ms);
      form.version.push((await timeNode([form.main, '--version'], form.env)).ms);
    }
  }
  for (const form of forms) log(`queue: ${form.name}: status --json ${median(form.status).toFixed(0)} ms, --version ${median(form.version).toFixed(0)} ms`);
  log(
    `queue: status --json --offline median ${median(status).toFixed(0)} ms (runs ${status.map(Math.round).join(', ')}); ` +
      `without a queue ${median(empty).toFixed(0)} ms; --version ${median(startup).toFixed(0)} ms; node -e 0 ${median(bare).toFixed(0)} ms`,
  );
  const label = total.toLocaleString('en-US');
  return [
    figure({
      id: 'queue.status',
      name: `queue: status --json --offline, ${label} detections`,
      value: median(status),
      unit: 'ms',
      digits: 0,
      detail: { detections: total, recordings: Math.ceil(total / DETECTIONS_PER_RECORDING), runsMs: status },
    }),
    figure({ id: 'queue.statusNoQueue', name: 'queue: status --json --offline, no queue file', value: median(empty), unit: 'ms', digits: 0, detail: { runsMs: empty } }),
    figure({ id: 'queue.cliStartup', name: 'start-up: station-agent --version', value: median(startup), unit: 'ms', digits: 0, detail: { runsMs: startup } }),
    figure({ id: 'startup.bareNode', name: 'start-up: bare node -e 0', value: median(bare), unit: 'ms', digits: 0, detail: { runsMs: bare } }),
    figure({ id: 'startup.versionVsBare', name: 'start-up: --version / node -e 0', value: median(startup) / median(bare), unit: 'x', target: { op: '<=', value: 2 } }),
    figure({
      id: 'startup.statusVsBare',
      name: `start-up: status --json, ${label} detections / node -e 0`,
      value: median(status) / median(bare),
      unit: 'x',
      target: { op: '<=', value: 3 },
    }),
    ...forms.flatMap((form) => [
      figure({ id: `startup.${form.id}.status`, name: `start-up, ${form.name}: status --json, ${label} detections`, value: median(form.status), unit: 'ms', digits: 0, detail: { runsMs: form.status } }),
      figure({ id: `startup.${form.id}.version`, name: `start-up, ${form.name}: --version`, value: median(form.version), unit: 'ms', digits: 0, detail: { runsMs: form.version } }),
    ]),
  ];
}

/** The start-up's other forms, timed beside the bundle without a cache (above). */
const STARTUP_FORMS = [
  { id: 'bundleCached', name: 'the bundle with the compile cache', main: CLI_MAIN, cache: true },
  { id: 'modulesCached', name: "tsc's modules with the compile cache", main: CLI_MODULES_MAIN, cache: true },
  { id: 'modules', name: "tsc's modules without it", main: CLI_MODULES_MAIN, cache: false },
] as const;

/** Recordings with 10 detections each, 10,000 detections per transaction. */
function seed(file: string, detections: number): void {
  const q = openQueue(file);
  const startMs = Math.floor((Date.now() - 90 * 86_400_000) / 3_600_000) * 3_600_000;
  try {
    let left = detections;
    for (let r = 0; left > 0; ) {
      const batch: EnqueueInput[] = [];
      for (let b = 0; b < BATCH_RECORDINGS && left > 0; b++, r++) {
        const at = startMs + r * 15_000;
        const n = Math.min(DETECTIONS_PER_RECORDING, left);
        left -= n;
        batch.push({
          recording: {
            sourceKey: `scale-${r}`,
            sourcePath: `/scale/input/scale-${r}.wav`,
            spoolPath: `/scale/spool/scale-${r}.flac`,
            audioFormat: 'flac',
            timestamp: new Date(at).toISOString(),
            timeSource: 'filename',
            durationS: 15,
            sampleRate: 48_000,
            filesize: 700_000,
          },
          detections: Array.from({ length: n }, (_, k) => ({
            dedupeKey: `scale-${r}|${k}`,
            timestamp: new Date(at + k * 1_500).toISOString(),
            startS: k * 1.5,
            endS: k * 1.5 + 3,
            scientificName: 'Turdus merula',
            commonName: 'Eurasian Blackbird',
            confidence: 0.8,
            lat: STATION.lat,
            lon: STATION.lon,
          })),
        });
      }
      enqueueMany(q, batch);
    }
  } finally {
    q.close();
  }
}

/** One command, timed from spawn to exit, in an operator's shell environment (the same for `node -e 0`). */
async function timeNode(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ ms: number; stdout: string }> {
  const t = performance.now();
  const child = startNode(args, { env: { ...operatorEnvironment(), ...env } });
  const code = await child.exited;
  const ms = performance.now() - t;
  if (code !== 0) throw new Error(`node ${args.join(' ').slice(0, 200)} exited ${code}: ${child.stderrTail().slice(-1000)}`);
  return { ms, stdout: child.stdout() };
}
