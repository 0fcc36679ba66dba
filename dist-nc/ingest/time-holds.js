import { reviewHolds } from '../queue/index.js';
import { isPlausibleTimestamp } from '../system/plausible-time.js';
export const IMPLAUSIBLE_TIME_HOLD = 'implausible-time';
export function releasePlausibleTimeHolds(q, now = Date.now()) {
    const stillHeld = (item) => !isPlausibleTimestamp(new Date(item.timestamp), new Date(now));
    return {
        recordings: reviewHolds(q, 'recording', IMPLAUSIBLE_TIME_HOLD, stillHeld, { now }),
        detections: reviewHolds(q, 'detection', IMPLAUSIBLE_TIME_HOLD, stillHeld, { now }),
    };
}
