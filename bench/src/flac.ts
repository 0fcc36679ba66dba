import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { createFlacEncoder, type EncodeResult } from '../../src/audio/flac-encoder.js';
import type { BenchOptions } from './options.js';
import { REPO_ROOT } from './proc.js';
import { figure, median, type Figure } from './report.js';

/**
 * FLAC: encode speed as a multiple of real time, and size against the WAV, on real
 * analyzer audio, through the encoder the daemon picks (`upload.flacEncoder` auto: libFLAC
 * in-process where its addon is built, else the `flac` program, else libflacjs). The
 * files are read where they are (`../shared/fixtures/real`, CC BY-NC-SA, never
 * copied into the repository); the encoder's start-up (loading the addon, or the
 * worker thread and WebAssembly) is paid once before timing, then each file is
 * encoded `RUNS` times (median).
 */
export const REAL_FIXTURES = path.resolve(REPO_ROOT, '../shared/fixtures/real');

const FILES: readonly { label: string; file: string }[] = [
  { label: '30 s, 48 kHz', file: 'birdnet-pi_88985a3a/Pica pica_30s.wav' },
  { label: '15 s, 32 kHz AudioMoth', file: 'opensoundscape_8b582152/metadata.wav' },
  { label: '10 s, 16 kHz extensible', file: 'birdnet-analyzer_ea464544_2022-03-02/soundscape.wav' },
];
const RUNS = 5;

export async function runFlac(_options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  const present = FILES.map((f) => ({ ...f, path: path.join(REAL_FIXTURES, f.file) })).filter((f) => existsSync(f.path));
  if (present.length === 0) {
    // A clone without the shared fixtures: say so in the table instead of failing the run.
    log(`flac: not measured: no real fixture audio under ${REAL_FIXTURES}`);
    return [figure({ id: 'flac.speed', name: 'FLAC: encode speed (real fixtures not found)', value: null, unit: 'x real time', target: { op: '>=', value: 50 }, detail: { missing: REAL_FIXTURES } })];
  }
  mkdirSync(dir, { recursive: true });
  const encoder = createFlacEncoder({ engine: 'auto', thread: 'worker' });
  const figures: Figure[] = [];
  let audioSec = 0;
  let encodeSec = 0;
  let wavBytes = 0;
  let flacBytes = 0;
  let engine = '';
  try {
    await encoder.encode(present[0].path, path.join(dir, 'warm-up.flac'));
    for (const f of present) {
      const dest = path.join(dir, `${path.basename(f.file, '.wav')}.flac`);
      const times: number[] = [];
      const results: EncodeResult[] = [];
      for (let run = 0; run < RUNS; run++) {
        rmSync(dest, { force: true });
        const t = performance.now();
        results.push(await encoder.encode(f.path, dest));
        times.push((performance.now() - t) / 1000);
      }
      const result = results[0];
      engine = result.engine;
      const seconds = median(times);
      const wav = statSync(f.path).size;
      const speed = result.durationSec / seconds;
      audioSec += result.durationSec;
      encodeSec += seconds;
      wavBytes += wav;
      flacBytes += result.bytes;
      log(`flac: ${f.file}: ${result.durationSec.toFixed(1)} s of audio in ${(seconds * 1000).toFixed(1)} ms = ${speed.toFixed(0)}x real time, ${result.bytes} / ${wav} bytes (${result.engine})`);
      const detail = { file: f.file, durationSec: result.durationSec, sampleRate: result.sampleRate, encodeMs: seconds * 1000, flacBytes: result.bytes, wavBytes: wav, engine: result.engine, runs: RUNS };
      figures.push(
        figure({ id: `flac.speed.${f.file}`, name: `FLAC: encode speed, ${f.label}`, value: speed, unit: 'x real time', digits: 0, target: { op: '>=', value: 50 }, detail }),
        figure({ id: `flac.size.${f.file}`, name: `FLAC: size against the WAV, ${f.label}`, value: (100 * result.bytes) / wav, unit: '%', digits: 1 }),
      );
    }
  } finally {
    await encoder.close();
  }
  figures.push(
    figure({ id: 'flac.speed', name: `FLAC: encode speed, all files (${engine})`, value: audioSec / encodeSec, unit: 'x real time', digits: 0, target: { op: '>=', value: 50 } }),
    figure({ id: 'flac.size', name: 'FLAC: size against the WAV, all files', value: (100 * flacBytes) / wavBytes, unit: '%', digits: 1 }),
  );
  return figures;
}
