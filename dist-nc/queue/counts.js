import { firstWaitingCreatedAt } from './first-waiting.js';
import { readStateCounts } from './state-counts.js';
export function queueCounts(q) {
    return q.read(() => {
        const oldest = [firstWaitingCreatedAt(q, 'recording'), firstWaitingCreatedAt(q, 'detection')].filter((t) => t != null);
        return {
            recordings: readStateCounts(q, 'recording'),
            detections: readStateCounts(q, 'detection'),
            oldestPendingAt: oldest.length > 0 ? Math.min(...oldest) : null,
        };
    });
}
