import { errorMessage } from '../../src/errors.js';
import type { QueueCounts } from '../../src/queue/index.js';
import type { UploadOutcome } from '../../src/upload/ports.js';
import { procStatusKb } from './proc.js';
import { BENCH_TOKEN } from './service-process.js';
import type { WorkloadSize } from './workload.js';

/**
 * One drain, in a process of its own (`node bench/dist/bench/src/drain-child.js '<json>'`),
 * so that its memory peak (VmHWM) and CPU time are its own and the local service
 * (another process) does not share its event loop. Prints one JSON line:
 * {@link DrainChildResult}.
 *
 * - `agent`: the real daemon (`startDaemon`, as `station-agent run` starts it) on a
 *   queue seeded beforehand, with an empty input folder; the clock runs from the
 *   call until the last item is reported uploaded.
 * - `raw` / `sequential`: the baselines of baseline-uploaders.ts.
 *
 * Each mode imports only what it runs, so a baseline's memory is that of a minimal
 * uploader, not of one that also loaded the agent.
 */
export type DrainChildArgs =
  | { mode: 'agent'; configPath: string; logFile: string; expected: number; stallMs: number }
  | { mode: 'raw' | 'sequential'; url: string; flac: string; size: WorkloadSize; concurrency: number };

export interface DrainChildResult {
  mode: DrainChildArgs['mode'];
  items: number;
  elapsedMs: number;
  cpuMs: number;
  vmHwmKb: number | null;
  /** `process.memoryUsage()` in MB when the drain ended: where the peak went (V8 heap, buffers). */
  memoryMb: Record<string, number>;
  /** Outcomes other than uploaded (agent). */
  failures: Partial<Record<UploadOutcome, number>>;
  counts?: QueueCounts;
}

async function drainAgent(args: Extract<DrainChildArgs, { mode: 'agent' }>): Promise<Omit<DrainChildResult, 'vmHwmKb' | 'cpuMs' | 'memoryMb'>> {
  // As `station-agent run` does before the daemon's modules load (src/system/v8-flags.ts).
  (await import('../../src/system/v8-flags.js')).optimizingCompilerOff();
  const [{ pino }, { startDaemon }, { createLogger }, { queueCounts }] = await Promise.all([
    import('pino'),
    import('../../src/daemon/index.js'),
    import('../../src/log/index.js'),
    import('../../src/queue/index.js'),
  ]);
  const logger = createLogger({ level: 'info', destination: pino.destination({ dest: args.logFile, sync: true }) });
  const failures: DrainChildResult['failures'] = {};
  let done = 0;
  let lastProgress = Date.now();
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const started = performance.now();
  const daemon = await startDaemon({
    path: args.configPath,
    env: {},
    logger,
    observer: {
      outcome: (_kind, outcome) => {
        lastProgress = Date.now();
        if (outcome === 'uploaded' || outcome === 'reconciled') {
          if (++done === args.expected) finish();
        } else {
          failures[outcome] = (failures[outcome] ?? 0) + 1;
        }
      },
    },
  });
  let stalled = false;
  const watchdog = setInterval(() => {
    if (Date.now() - lastProgress > args.stallMs) {
      stalled = true;
      finish();
    }
  }, 1_000);
  await finished;
  const elapsedMs = performance.now() - started;
  clearInterval(watchdog);
  const counts = queueCounts(daemon.queue);
  await daemon.stop();
  if (stalled) {
    throw new Error(`agent drain stalled: ${done} of ${args.expected} uploaded, no progress for ${args.stallMs} ms; counts ${JSON.stringify(counts)}; see ${args.logFile}`);
  }
  return { mode: 'agent', items: done, elapsedMs, failures, counts };
}

async function drainBaseline(args: Extract<DrainChildArgs, { mode: 'raw' | 'sequential' }>): Promise<Omit<DrainChildResult, 'vmHwmKb' | 'cpuMs' | 'memoryMb'>> {
  const [{ drainRaw, drainSequential }, { buildWorkload }] = await Promise.all([import('./baseline-uploaders.js'), import('./workload.js')]);
  const work = buildWorkload(args.size);
  const target = { url: args.url, token: BENCH_TOKEN, flac: args.flac };
  const started = performance.now();
  const items = args.mode === 'raw' ? await drainRaw(target, work, args.concurrency) : await drainSequential(target, work);
  return { mode: args.mode, items, elapsedMs: performance.now() - started, failures: {} };
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2] ?? '{}') as DrainChildArgs;
  const cpu = process.cpuUsage();
  const result = args.mode === 'agent' ? await drainAgent(args) : await drainBaseline(args);
  const used = process.cpuUsage(cpu);
  const memoryMb = Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, Math.round(v / 1024 / 102.4) / 10]));
  const out: DrainChildResult = { ...result, cpuMs: (used.user + used.system) / 1000, vmHwmKb: procStatusKb('self', 'VmHWM'), memoryMb };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`drain failed: ${errorMessage(err)}\n`);
    process.exit(1);
  },
);
