import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeAgentConfig } from './agent-config.js';
import { benchWav } from './audio.js';
import type { BenchOptions } from './options.js';
import { CLI_MAIN, sleep, startNode } from './proc.js';
import { figure, percentile, type Figure } from './report.js';
import { recordingBaseName, resultCsv } from './result-files.js';
import { startCountingService } from './stored-detections.js';
import { SOUNDSCAPE_SECONDS } from './workload.js';

/**
 * Latency: from a recording's result file appearing in the watched folder to its
 * last detection stored by the service. The agent is `station-agent run` in its
 * own process; the local service runs in this one, whose `detection` event marks
 * the moment each detection is committed. Recordings are dropped one at a time:
 * the WAV (15 s, 48 kHz) first, then its result file, each renamed into place
 * whole, the next one only after the last was stored.
 */
const DETECTIONS_PER_RECORDING = 3;

export async function runLatency(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  const service = await startCountingService();
  const cfg = writeAgentConfig({ dir, serviceUrl: service.url, stableMs: options.stableMs });
  const agent = startNode([CLI_MAIN, 'run', '--config', cfg.configPath]);
  try {
    await agent.waitForLine(/station-agent running/, 30_000);
    const wav = benchWav(SOUNDSCAPE_SECONDS);
    // Recordings of the last hour, one every 15 s.
    const startMs = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;
    const samples: number[] = [];
    for (let i = 0; i < options.recordings; i++) {
      const base = recordingBaseName(startMs + i * SOUNDSCAPE_SECONDS * 1000);
      const wavTmp = path.join(cfg.inputDir, `.${base}.wav.part`);
      writeFileSync(wavTmp, wav);
      renameSync(wavTmp, path.join(cfg.inputDir, `${base}.wav`));
      const csvTmp = path.join(cfg.inputDir, `.${base}.csv.part`);
      writeFileSync(csvTmp, resultCsv(base, DETECTIONS_PER_RECORDING, i));
      const done = service.untilStored(
        service.stored + DETECTIONS_PER_RECORDING,
        30_000,
        (missing) => `recording ${base}: ${missing} of ${DETECTIONS_PER_RECORDING} detections not stored within 30 s: ${agent.stderrTail().slice(-1000)}`,
      );
      renameSync(csvTmp, path.join(cfg.inputDir, `${base}.BirdNET.results.csv`));
      const appeared = performance.now();
      samples.push((await done) - appeared);
      await sleep(100);
    }
    const p50 = percentile(samples, 50) / 1000;
    const p95 = percentile(samples, 95) / 1000;
    const max = Math.max(...samples) / 1000;
    log(`latency: ${samples.length} recordings, p50 ${p50.toFixed(3)} s, p95 ${p95.toFixed(3)} s, max ${max.toFixed(3)} s (input.stableMs ${options.stableMs})`);
    const detail = { recordings: samples.length, stableMs: options.stableMs, detectionsPerRecording: DETECTIONS_PER_RECORDING, maxSec: max, samplesMs: samples.map(Math.round) };
    return [
      figure({ id: 'latency.p50', name: `latency: result file to last detection stored, p50 (stableMs ${options.stableMs})`, value: p50, unit: 's', digits: 3, detail }),
      figure({ id: 'latency.p95', name: `latency: result file to last detection stored, p95 (stableMs ${options.stableMs})`, value: p95, unit: 's', digits: 3, target: { op: '<=', value: 1.5 } }),
    ];
  } finally {
    await agent.stop();
    await service.close();
  }
}
