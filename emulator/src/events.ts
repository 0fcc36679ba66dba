import { EventEmitter } from 'node:events';
import type { DetectionRecord } from './store/index.js';

/**
 * The in-process event stream of the local service. `detection` fires once per
 * stored detection, after its transaction committed (the GraphQL subscription
 * `newDetection` is fed from here).
 */
export interface EmulatorEventMap {
  detection: [detection: DetectionRecord];
}

export class EmulatorEvents extends EventEmitter<EmulatorEventMap> {
  constructor() {
    super();
    // Many subscribers (GraphQL clients, tests) are normal; not a leak.
    this.setMaxListeners(0);
  }
}
