import type { Queue } from './db.js';
import { transitionWhere } from './state.js';
import type { RegisteredCode } from '../errors.js';

export const AUDIOLESS_CODE = 'ERR_NO_AUDIO' satisfies RegisteredCode;

/**
 * A recording queued without audio (the disk was low when it came) has nothing to
 * upload; once its detections were allowed to go without it (`before`), it is
 * retired to `dropped` with the reason, so it does not wait in `pending` forever
 * and hide real backlogs in `status`. Returns how many were retired.
 */
export function retireAudiolessRecordings(q: Queue, before: number, now: number = Date.now()): number {
  return transitionWhere(q, 'recording', 'dropped', {
    from: ['pending'],
    where: 'spool_path IS NULL AND created_at <= @before',
    params: { before },
    patch: {
      lastError: 'no audio was spooled (free disk space was below disk.minFreeMb); its detections went without a soundscape',
      lastErrorCode: AUDIOLESS_CODE,
    },
    now,
  }).length;
}
