import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';

/**
 * `npm run bench -- [flags]`: which figures, and how big. The full run takes
 * several minutes; `--quick` shrinks every size (and the idle windows) so the whole
 * run takes under a minute. Explicit size flags win over both.
 */
export const SECTIONS = ['drain', 'ingest', 'latency', 'flac', 'cpu', 'idle', 'queue', 'bandwidth', 'backlog', 'writes', 'names', 'delivery', 'growth', 'soak'] as const;
export type Section = (typeof SECTIONS)[number];

export interface BenchOptions {
  json: boolean;
  /** Also write the JSON document to this file (the table still goes to standard output). */
  save: string | null;
  quick: boolean;
  sections: Section[];
  /** Drain: soundscapes and detections of the backlog. */
  soundscapes: number;
  detections: number;
  /** Drain: ms the local service adds to every request. */
  latencyMs: number;
  /** Drain: the agent's `upload.concurrency` and the raw baseline's. */
  concurrency: number;
  /** Ingest: result files, and rows in each. */
  ingestFiles: number;
  ingestRows: number;
  /** Latency: recordings dropped one by one, and the watcher's `input.stableMs`. */
  recordings: number;
  stableMs: number;
  /** CPU: recordings uploaded by the agent and by the analyzerpi uploader (Python). */
  cpuRecordings: number;
  /** CPU: the agent runs with `node --cpu-prof`, its profile written into this folder. */
  cpuProfile: string | null;
  /** Idle: settling time before RSS is read, and the CPU window. */
  settleSec: number;
  idleSec: number;
  /** Ingest: rows of the 25 MB result table whose peak memory is measured. */
  tableRows: number;
  /** Queue scale: detections in the queue, and runs of `status` timed. */
  queueDetections: number;
  statusRuns: number;
  /** Backlog: recordings (WAV + Raven table) waiting in the results folder when the agent starts. */
  backlogRecordings: number;
  /** Writes: recordings with the service up, and as many again while it is down (then drained). */
  writeRecordings: number;
  /** Soak: analyzerpi recordings through one daemon in the unit's memory group. */
  soakRecordings: number;
  /** Growth: days of a station's queue simulated through the queue's own operations. */
  growthDays: number;
  /** Steady state: seconds of the window, and ms between recordings. */
  steadySec: number;
  steadyIntervalMs: number;
  /** Delivery: recordings each daemon (audit and heartbeat on, off) uploads; soundscapes of the audited day (3 detections each). */
  deliveryRecordings: number;
  auditRecordings: number;
  /** Keep the temporary folder (logs, queue files) for a look afterwards. */
  keep: boolean;
}

const FULL = {
  soundscapes: 1_000,
  detections: 10_000,
  ingestFiles: 2_000,
  recordings: 50,
  cpuRecordings: 60,
  settleSec: 10,
  idleSec: 60,
  queueDetections: 1_000_000,
  backlogRecordings: 150,
  writeRecordings: 40,
  soakRecordings: 20_000,
  growthDays: 45,
  steadySec: 600,
  steadyIntervalMs: 15_000,
  deliveryRecordings: 30,
  auditRecordings: 5_760,
};
const QUICK: typeof FULL = {
  soundscapes: 30,
  detections: 300,
  ingestFiles: 300,
  recordings: 10,
  cpuRecordings: 10,
  settleSec: 3,
  idleSec: 5,
  queueDetections: 100_000,
  backlogRecordings: 10,
  writeRecordings: 5,
  soakRecordings: 500,
  growthDays: 3,
  steadySec: 60,
  steadyIntervalMs: 2_000,
  deliveryRecordings: 5,
  auditRecordings: 200,
};

function whole(min: number) {
  return (text: string): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`must be a whole number >= ${min}, got ${JSON.stringify(text)}`);
    return n;
  };
}

function sections(text: string): Section[] {
  const list = text.split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of list) {
    if (!(SECTIONS as readonly string[]).includes(s)) throw new InvalidArgumentError(`"${s}" is not a section (one of ${SECTIONS.join(', ')})`);
  }
  return list as Section[];
}

interface Flags {
  json?: boolean;
  save?: string;
  quick?: boolean;
  only?: Section[];
  soundscapes?: number;
  detections?: number;
  latency: number;
  concurrency: number;
  ingestFiles?: number;
  ingestRows: number;
  recordings?: number;
  stableMs: number;
  settle?: number;
  idle?: number;
  queueDetections?: number;
  tableRows: number;
  statusRuns: number;
  cpuRecordings?: number;
  cpuProfile?: string;
  backlogRecordings?: number;
  writeRecordings?: number;
  soakRecordings?: number;
  growthDays?: number;
  steadySec?: number;
  steadyIntervalMs?: number;
  deliveryRecordings?: number;
  auditRecordings?: number;
  keep?: boolean;
}

