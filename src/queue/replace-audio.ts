import type { Queue } from './db.js';
import { addToStateCounts } from './state-counts.js';

export interface FlacInSpool {
  /** The FLAC file that replaces the WAV in the spool. */
  spoolPath: string;
  filesize: number;
  durationS: number;
  sampleRate: number;
}

/**
 * The spool compaction encoded a waiting recording's WAV into a FLAC file: the
 * recording now points at the FLAC (which the caller wrote and made durable first; it
 * removes the WAV after this). Not a state change: only a recording still waiting
 * (`pending` or `unknown`) whose spool file is still `wavPath` changes, so an upload
 * claimed meanwhile, or an operator's drop, is never overwritten. Returns whether it
 * changed (false: the caller removes the FLAC instead).
 */
export function replaceWithFlac(q: Queue, id: number, wavPath: string, flac: FlacInSpool, options: { now?: number } = {}): boolean {
  const which = `id = @id AND spool_path = @wav AND state IN ('pending', 'unknown')`;
  return q.write(() => {
    // The WAV's size, for the kept total of the waiting recordings' spool (waiting-spool.ts).
    const wav = q.stmt(`SELECT filesize FROM recordings WHERE ${which}`).get({ id, wav: wavPath }) as { filesize: number | null } | undefined;
    if (!wav) return false;
    q.stmt(
      `UPDATE recordings SET spool_path = @spool_path, audio_format = 'flac', filesize = @filesize, duration_s = @duration_s, ` +
        `sample_rate = @sample_rate, audio_mtime_ms = NULL, updated_at = @now WHERE ${which}`,
    ).run({
      id,
      wav: wavPath,
      spool_path: flac.spoolPath,
      filesize: flac.filesize,
      duration_s: flac.durationS,
      sample_rate: flac.sampleRate,
      now: options.now ?? Date.now(),
    });
    addToStateCounts(q, 'recording', {}, { files: 0, bytes: flac.filesize - (wav.filesize ?? 0) });
    return true;
  });
}
