import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { writeAgentConfig } from './agent-config.js';
import { benchWav } from './audio.js';
import { createMemoryGroup } from './cgroup.js';
import type { BenchOptions } from './options.js';
import { CLI_MAIN, memoryDetail, procMemoryKb, sleep, startNodeIn, type MemoryKb } from './proc.js';
import { figure, leastSquaresSlope, type Figure } from './report.js';
import { startCountingService } from './stored-detections.js';
import { unitEnvironment, unitMemoryMaxBytes, unitNodeOptions } from './unit-options.js';
import { SOUNDSCAPE_SECONDS, SPECIES } from './workload.js';

/**
 * Years in the field, compressed: `soakRecordings` recordings (20,000 in a full run: about
 * 3.5 days of a station's recordings at one every 15 s) through one `station-agent run`, fed
 * as the analyzerpi analyzer feeds its stream folder: a WAV, its `<wav>.json` once the agent
 * holds the WAV, then the WAV deleted. `input.afterUpload: delete` removes each JSON once
 * its recording is uploaded, so the input folder stays as small as a station's; files are
 * dropped whole, so the watcher's quiet time is 200 ms rather than 2 s. The agent runs
 * in the unit's environment inside a memory group of the unit's `MemoryMax` (V8 sizes its heap
 * from it), with no CPU quota (the recordings come as fast as it takes them, at most
 * {@link AHEAD} ahead of what the service stored); the local service runs in this process,
 * its stored audio pruned as it comes (20,000 FLACs are 16 GB).
 *
 * Sampled every {@link SAMPLE_MS}: VmRSS, RssAnon and RssFile from /proc, and the V8 heap
 * (used and total) from the agent's own metrics endpoint (`metrics.listen`, prom-client's
 * `nodejs_heap_size_*`). The plateau is the highest VmRSS over the second half of the run;
 * the slope is RssAnon's least-squares growth per 1,000 recordings over the second half (a
 * structure that grows with the recordings shows there, collection that comes late does not).
 * Every recording must reach the service exactly once (soundscapes and detections counted).
 */
const DETECTIONS_PER_RECORDING = 3;
const AHEAD = 16;
const SAMPLE_MS = 2_000;
/** Checkpoints of the memory curve kept in the figure's detail. */
const CHECKPOINTS = 20;

interface Sample {
  recordings: number;
  at: number;
  mem: MemoryKb;
  heapUsedMb: number | null;
  heapTotalMb: number | null;
  /** V8's external memory (Buffers and other ArrayBuffers outside the heap). */
  externalMb: number | null;
}

