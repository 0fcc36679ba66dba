import type { DetectionRecord } from '../../store/index.js';
import { readCriteria, type CriteriaArgs } from '../args/criteria-args.js';
import type { GqlContext } from '../context.js';
import { detectionMatches } from '../queries/detections.js';
import { detectionEvents } from './event-iterator.js';

/**
 * `newDetection`: fed by the emulator's in-process `detection` events (one per
 * detection stored through REST, after its transaction). Each event is tested with
 * the same SQL as the `detections` query, so a subscriber sees exactly what a
 * `detections` query with the same filters would list.
 */
export const subscriptionResolvers = {
  newDetection: {
    subscribe: (_root: unknown, args: CriteriaArgs, ctx: GqlContext): AsyncIterableIterator<DetectionRecord> => {
      const criteria = readCriteria(args, { nowMs: ctx.nowMs, periodOptional: true });
      return detectionEvents(ctx.emulator.events, (detection) => {
        ctx.refresh();
        return detectionMatches(ctx, detection.id, criteria);
      });
    },
    resolve: (detection: DetectionRecord) => ({ detection }),
  },
};
