import { statSync } from 'node:fs';
import path from 'node:path';
import { createServiceClient } from '../../src/api/index.js';
import { pacedStream, TokenBucket } from '../../src/upload/bandwidth.js';
import { encodeOnce, writeBenchWav } from './audio.js';
import type { BenchOptions } from './options.js';
import { figure, type Figure } from './report.js';
import { BENCH_TOKEN, startServiceProcess } from './service-process.js';

/**
 * Bandwidth cap (`upload.audioBytesPerSec`): two soundscapes uploaded at once to the
 * local service (its own process) through one shared token bucket capped at 64 KiB/s,
 * the path the uploader takes (`uploadSoundscape` with the pacing stream). The rate is
 * the bytes of both bodies over the time from the first byte to the last response; the
 * target is the cap give or take 10 % (the first second's burst and the socket's
 * buffers make it slightly faster on short runs, never slower by much).
 */
export const BANDWIDTH_CAP = 64 * 1024;

export async function runBandwidth(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  const seconds = options.quick ? 3 : 8;
  const wav = path.join(dir, 'bandwidth.wav');
  const flac = path.join(dir, 'bandwidth.flac');
  await import('node:fs/promises').then((fs) => fs.mkdir(dir, { recursive: true }));
  writeBenchWav(wav, seconds);
  await encodeOnce(wav, flac);
  const size = statSync(flac).size;
  const service = await startServiceProcess({ dir, latencyMs: 0 });
  const client = createServiceClient({ baseUrl: service.url, token: BENCH_TOKEN, uploadTimeoutMs: 600_000 });
  try {
    const bucket = new TokenBucket({ rate: BANDWIDTH_CAP });
    let sent = 0;
    log(`bandwidth: 2 x ${size} bytes at a cap of ${BANDWIDTH_CAP} B/s`);
    const started = performance.now();
    await Promise.all(
      ['2025-06-01T10:00:00Z', '2025-06-01T10:01:00Z'].map((timestamp) =>
        client.uploadSoundscape({ timestamp, file: flac, through: pacedStream(bucket, (n) => (sent += n)) }),
      ),
    );
    const elapsedS = (performance.now() - started) / 1000;
    const rate = sent / elapsedS;
    return [
      figure({
        id: 'bandwidth.rate',
        name: `Bandwidth cap: audio upload rate at a cap of ${BANDWIDTH_CAP / 1024} KiB/s (2 uploads sharing it)`,
        value: rate / BANDWIDTH_CAP,
        unit: 'x cap',
        target: { op: '<=', value: 1.1 },
        detail: { bytes: sent, seconds: Math.round(elapsedS * 100) / 100, bytesPerSec: Math.round(rate), cap: BANDWIDTH_CAP, atLeast: 0.9 },
      }),
    ];
  } finally {
    await client.close();
    await service.stop();
  }
}
