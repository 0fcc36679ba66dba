import type { QueuedAudio } from '../audio/audio-reference.js';
import { AudioFileError } from '../audio/errors.js';
import { NotRegularFileError } from '../system/regular-file.js';

/**
 * What the encode step may hold in memory. A 15 s recording is a 1.4 MB WAV (48 kHz,
 * 16-bit mono) and about 0.8 MB of FLAC; a Pi Zero 2 W has 512 MB for everything, so:
 *
 * - a WAV above {@link MAX_IN_MEMORY_WAV_BYTES} (about 87 s of that audio) is never
 *   encoded into memory: the spool compaction writes its FLAC file first (an hour-long
 *   WAV is 345 MB);
 * - the WAVs being encoded, waiting for their claim or being sent from memory together
 *   stay under {@link MAX_HELD_WAV_BYTES} (one is always allowed). The FLAC held is
 *   smaller than its WAV (libFLAC falls back to verbatim frames, a few bytes above the
 *   samples, for noise it cannot compress).
 */
export const MAX_IN_MEMORY_WAV_BYTES = 8 * 1024 * 1024;
export const MAX_HELD_WAV_BYTES = 16 * 1024 * 1024;

/**
 * Whether an encoding failure is the audio's (not a WAV, truncated, a FIFO, its spool
 * file gone): the recording fails and its detections go without a soundscape. Anything
 * else (the encoder crashed, the program is missing, the disk is full) is the station's,
 * retried later. Not the register's transient rule (src/errors.ts) but whose failure it is:
 * a fault of the agent without a code waits here too, rather than cost a soundscape. No
 * transient failure is the audio's (test/lint/error-codes.test.ts holds the two together).
 */
export function isAudioFault(err: unknown): boolean {
  return err instanceof AudioFileError || err instanceof NotRegularFileError || (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

/**
 * How a spool WAV is encoded: ingest judged it final, so a data size never filled in (0,
 * 0xFFFFFFFF, more than the file holds) is audio it recovered as sox and libsndfile read it
 * (src/ingest/recording-audio.ts), encoded as it is: the whole frames the file holds.
 */
const SPOOL_WAV = { allowIncomplete: true } as const;

/** The encode job's options for a waiting recording's spool WAV: {@link SPOOL_WAV}, checked against how it was queued. */
export function spoolWavOptions(item: { queued: QueuedAudio | null }): typeof SPOOL_WAV & { queued?: QueuedAudio } {
  return item.queued ? { ...SPOOL_WAV, queued: item.queued } : SPOOL_WAV;
}