export async function runSoak(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  const n = options.soakRecordings;
  const mediaDir = path.join(dir, 'service-media');
  const service = await startCountingService(0, mediaDir);
  const metricsPort = await freePort();
  const labels = path.join(dir, 'labels.txt');
  mkdirSync(dir, { recursive: true });
  writeFileSync(labels, `${SPECIES.map(([scientific, common]) => `${scientific}_${common}`).join('\n')}\n`);
  const cfg = writeAgentConfig({ dir: path.join(dir, 'agent'), serviceUrl: service.url, format: 'analyzerpi', labels, stableMs: 200, afterUpload: 'delete', metricsListen: `127.0.0.1:${metricsPort}` });
  const limit = unitMemoryMaxBytes();
  const memory = createMemoryGroup('station-agent-bench-soak', limit);
  const limits = memory ? `${Math.round(limit / 1048576)} MiB memory group (the unit's MemoryMax)` : 'no memory group (cgroup v1 not writable)';
  const agent = startNodeIn([memory], [CLI_MAIN, 'run', '--config', cfg.configPath], { env: unitEnvironment() });
  const samples: Sample[] = [];
  let fed = 0;
  let stopSampling = false;
  const started = performance.now();
  let seconds = 0;
  let peakHwmKb = 0;
  let soundscapes = 0;
  try {
    await agent.waitForLine(/station-agent running/, 120_000);
    const sampler = (async () => {
      while (!stopSampling) {
        const mem = procMemoryKb(agent.pid);
        if (!mem) break;
        const heap = await heapMb(metricsPort);
        samples.push({ recordings: Math.floor(service.stored / DETECTIONS_PER_RECORDING), at: (performance.now() - started) / 1000, mem, ...heap });
        await sleep(SAMPLE_MS);
      }
    })();
    const wav = benchWav(SOUNDSCAPE_SECONDS);
    const startMs = Math.floor((Date.now() - n * SOUNDSCAPE_SECONDS * 1000 - 3_600_000) / 1000) * 1000;
    const incoming = path.join(cfg.dataDir, 'spool', 'incoming');
    let lastProgress = 0;
    const exited = agent.exited.then((code) => {
      throw new Error(`the agent exited (${code}) after ${fed} recordings fed, ${service.stored} detections stored: ${agent.stderrTail().slice(-1000)}`);
    });
    const feed = async () => {
      for (let i = 0; i < n; i++) {
        while (fed - service.stored / DETECTIONS_PER_RECORDING >= AHEAD) await sleep(5);
        await dropStreamRecording(cfg.inputDir, incoming, wav, startMs + i * SOUNDSCAPE_SECONDS * 1000, i);
        fed++;
        if (service.stored / DETECTIONS_PER_RECORDING >= lastProgress + Math.max(1, Math.round(n / 10))) {
          lastProgress = Math.floor(service.stored / DETECTIONS_PER_RECORDING);
          const last = samples.at(-1);
          log(`soak: ${lastProgress} of ${n} recordings stored in ${((performance.now() - started) / 1000).toFixed(0)} s${last ? `, VmRSS ${(last.mem.vmRss / 1024).toFixed(1)} MB, RssAnon ${(last.mem.rssAnon / 1024).toFixed(1)} MB, heap ${last.heapUsedMb?.toFixed(1) ?? '-'} MB` : ''}`);
        }
        if (i % 200 === 0) pruneMedia(mediaDir);
      }
      await service.untilStored(n * DETECTIONS_PER_RECORDING, 600_000, (missing) => `${missing} detections not stored within 10 min of the last recording: ${agent.stderrTail().slice(-1000)}`);
    };
    await Promise.race([feed(), exited]);
    seconds = (performance.now() - started) / 1000;
    stopSampling = true;
    await sampler;
    // The last recording's sample: a short run has few of the periodic ones.
    const mem = procMemoryKb(agent.pid);
    if (mem) samples.push({ recordings: n, at: seconds, mem, ...(await heapMb(metricsPort)) });
    peakHwmKb = procMemoryKb(agent.pid)?.vmHwm ?? 0;
  } finally {
    stopSampling = true;
    await agent.stop();
    soundscapes = service.soundscapes().count;
    await service.close();
    memory?.remove();
  }
  if (soundscapes !== n || service.stored !== n * DETECTIONS_PER_RECORDING) {
    throw new Error(`the service holds ${soundscapes} soundscapes and ${service.stored} detections for ${n} recordings of ${DETECTIONS_PER_RECORDING}: not exactly once`);
  }
  return soakFigures(samples, { n, seconds, peakHwmKb, limits, nodeOptions: unitNodeOptions(), limitMb: memory ? limit / 1048576 : null }, log);
}

export interface SoakSummary {
  plateauMb: number | null;
  plateauSample: Sample | null;
  slopeMbPer1000: number | null;
  checkpoints: { recordings: number; vmRssMb: number; rssAnonMb: number; rssFileMb: number; heapUsedMb: number | null; heapTotalMb: number | null; externalMb: number | null }[];
}

/** The second half's highest VmRSS, RssAnon's slope over it, and the curve in {@link CHECKPOINTS} points. */
export function summarizeSoak(samples: readonly Sample[], n: number): SoakSummary {
  const second = samples.filter((s) => s.recordings >= n / 2);
  let plateau: Sample | null = null;
  for (const s of second) if (!plateau || s.mem.vmRss > plateau.mem.vmRss) plateau = s;
  let slope: number | null = null;
  if (second.length >= 3) {
    slope = leastSquaresSlope(
      second.map((s) => s.recordings / 1000),
      second.map((s) => s.mem.rssAnon / 1024),
    );
  }
  const checkpoints: SoakSummary['checkpoints'] = [];
  for (let k = 1; k <= CHECKPOINTS; k++) {
    const at = (n * k) / CHECKPOINTS;
    const s = samples.find((x) => x.recordings >= at) ?? (k === CHECKPOINTS ? samples.at(-1) : undefined);
    if (s && checkpoints.at(-1)?.recordings !== s.recordings) {
      checkpoints.push({ recordings: s.recordings, vmRssMb: round1(s.mem.vmRss / 1024), rssAnonMb: round1(s.mem.rssAnon / 1024), rssFileMb: round1(s.mem.rssFile / 1024), heapUsedMb: s.heapUsedMb, heapTotalMb: s.heapTotalMb, externalMb: s.externalMb });
    }
  }
  return { plateauMb: plateau ? plateau.mem.vmRss / 1024 : null, plateauSample: plateau, slopeMbPer1000: slope, checkpoints };
}

