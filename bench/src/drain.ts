import { copyFileSync, linkSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { createServiceClient } from '../../src/api/index.js';
import { LIST_LIMIT_MAX } from '../../src/wire/types.js';
import { enqueueMany, openQueue } from '../../src/queue/index.js';
import { writeAgentConfig } from './agent-config.js';
import { encodeOnce, writeBenchWav } from './audio.js';
import type { DrainChildArgs, DrainChildResult } from './drain-child.js';
import { fsyncTime } from './machine.js';
import type { BenchOptions } from './options.js';
import { createMemoryGroup } from './cgroup.js';
import { unitEnvironment, unitMemoryMaxBytes } from './unit-options.js';
import { BENCH_DIR, memoryDetail, MemorySampler, split, startNodeIn, type MemoryKb } from './proc.js';
import { figure, type Figure } from './report.js';
import { BENCH_TOKEN, startServiceProcess } from './service-process.js';
import { buildWorkload, SOUNDSCAPE_SECONDS, toEnqueueInput, type WorkloadSize } from './workload.js';
import { tracedDrain, type WriteCost } from './write-cost.js';

/**
 * Drain: a backlog of soundscapes (FLAC already in the spool) and detections,
 * through the local service with added latency, by the agent and by two baselines.
 * Each drain runs in its own process against a fresh service process.
 */
export interface DrainRun {
  mode: DrainChildResult['mode'];
  items: number;
  seconds: number;
  itemsPerSec: number;
  cpuSec: number;
  peakRssMb: number | null;
  /** The sample of the largest VmRSS seen from outside (every 100 ms): the split of the peak into RssAnon and RssFile. */
  peakSample: MemoryKb | null;
  /** `process.memoryUsage()` at the end of the drain, MB. */
  memoryMb: Record<string, number>;
  /** The disk's fsync time measured just before this drain (the agent commits twice per item). */
  fsyncMs: number;
  atService: { soundscapes: number; detections: number };
}

const CHILD = path.join(BENCH_DIR, 'drain-child.js');

export async function runDrain(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  mkdirSync(dir, { recursive: true });
  const wav = path.join(dir, 'soundscape.wav');
  const flac = path.join(dir, 'soundscape.flac');
  const wavBytes = writeBenchWav(wav, SOUNDSCAPE_SECONDS);
  const encoded = await encodeOnce(wav, flac);
  // Whole hours, a week back: plausible to the agent, the same for every drain.
  const startMs = Math.floor((Date.now() - 7 * 86_400_000) / 3_600_000) * 3_600_000;
  const size: WorkloadSize = { soundscapes: options.soundscapes, detections: options.detections, startMs };
  const expected = size.soundscapes + size.detections;
  log(`drain: ${size.soundscapes} soundscapes (FLAC ${encoded.bytes} bytes, WAV ${wavBytes}) + ${size.detections} detections, +${options.latencyMs} ms per request, concurrency ${options.concurrency}`);

  const runs: DrainRun[] = [];
  for (const mode of ['raw', 'agent', 'sequential'] as const) {
    const service = await startServiceProcess({ dir, latencyMs: options.latencyMs });
    try {
      const fsyncMs = fsyncTime(dir);
      let args: DrainChildArgs;
      if (mode === 'agent') {
        const agentDir = path.join(dir, 'agent');
        const cfg = writeAgentConfig({ dir: agentDir, serviceUrl: service.url, concurrency: options.concurrency });
        seedQueue(cfg.dataDir, flac, size);
        args = { mode, configPath: cfg.configPath, logFile: path.join(agentDir, 'agent.log'), expected, stallMs: 60_000 };
      } else {
        args = { mode, url: service.url, flac, size, concurrency: options.concurrency };
      }
      const { result, peakSample } = await runChild(args, expected);
      const atService = await serviceTotals(service.url);
      const run: DrainRun = {
        mode,
        items: result.items,
        seconds: result.elapsedMs / 1000,
        itemsPerSec: result.items / (result.elapsedMs / 1000),
        cpuSec: result.cpuMs / 1000,
        peakRssMb: result.vmHwmKb == null ? null : result.vmHwmKb / 1024,
        peakSample,
        memoryMb: result.memoryMb,
        fsyncMs,
        atService,
      };
      if (result.items !== expected || atService.soundscapes !== size.soundscapes || atService.detections !== size.detections) {
        throw new Error(`drain ${mode}: expected ${size.soundscapes} soundscapes + ${size.detections} detections, sent ${result.items}, the service holds ${JSON.stringify(atService)}`);
      }
      if (Object.keys(result.failures).length > 0) log(`drain ${mode}: outcomes other than uploaded: ${JSON.stringify(result.failures)}`);
      log(`drain ${mode}: ${run.items} items in ${run.seconds.toFixed(2)} s = ${run.itemsPerSec.toFixed(1)} items/s (cpu ${run.cpuSec.toFixed(1)} s, peak RSS ${run.peakRssMb?.toFixed(1)} MB, fsync ${fsyncMs} ms)`);
      runs.push(run);
    } finally {
      await service.stop();
    }
  }

  const cost = await measureWriteCost(dir, flac, size, options, log);

  const by = (m: DrainRun['mode']) => runs.find((r) => r.mode === m)!;
  const agent = by('agent');
  const raw = by('raw');
  const sequential = by('sequential');
  const workload = { ...size, startMs: undefined, latencyMs: options.latencyMs, concurrency: options.concurrency, flacBytes: encoded.bytes };
  return [
    figure({ id: 'drain.agent', name: 'drain: agent throughput', value: agent.itemsPerSec, unit: 'items/s', digits: 1, detail: { ...agent, workload } }),
    figure({ id: 'drain.raw', name: 'drain: raw baseline throughput', value: raw.itemsPerSec, unit: 'items/s', digits: 1, detail: { ...raw } }),
    figure({ id: 'drain.sequential', name: 'drain: sequential uploader throughput', value: sequential.itemsPerSec, unit: 'items/s', digits: 1, detail: { ...sequential } }),
    figure({ id: 'drain.agentVsRaw', name: 'drain: agent / raw baseline', value: agent.itemsPerSec / raw.itemsPerSec, unit: 'x', target: { op: '>=', value: 0.9 } }),
    figure({ id: 'drain.agentVsSequential', name: 'drain: agent / sequential uploader', value: agent.itemsPerSec / sequential.itemsPerSec, unit: 'x', digits: 1, target: { op: '>=', value: 5 } }),
    figure({ id: 'drain.fsyncsPerItem', name: 'drain: queue fsyncs per uploaded item', value: cost && cost.fsyncs / cost.items, unit: 'fsyncs', detail: { ...cost } }),
    figure({ id: 'drain.queueBytesPerItem', name: 'drain: bytes written to the queue database per uploaded item', value: cost && cost.bytes / cost.items, unit: 'bytes', digits: 0 }),
    figure({
      id: 'memory.drainPeak',
      name: `memory: agent peak RSS during the drain${agent.peakSample ? ` (near the peak: ${split(agent.peakSample)})` : ''}`,
      value: agent.peakRssMb,
      unit: 'MB',
      digits: 1,
      target: { op: '<=', value: 100 },
      detail: { peakSample: memoryDetail(agent.peakSample) },
    }),
  ];
}

/**
 * The agent's drain once more, smaller (at most 100 soundscapes and their detections),
 * under strace: fsyncs and bytes written to the queue database per uploaded item
 * (write-cost.ts). Not timed: tracing slows the process.
 */
async function measureWriteCost(dir: string, flac: string, full: WorkloadSize, options: BenchOptions, log: (line: string) => void): Promise<WriteCost | null> {
  const soundscapes = Math.min(full.soundscapes, 100);
  const size: WorkloadSize = { ...full, soundscapes, detections: Math.round((full.detections * soundscapes) / Math.max(1, full.soundscapes)) };
  const expected = size.soundscapes + size.detections;
  const service = await startServiceProcess({ dir, latencyMs: options.latencyMs });
  try {
    const agentDir = path.join(dir, 'agent-traced');
    const cfg = writeAgentConfig({ dir: agentDir, serviceUrl: service.url, concurrency: options.concurrency });
    seedQueue(cfg.dataDir, flac, size);
    const args: DrainChildArgs = { mode: 'agent', configPath: cfg.configPath, logFile: path.join(agentDir, 'agent.log'), expected, stallMs: 60_000 };
    const cost = await tracedDrain(CHILD, args, path.join(agentDir, 'strace.txt'), path.join(cfg.dataDir, 'queue.db'));
    if (!cost) {
      log('drain write cost: not measured (strace is not installed)');
      return null;
    }
    if (cost.items !== expected) throw new Error(`traced drain: expected ${expected} items uploaded, got ${cost.items}`);
    log(`drain write cost: ${cost.items} items, ${cost.fsyncs} fsyncs (${(cost.fsyncs / cost.items).toFixed(2)} per item), ${cost.bytes} bytes to the queue database (${Math.round(cost.bytes / cost.items)} per item): ${JSON.stringify(cost.byFile)}`);
    return cost;
  } finally {
    await service.stop();
  }
}

/** The agent's queue: every recording's FLAC linked into the spool, enqueued in batches (state pending, format flac). */
function seedQueue(dataDir: string, flac: string, size: WorkloadSize): void {
  const spool = path.join(dataDir, 'spool');
  mkdirSync(spool, { recursive: true });
  const filesize = statSync(flac).size;
  const q = openQueue(path.join(dataDir, 'queue.db'));
  try {
    const work = buildWorkload(size);
    for (let i = 0; i < work.length; i += 200) {
      const batch = work.slice(i, i + 200).map((r) => {
        const dest = path.join(spool, `bench-${r.index}.flac`);
        try {
          linkSync(flac, dest);
        } catch {
          copyFileSync(flac, dest);
        }
        return toEnqueueInput(r, dest, filesize);
      });
      enqueueMany(q, batch);
    }
  } finally {
    q.close();
  }
}

async function runChild(args: DrainChildArgs, expected: number): Promise<{ result: DrainChildResult; peakSample: MemoryKb | null }> {
  // The agent in the systemd unit's environment, as a station runs it; the baselines without.
  const env = args.mode === 'agent' ? unitEnvironment() : process.env;
  // Each in a memory group of the unit's MemoryMax from before node starts, as systemd runs
  // the agent: V8 sizes its heap from the limit (1 MB semi-spaces, not this machine's 16 MB).
  const group = createMemoryGroup(`station-agent-bench-drain-${args.mode}`, unitMemoryMaxBytes());
  const child = startNodeIn([group], [CHILD, JSON.stringify(args)], { env });
  const memory = new MemorySampler(child.pid);
  // A safety net for a baseline whose service stopped answering (the agent has its own stall check).
  const deadlineMs = 120_000 + expected * 200;
  const deadline = setTimeout(() => void child.stop(), deadlineMs);
  const code = await child.exited;
  clearTimeout(deadline);
  group?.remove();
  const peakSample = memory.stop();
  const line = child.stdout().trim().split('\n').pop() ?? '';
  if (code !== 0 || !line.startsWith('{')) throw new Error(`drain ${args.mode} exited ${code}: ${child.stderrTail().slice(-2000)}`);
  return { result: JSON.parse(line) as DrainChildResult, peakSample };
}

/** What the service holds: detections from its statistics, soundscapes by paging the listing. */
async function serviceTotals(url: string): Promise<DrainRun['atService']> {
  const client = createServiceClient({ baseUrl: url, token: BENCH_TOKEN });
  try {
    const stats = await client.stats({ since: '2000-01-01T00:00:00Z' });
    let soundscapes = 0;
    let cursor: number | undefined;
    for (;;) {
      const page = await client.listSoundscapes({ limit: LIST_LIMIT_MAX, cursor, from: '2000-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z' });
      soundscapes += page.soundscapes.length;
      if (page.soundscapes.length < LIST_LIMIT_MAX) break;
      cursor = page.soundscapes[page.soundscapes.length - 1].id;
    }
    return { soundscapes, detections: stats.detections };
  } finally {
    await client.close();
  }
}
