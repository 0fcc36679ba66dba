import type { EmulatorEvents } from '../../events.js';
import type { DetectionRecord } from '../../store/index.js';

/** Detections buffered for one slow subscriber before the oldest are dropped. */
export const SUBSCRIBER_BUFFER = 1000;

/**
 * The emulator's `detection` events as an async iterator for one subscriber. Unlike
 * an async generator around `events.on`, `return()` detaches the listener at once,
 * even while a `next()` is waiting, so a client that unsubscribes leaves nothing
 * behind. Events that do not pass `accept` are never buffered.
 */
export function detectionEvents(
  events: EmulatorEvents,
  accept: (detection: DetectionRecord) => boolean,
): AsyncIterableIterator<DetectionRecord> {
  const buffer: DetectionRecord[] = [];
  const waiting: ((result: IteratorResult<DetectionRecord>) => void)[] = [];
  let done = false;

  const listener = (detection: DetectionRecord) => {
    if (done || !accepts(detection)) return;
    const resolve = waiting.shift();
    if (resolve) resolve({ value: detection, done: false });
    else {
      buffer.push(detection);
      if (buffer.length > SUBSCRIBER_BUFFER) buffer.shift();
    }
  };
  // The listener runs inside the REST request that stored the detection: nothing may escape into it.
  const accepts = (detection: DetectionRecord): boolean => {
    try {
      return accept(detection);
    } catch {
      return false;
    }
  };
  events.on('detection', listener);

  const finish = (): Promise<IteratorResult<DetectionRecord>> => {
    if (!done) {
      done = true;
      events.off('detection', listener);
      buffer.length = 0;
      for (const resolve of waiting.splice(0)) resolve({ value: undefined, done: true });
    }
    return Promise.resolve({ value: undefined, done: true });
  };

  return {
    next() {
      const value = buffer.shift();
      if (value) return Promise.resolve({ value, done: false });
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => waiting.push(resolve));
    },
    return: finish,
    throw: (err: unknown) => finish().then(() => Promise.reject(err instanceof Error ? err : new Error(String(err)))),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
