import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findFlacProgram } from '../../src/audio/flac-cli.js';
import { writeAgentConfig } from './agent-config.js';
import type { AnalyzerpiUploaderArgs } from './analyzerpi-uploader.js';
import { benchWav } from './audio.js';
import { createCpuGroup } from './cgroup.js';
import type { BenchOptions } from './options.js';
import { BENCH_DIR, CLI_MAIN, cpuSeconds, startNode, type Child } from './proc.js';
import { figure, type Figure } from './report.js';
import { recordingBaseName, resultCsv } from './result-files.js';
import { BENCH_TOKEN } from './service-process.js';
import { startCountingService } from './stored-detections.js';
import { SOUNDSCAPE_SECONDS } from './workload.js';

/**
 * CPU per uploaded recording (15 s, 48 kHz WAV + a result file of 3 detections), under
 * the same CPU quota for both (a cgroup v1 cpu group, 0.1 of a core: a stand-in for a
 * loaded Pi Zero 2 W core):
 * - the agent: `station-agent run` (upload.flacEncoder auto: the `flac` program when
 *   installed), which watches, ingests, queues durably, encodes, uploads;
 * - the analyzerpi baseline (analyzerpi-uploader.ts): sequential, native FLAC, posting
 *   inline, nothing durable.
 * Each one's CPU is read from /proc/<pid>/stat (its own time plus its waited-for
 * children's, the `flac` runs) from ready to the last detection stored: start-up is not
 * counted, since both live for days. The local service runs in this process, outside
 * the quota.
 */
const DETECTIONS_PER_RECORDING = 3;
const QUOTA_CORES = 0.1;
const BASELINE = path.join(BENCH_DIR, 'analyzerpi-uploader.js');

export async function runCpu(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  const flac = await findFlacProgram();
  if (!flac) throw new Error('the flac program is not installed (apt-get install flac): the analyzerpi baseline encodes with it');
  const service = await startCountingService();
  const untilStored = (target: number, who: () => string) =>
    service.untilStored(target, 600_000, (missing) => `${missing} detections not stored within 10 min: ${who()}`);
  const n = options.cpuRecordings;
  const wav = benchWav(SOUNDSCAPE_SECONDS);
  const startMs = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;
  const bases = Array.from({ length: n }, (_, i) => recordingBaseName(startMs + i * SOUNDSCAPE_SECONDS * 1000));
  const group = createCpuGroup('station-agent-bench-cpu', QUOTA_CORES);
  const quota = group ? `${QUOTA_CORES} CPU quota (cgroup ${group.name})` : 'no CPU quota (cgroup v1 cpu not writable)';
  try {
    // The agent: files dropped whole (WAV, then its result file) into the watched folder.
    const cfg = writeAgentConfig({ dir: path.join(dir, 'agent'), serviceUrl: service.url });
    const agent = startNode([CLI_MAIN, 'run', '--config', cfg.configPath]);
    let agentCpu: number;
    try {
      group?.add(agent.pid);
      await agent.waitForLine(/station-agent running/, 120_000);
      const before = readCpu(agent);
      for (const [i, base] of bases.entries()) {
        dropWhole(cfg.inputDir, `${base}.wav`, wav);
        dropWhole(cfg.inputDir, `${base}.BirdNET.results.csv`, resultCsv(base, DETECTIONS_PER_RECORDING, i));
      }
      await untilStored(n * DETECTIONS_PER_RECORDING, () => agent.stderrTail().slice(-1000));
      // The last soundscape was uploaded before its detections: all n are in.
      agentCpu = readCpu(agent) - before;
    } finally {
      await agent.stop();
    }

    // The baseline: the same recordings, in its own folder.
    const inputDir = path.join(dir, 'analyzerpi');
    mkdirSync(path.join(inputDir, 'work'), { recursive: true });
    for (const [i, base] of bases.entries()) {
      writeFileSync(path.join(inputDir, `${base}.wav`), wav);
      writeFileSync(path.join(inputDir, `${base}.BirdNET.results.csv`), resultCsv(base, DETECTIONS_PER_RECORDING, i));
    }
    const args: AnalyzerpiUploaderArgs = { url: service.url, token: BENCH_TOKEN, recordings: bases.map((b) => path.join(inputDir, b)), workDir: path.join(inputDir, 'work') };
    const baseline = startNode([BASELINE, JSON.stringify(args)], { stdio: ['pipe', 'pipe', 'pipe'] });
    let baselineCpu: number;
    const target = service.stored + n * DETECTIONS_PER_RECORDING;
    try {
      group?.add(baseline.pid);
      await baseline.waitForLine(/^ready$/m, 60_000);
      const before = readCpu(baseline);
      baseline.process.stdin?.write('go\n');
      await baseline.waitForLine(/^done (\d+)$/m, 600_000);
      await untilStored(target, () => baseline.stderrTail().slice(-1000));
      baselineCpu = readCpu(baseline) - before;
    } finally {
      await baseline.stop();
    }

    const agentPer = agentCpu / n;
    const baselinePer = baselineCpu / n;
    const ratio = baselinePer > 0 ? agentPer / baselinePer : null;
    log(`cpu: ${n} recordings under ${quota}: agent ${agentCpu.toFixed(2)} CPU-s (${agentPer.toFixed(3)}/recording), analyzerpi baseline ${baselineCpu.toFixed(2)} CPU-s (${baselinePer.toFixed(3)}/recording), ratio ${ratio?.toFixed(2) ?? '-'}`);
    const detail = { recordings: n, seconds: SOUNDSCAPE_SECONDS, detectionsPerRecording: DETECTIONS_PER_RECORDING, quotaCores: group ? QUOTA_CORES : null, flac, agentCpuSec: agentCpu, baselineCpuSec: baselineCpu };
    return [
      figure({ id: 'cpu.agentPerRecording', name: `CPU per uploaded recording: agent (${quota})`, value: agentPer, unit: 'CPU-s', digits: 3, detail }),
      figure({ id: 'cpu.baselinePerRecording', name: `CPU per uploaded recording: analyzerpi baseline (sequential, ${flac}, inline)`, value: baselinePer, unit: 'CPU-s', digits: 3 }),
      figure({ id: 'cpu.agentVsBaseline', name: 'CPU per recording: agent / analyzerpi baseline', value: ratio, unit: 'x', target: { op: '<=', value: 1.0 }, targetUnit: 'x baseline' }),
    ];
  } finally {
    await service.close();
    group?.remove();
  }
}

function readCpu(child: Child): number {
  const cpu = cpuSeconds(child.pid, true);
  if (cpu === null) throw new Error(`process ${child.pid} is gone: ${child.stderrTail().slice(-1000)}`);
  return cpu;
}

/** Written beside, then renamed into place: the watcher sees whole files only. */
function dropWhole(folder: string, name: string, content: string | Buffer): void {
  const tmp = path.join(folder, `.${name}.part`);
  writeFileSync(tmp, content);
  renameSync(tmp, path.join(folder, name));
}