export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  const program = new Command('bench')
    .description('measure the agent: drain throughput, ingest rate, latency, FLAC speed, CPU per recording against the analyzerpi uploader, memory, idle CPU, start-up and status on a large queue, a backlog under a Pi-sized cgroup, writes per recording (fsyncs, queue and audio bytes), unknown filter names checked against the labels')
    .option('--json', 'print one JSON document instead of the table')
    .option('--save <file>', 'also write the JSON document to this file')
    .option('--quick', 'small sizes and short idle windows (under a minute)')
    .option('--only <sections>', `comma-separated sections (${SECTIONS.join(', ')})`, sections)
    .option('--soundscapes <n>', 'drain: soundscapes in the backlog (full 1000, quick 30)', whole(1))
    .option('--detections <n>', 'drain: detections in the backlog (full 10000, quick 300)', whole(0))
    .option('--latency <ms>', 'drain: latency the local service adds to every request', whole(0), 20)
    .option('--concurrency <n>', 'drain: requests in flight (agent and raw baseline)', whole(1), 4)
    .option('--ingest-files <n>', 'ingest: result files (full 2000, quick 300)', whole(1))
    .option('--ingest-rows <n>', 'ingest: detections per result file', whole(1), 10)
    .option('--recordings <n>', 'latency: recordings dropped one by one (full 50, quick 10)', whole(1))
    .option('--stable-ms <ms>', "latency: the watcher's input.stableMs", whole(100), 500)
    .option('--cpu-recordings <n>', 'cpu: recordings uploaded by the agent and by the analyzerpi uploader, side by side (full 60, quick 10)', whole(1))
    .option('--cpu-profile <dir>', 'cpu: run the agent with node --cpu-prof, writing its profile into <dir> (its CPU figure then includes the profiler)')
    .option('--settle <s>', 'idle: seconds before RSS is read (full 10, quick 3)', whole(1))
    .option('--idle <s>', 'idle: seconds of the CPU window (full 60, quick 5)', whole(1))
    .option('--table-rows <n>', 'ingest: rows of the result table whose peak memory is measured (265000: 25 MB)', whole(1), 265_000)
    .option('--queue-detections <n>', 'queue scale: detections in the queue (full 1000000, quick 100000)', whole(1))
    .option('--status-runs <n>', 'queue scale: timed runs of status (median)', whole(1), 5)
    .option('--backlog-recordings <n>', 'backlog: recordings waiting in the results folder, ingested and drained under 256 MiB and 0.1 CPU (full 150, quick 10)', whole(1))
    .option('--write-recordings <n>', 'writes: recordings traced with the service up, and as many with it down (full 40, quick 5)', whole(1))
    .option('--soak-recordings <n>', "soak: analyzerpi recordings through one daemon in the unit's memory group, its memory sampled (full 20000, quick 500)", whole(1))
    .option('--growth-days <n>', "growth: days of a busy station's queue (5,760 recordings a day) through the queue's own operations (full 45, quick 3)", whole(1))
    .option('--steady-sec <s>', 'idle, then steady state: seconds of one recording every --steady-interval-ms (full 600, quick 60)', whole(1))
    .option('--steady-interval-ms <ms>', 'idle, then steady state: ms between recordings (full 15000, quick 2000: faster than a station)', whole(100))
    .option('--delivery-recordings <n>', 'delivery: recordings uploaded by each daemon, the audit and heartbeat on and off, side by side (full 30, quick 5)', whole(1))
    .option('--audit-recordings <n>', 'delivery: soundscapes of the audited day, 3 detections each (full 5760: a recording every 15 s; quick 200)', whole(1))
    .option('--keep', 'keep the temporary folder')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  program.parse(argv, { from: 'user' });
  const f = program.opts<Flags>();
  const size = f.quick ? QUICK : FULL;
  return {
    json: f.json === true,
    save: f.save ?? null,
    quick: f.quick === true,
    sections: f.only ?? [...SECTIONS],
    soundscapes: f.soundscapes ?? size.soundscapes,
    detections: f.detections ?? size.detections,
    latencyMs: f.latency,
    concurrency: f.concurrency,
    ingestFiles: f.ingestFiles ?? size.ingestFiles,
    ingestRows: f.ingestRows,
    recordings: f.recordings ?? size.recordings,
    cpuRecordings: f.cpuRecordings ?? size.cpuRecordings,
    cpuProfile: f.cpuProfile ? path.resolve(f.cpuProfile) : null,
    stableMs: f.stableMs,
    settleSec: f.settle ?? size.settleSec,
    idleSec: f.idle ?? size.idleSec,
    queueDetections: f.queueDetections ?? size.queueDetections,
    tableRows: f.tableRows,
    statusRuns: f.statusRuns,
    backlogRecordings: f.backlogRecordings ?? size.backlogRecordings,
    writeRecordings: f.writeRecordings ?? size.writeRecordings,
    soakRecordings: f.soakRecordings ?? size.soakRecordings,
    growthDays: f.growthDays ?? size.growthDays,
    steadySec: f.steadySec ?? size.steadySec,
    steadyIntervalMs: f.steadyIntervalMs ?? size.steadyIntervalMs,
    deliveryRecordings: f.deliveryRecordings ?? size.deliveryRecordings,
    auditRecordings: f.auditRecordings ?? size.auditRecordings,
    keep: f.keep === true,
  };
}
