import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { benchWav } from './audio.js';
import type { BenchOptions } from './options.js';
import { cpuSeconds, formatMemory, goneReason, memoryDetail, procMemoryKb, sleep, split, type Child, type MemoryKb } from './proc.js';
import { figure, median, type Figure } from './report.js';
import { recordingBaseName, resultCsv } from './result-files.js';
import type { CountingService } from './stored-detections.js';
import { SOUNDSCAPE_SECONDS } from './workload.js';

/**
 * Steady state: the agent as a station runs it all day, one recording (a 15 s WAV and its
 * result CSV of 3 detections) every `steadyIntervalMs` (15 s, as the analyzer writes them)
 * for `steadySec` (10 minutes), with production defaults and the service up, next to a
 * bare `node` started with it (the idle section's pair, after its idle figures). Both one's memory is sampled every 500 ms; the figure is the
 * agent's largest VmRSS over the second half of the window (the first half warms up), with
 * its RssAnon and RssFile, against the bare node's median VmRSS over the same half.
 * `--quick` drops one every 2 s for 60 s: faster than a station, and the name says so.
 * The agent's CPU per recording is its CPU time over the window (and the drain after it)
 * divided by the recordings.
 */
const DETECTIONS_PER_RECORDING = 3;
const SAMPLE_MS = 500;

export interface SteadyAgent {
  agent: Child;
  inputDir: string;
  service: CountingService;
}

export interface SteadyRun extends SteadyAgent {
  bare: Child;
  /** The same agent with TurboFan on, given the same recordings at the same moments (idle.ts). */
  turbofan?: SteadyAgent;
}

/** The steady-state phase on an agent and a bare node already running (idle.ts starts them). */
export async function measureSteady(run: SteadyRun, options: BenchOptions, log: (line: string) => void): Promise<Figure[]> {
  const { agent, bare } = run;
  const wav = benchWav(SOUNDSCAPE_SECONDS);
  const interval = options.steadyIntervalMs;
  const count = Math.max(1, Math.floor((options.steadySec * 1000) / interval));
  const startMs = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;
  const samples: { at: number; agent: MemoryKb; bare: MemoryKb; turbofan: MemoryKb | null }[] = [];
  const agents = [run, ...(run.turbofan ? [run.turbofan] : [])];
  const stored0 = agents.map((a) => a.service.stored);
  const cpu0 = agents.map((a) => cpuSeconds(a.agent.pid));
  const t0 = performance.now();
  const sample = async () => {
    const a = procMemoryKb(agent.pid);
    const b = procMemoryKb(bare.pid);
    const t = run.turbofan ? procMemoryKb(run.turbofan.agent.pid) : null;
    if (!a) throw new Error(await goneReason('the agent', agent));
    if (!b) throw new Error(await goneReason('the bare node', bare));
    if (run.turbofan && !t) throw new Error(await goneReason('the agent with TurboFan on', run.turbofan.agent));
    samples.push({ at: performance.now() - t0, agent: a, bare: b, turbofan: t });
  };
  for (let k = 0; k < count; k++) {
    const base = recordingBaseName(startMs + k * SOUNDSCAPE_SECONDS * 1000);
    for (const a of agents) {
      dropWhole(a.inputDir, `${base}.wav`, wav);
      dropWhole(a.inputDir, `${base}.BirdNET.results.csv`, resultCsv(base, DETECTIONS_PER_RECORDING, k));
    }
    // The analyzer's cadence is the workload: sample until the next recording is due.
    const next = (k + 1) * interval;
    do {
      await sample();
      await sleep(Math.max(0, Math.min(SAMPLE_MS, next - (performance.now() - t0))));
    } while (performance.now() - t0 < next);
  }
  for (const [i, a] of agents.entries()) {
    await a.service.untilStored(stored0[i] + count * DETECTIONS_PER_RECORDING, 120_000, (missing) => `steady: ${missing} detections not stored: ${a.agent.stderrTail().slice(-1000)}`);
  }
  const cpuMsPerRecording = agents.map((a, i) => {
    const [start, end] = [cpu0[i], cpuSeconds(a.agent.pid)];
    return start === null || end === null ? null : ((end - start) * 1000) / count;
  });
  const windowMs = count * interval;
  const half = samples.filter((s) => s.at >= windowMs / 2);
  const peak = half.reduce((best, s) => (s.agent.vmRss > best.agent.vmRss ? s : best), half[0]);
  const bareMb = median(half.map((s) => s.bare.vmRss)) / 1024;
  const agentMb = peak.agent.vmRss / 1024;
  const quickNote = interval < SOUNDSCAPE_SECONDS * 1000 ? ', faster than a station' : '';
  const cadence = `one recording every ${interval / 1000} s for ${Math.round(windowMs / 1000)} s${quickNote}`;
  log(`steady: ${cadence}: agent ${formatMemory(peak.agent)} (largest of the second half), bare node ${bareMb.toFixed(1)} MB (${split(peak.bare)})`);
  const detail = { recordings: count, intervalMs: interval, windowSec: windowMs / 1000, samples: samples.length, agent: memoryDetail(peak.agent), bare: memoryDetail(peak.bare), bareMedianMb: bareMb };
  const turbofanPeak = run.turbofan ? Math.max(...half.map((s) => s.turbofan?.vmRss ?? 0)) / 1024 : null;
  if (run.turbofan) log(`steady: agent with TurboFan on ${turbofanPeak?.toFixed(1)} MB; CPU per recording ${cpuMsPerRecording.map((c) => c?.toFixed(1)).join(' / ')} ms (--no-opt / TurboFan on)`);
  const turbofanFigures = run.turbofan
    ? [
        figure({ id: 'memory.steadyRssTurbofan', name: `memory: steady-state agent VmRSS with TurboFan on, no --no-opt, ${cadence}`, value: turbofanPeak, unit: 'MB', digits: 1 }),
        figure({ id: 'cpu.steadyPerRecordingTurbofan', name: `CPU per recording in the steady state with TurboFan on, no --no-opt (${cadence})`, value: cpuMsPerRecording[1], unit: 'ms', digits: 1 }),
      ]
    : [];
  return [
    figure({ id: 'cpu.steadyPerRecording', name: `CPU per recording in the steady state, as it ships (--no-opt; ${cadence})`, value: cpuMsPerRecording[0], unit: 'ms', digits: 1 }),
    ...turbofanFigures,
    figure({ id: 'memory.steadyRss', name: `memory: steady-state agent VmRSS, ${cadence} (${split(peak.agent)})`, value: agentMb, unit: 'MB', digits: 1, detail }),
    figure({ id: 'memory.steadyVsBare', name: 'memory: steady-state agent / bare node', value: agentMb / bareMb, unit: 'x', target: { op: '<=', value: 1.6 } }),
  ];
}

/** Written beside, then renamed into place: the watcher sees whole files only. */
function dropWhole(folder: string, name: string, content: string | Buffer): void {
  const tmp = path.join(folder, `.${name}.part`);
  writeFileSync(tmp, content);
  renameSync(tmp, path.join(folder, name));
}
