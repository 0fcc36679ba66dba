import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeAgentConfig } from './agent-config.js';
import { benchWav } from './audio.js';
import { createCpuGroup, createMemoryGroup } from './cgroup.js';
import type { BenchOptions } from './options.js';
import { CLI_MAIN, formatMemory, memoryDetail, MemorySampler, split, startNodeIn, type MemoryKb } from './proc.js';
import { figure, type Figure } from './report.js';
import { ravenTable, recordingBaseName } from './result-files.js';
import { startCountingService } from './stored-detections.js';
import { unitEnvironment, unitNodeOptions } from './unit-options.js';
import { SOUNDSCAPE_SECONDS } from './workload.js';

/**
 * Backlog on a Pi-sized box: a results folder that filled while the station was
 * offline (`backlogRecordings` recordings, each a 15 s 48 kHz WAV and its Raven
 * selection table), already there when `station-agent run` starts. The agent runs in
 * the systemd unit's environment (unit-options.ts) inside a cgroup v1 memory group limited to
 * 256 MiB (the unit's MemoryMax, from which V8 sizes its heap) and a cpu group of 0.1 of a core (a stand-in for one loaded Cortex-A53 of a
 * Pi Zero 2 W); the local service runs in this process, outside both. Measured from
 * the spawn until the last detection is stored: the agent's peak RSS (its own VmHWM,
 * read before it stops) and the drain rate as a multiple of real time (the analyzer
 * writes one 15 s recording every 15 s; below 1.0 a backlog never clears).
 */
const DETECTIONS_PER_RECORDING = 3;
const QUOTA_CORES = 0.1;
const MEMORY_LIMIT = 256 * 1024 * 1024;

export async function runBacklog(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  const n = options.backlogRecordings;
  const cfg = writeAgentConfig({ dir: path.join(dir, 'agent'), serviceUrl: 'http://127.0.0.1:9' });
  const wav = benchWav(SOUNDSCAPE_SECONDS);
  const startMs = Math.floor((Date.now() - 86_400_000) / 1000) * 1000;
  for (let i = 0; i < n; i++) {
    const base = recordingBaseName(startMs + i * SOUNDSCAPE_SECONDS * 1000);
    writeFileSync(path.join(cfg.inputDir, `${base}.wav`), wav);
    writeFileSync(path.join(cfg.inputDir, `${base}.BirdNET.selection.table.txt`), ravenTable(DETECTIONS_PER_RECORDING, i));
  }
  const service = await startCountingService();
  // The config names the service once it listens.
  writeAgentConfig({ dir: path.join(dir, 'agent'), serviceUrl: service.url });
  const expected = n * DETECTIONS_PER_RECORDING;
  const cpu = createCpuGroup('station-agent-bench-backlog', QUOTA_CORES);
  const memory = createMemoryGroup('station-agent-bench-backlog', MEMORY_LIMIT);
  const limits = [memory ? '256 MiB' : 'no memory limit', cpu ? `${QUOTA_CORES} CPU` : 'no CPU quota'].join(', ');
  mkdirSync(cfg.dataDir, { recursive: true });
  const started = performance.now();
  const nodeOptions = unitNodeOptions();
  // In the groups from before node starts: V8 sizes its heap from the memory group's limit.
  const agent = startNodeIn([memory, cpu], [CLI_MAIN, 'run', '--config', cfg.configPath], {
    env: unitEnvironment(),
  });
  let seconds: number;
  let peak: MemoryKb | null;
  const sampler = new MemorySampler(agent.pid);
  try {
    await Promise.race([
      // Generous: at 0.1 CPU a full backlog takes minutes; a stall shows in the agent's log.
      service.untilStored(expected, 1_800_000, (missing) => `${missing} of ${expected} detections not stored within 30 min: ${agent.stderrTail().slice(-1000)}`),
      agent.exited.then((code) => {
        throw new Error(`the agent exited (${code}) with ${service.stored} of ${expected} detections stored: ${agent.stderrTail().slice(-1000)}`);
      }),
    ]);
    // The last soundscape was uploaded before its detections: every recording is in.
    seconds = (performance.now() - started) / 1000;
    peak = sampler.stop();
  } finally {
    sampler.stop();
    await agent.stop();
    await service.close();
    cpu?.remove();
    memory?.remove();
  }
  const groupPeak = memory?.maxUsageBytes() ?? null;
  const peakMb = peak == null ? null : peak.vmHwm / 1024;
  const realTime = (n * SOUNDSCAPE_SECONDS) / seconds;
  log(`backlog: ${n} recordings (WAV + Raven table) under ${limits}, NODE_OPTIONS ${nodeOptions ?? '(none, as the unit)'}: ${seconds.toFixed(1)} s = ${realTime.toFixed(2)} x real time, agent peak ${peak ? formatMemory(peak, peak.vmHwm) : '-'}`);
  const detail = {
    recordings: n,
    seconds,
    detectionsPerRecording: DETECTIONS_PER_RECORDING,
    quotaCores: cpu ? QUOTA_CORES : null,
    memoryLimitMb: memory ? MEMORY_LIMIT / 1048576 : null,
    nodeOptions,
    groupMaxUsageMb: groupPeak == null ? null : groupPeak / 1048576,
    peak: memoryDetail(peak),
  };
  return [
    figure({ id: 'backlog.peakRss', name: `memory: agent peak RSS, ${n}-recording backlog (${limits}${peak ? `; ${split(peak)}` : ''})`, value: peakMb, unit: 'MB', digits: 1, target: { op: '<=', value: 100 }, detail }),
    figure({ id: 'backlog.realTime', name: `backlog: ingest + drain rate (${limits})`, value: realTime, unit: 'x real time', digits: 2, target: { op: '>=', value: 1 }, detail: { baseline: 'one 15 s recording every 15 s = 1.0 x' } }),
  ];
}
