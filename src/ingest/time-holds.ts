import { reviewHolds, type Queue } from '../queue/index.js';
import { isPlausibleTimestamp } from '../system/plausible-time.js';

/** The hold of items whose recording's start was implausible when they were ingested. */
export const IMPLAUSIBLE_TIME_HOLD = 'implausible-time';

/**
 * Releases the items held for an implausible time whose time is plausible now. That
 * is the hold of a wrong station clock: a recording named 2026 ingested while the
 * clock said 2000 looked "more than a day in the future", and is fine once the
 * clock is set. A stamp that is itself wrong (before 2020: the recorder's clock was
 * not set) stays held whatever the clock says: it needs the operator (`queue
 * release` to send it as it is, or `queue drop`).
 *
 * Call it only while the system clock is trusted: judged by a wrong clock, a wrong
 * stamp could look plausible.
 */
export function releasePlausibleTimeHolds(q: Queue, now: number = Date.now()): { recordings: number; detections: number } {
  const stillHeld = (item: { timestamp: string }) => !isPlausibleTimestamp(new Date(item.timestamp), new Date(now));
  return {
    recordings: reviewHolds(q, 'recording', IMPLAUSIBLE_TIME_HOLD, stillHeld, { now }),
    detections: reviewHolds(q, 'detection', IMPLAUSIBLE_TIME_HOLD, stillHeld, { now }),
  };
}