function soakFigures(
  samples: readonly Sample[],
  run: { n: number; seconds: number; peakHwmKb: number; limits: string; nodeOptions: string | null; limitMb: number | null },
  log: (line: string) => void,
): Figure[] {
  const s = summarizeSoak(samples, run.n);
  const p = s.plateauSample;
  const heapLast = samples.at(-1);
  const detail = {
    recordings: run.n,
    detectionsPerRecording: DETECTIONS_PER_RECORDING,
    seconds: run.seconds,
    samples: samples.length,
    memoryLimitMb: run.limitMb,
    nodeOptions: run.nodeOptions,
    peakVmHwmMb: run.peakHwmKb / 1024,
    plateau: p && { recordings: p.recordings, heapUsedMb: p.heapUsedMb, heapTotalMb: p.heapTotalMb, ...memoryDetail(p.mem) },
    checkpoints: s.checkpoints,
  };
  log(`soak: ${run.n} recordings in ${run.seconds.toFixed(0)} s (${(run.n / run.seconds).toFixed(1)} per s, ${run.limits}); curve ${s.checkpoints.map((c) => `${c.recordings}: ${c.vmRssMb}/${c.rssAnonMb}/${c.heapUsedMb ?? '-'}/${c.externalMb ?? '-'}`).join(', ')} (VmRSS/RssAnon/heap used/external MB)`);
  const split = p ? `; RssAnon ${(p.mem.rssAnon / 1024).toFixed(1)} MB, RssFile ${(p.mem.rssFile / 1024).toFixed(1)} MB, heap used ${p.heapUsedMb?.toFixed(1) ?? '-'} MB` : '';
  return [
    figure({ id: 'soak.plateauRss', name: `memory: soak plateau, highest VmRSS over the second half of ${run.n} analyzerpi recordings (${run.limits}${split})`, value: s.plateauMb, unit: 'MB', digits: 1, target: { op: '<=', value: 100 }, detail }),
    figure({ id: 'soak.peakRss', name: `memory: soak peak VmRSS (VmHWM) over all ${run.n} recordings`, value: run.peakHwmKb > 0 ? run.peakHwmKb / 1024 : null, unit: 'MB', digits: 1 }),
    figure({ id: 'soak.rssAnonSlope', name: 'memory: soak RssAnon growth over the second half, least squares', value: s.slopeMbPer1000, unit: 'MB per 1,000 recordings', digits: 2, target: { op: '<=', value: 1 }, targetUnit: 'MB per 1,000' }),
    figure({ id: 'soak.heapUsedEnd', name: 'memory: soak V8 heap used at the last sample (nodejs_heap_size_used_bytes)', value: heapLast?.heapUsedMb ?? null, unit: 'MB', digits: 1, detail: { heapTotalMb: heapLast?.heapTotalMb ?? null } }),
    figure({ id: 'soak.rate', name: 'soak: recordings through the agent, uploaded exactly once', value: run.seconds > 0 ? run.n / run.seconds : null, unit: 'recordings/s', digits: 1 }),
  ];
}

/** One analyzerpi recording: the WAV (renamed into place), its JSON once the agent linked the WAV, then the WAV deleted. */
async function dropStreamRecording(inputDir: string, incoming: string, wav: Buffer, startMs: number, index: number): Promise<void> {
  const iso = new Date(startMs).toISOString();
  const name = `${iso.slice(0, 10)}-birdnet-${iso.slice(11, 19)}.wav`;
  const wavPath = path.join(inputDir, name);
  writeWhole(wavPath, wav);
  const deadline = Date.now() + 60_000;
  while (!existsSync(path.join(incoming, name))) {
    if (Date.now() > deadline) throw new Error(`the agent did not link ${wavPath} within 60 s`);
    await sleep(2);
  }
  const detections = Array.from({ length: DETECTIONS_PER_RECORDING }, (_, k) => ({
    start: k * 3,
    common_name: SPECIES[(index + k) % SPECIES.length][1],
    confidence: Number((0.5 + ((index * 7 + k * 13) % 50) / 100).toFixed(4)),
  }));
  writeWhole(`${wavPath}.json`, JSON.stringify({ file_name: `${name}.json`, timestamp: `${iso.slice(0, 19)}+00:00`, delay: 0, detections }));
  rmSync(wavPath);
}

function writeWhole(file: string, content: string | Buffer): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.part`);
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}

/** The service's stored soundscape files, removed (the counts stay in its database). */
function pruneMedia(mediaDir: string): void {
  const dir = path.join(mediaDir, 'soundscapes');
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir, { recursive: true, withFileTypes: true }) as { name: string; parentPath: string; isFile(): boolean }[]) {
    if (name.isFile()) rmSync(path.join(name.parentPath, name.name), { force: true });
  }
}

/** The agent's V8 heap from its metrics endpoint, MB; nulls when it does not answer. */
async function heapMb(port: number): Promise<{ heapUsedMb: number | null; heapTotalMb: number | null; externalMb: number | null }> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
    const value = (name: string) => {
      const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'm').exec(text);
      return m ? round1(Number(m[1]) / 1048576) : null;
    };
    return { heapUsedMb: value('nodejs_heap_size_used_bytes'), heapTotalMb: value('nodejs_heap_size_total_bytes'), externalMb: value('nodejs_external_memory_bytes') };
  } catch {
    return { heapUsedMb: null, heapTotalMb: null, externalMb: null };
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
