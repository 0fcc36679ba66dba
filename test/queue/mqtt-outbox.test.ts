import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Queue } from '../../src/queue/db.js';
import { claimDetections } from '../../src/queue/claim-detections.js';
import { dropItems } from '../../src/queue/drop-items.js';
import { enqueueRecording } from '../../src/queue/enqueue.js';
import { markUploaded } from '../../src/queue/mark-uploaded.js';
import { setMeta } from '../../src/queue/meta.js';
import { markDetectionsPublished, markUpdatesPublished } from '../../src/queue/mqtt-mark-published.js';
import { outboxCounts } from '../../src/queue/mqtt-outbox-counts.js';
import { skipUnpublished } from '../../src/queue/mqtt-skip-unpublished.js';
import { MQTT_STATE } from '../../src/queue/mqtt-state.js';
import { detectionsToPublish, updatesToPublish } from '../../src/queue/mqtt-to-publish.js';
import { detection, tempQueue } from './helpers.js';

let q: Queue;
let cleanup: () => void;
beforeEach(() => {
  ({ q, cleanup } = tempQueue());
  // Publishing is on (the daemon's activatePublishing at start): detections enter the outbox.
  setMeta(q, 'mqtt', { active: true });
});
afterEach(() => cleanup());

const stateOf = (id: number) => (q.stmt('SELECT mqtt_published AS s FROM detections WHERE id = ?').get(id) as { s: number }).s;

describe('the MQTT outbox (detections.mqtt_published)', () => {
  it('moves a detection notPublished -> detectionPublished -> updatePublished, each once', () => {
    enqueueRecording(q, { recording: null, detections: [detection('a', 0), detection('a', 1), detection('a', 2)] });
    expect(outboxCounts(q)).toEqual({ detections: 3, updates: 0 });
    const batch = detectionsToPublish(q, 2);
    expect(batch.map((d) => d.scientificName)).toEqual(['Turdus merula', 'Turdus merula']);
    const [first, second] = batch.map((d) => d.id);

    expect(markDetectionsPublished(q, [first, second])).toEqual([first, second]);
    // A second acknowledgement of the same rows moves nothing (the tally must not count them twice).
    expect(markDetectionsPublished(q, [first, second])).toEqual([]);
    expect(stateOf(first)).toBe(MQTT_STATE.detectionPublished);
    expect(outboxCounts(q)).toEqual({ detections: 1, updates: 0 });

    // The update is due once the detection reached its end: uploaded (with its id) or dropped.
    expect(updatesToPublish(q, 10)).toEqual([]);
    const claimed = claimDetections(q, { limit: 1, order: 'oldest' });
    expect(claimed.map((d) => d.id)).toEqual([first]);
    markUploaded(q, 'detection', first, 2 ** 33);
    dropItems(q, [{ kind: 'detection', id: second }]);
    expect(updatesToPublish(q, 10).map((u) => [u.id, u.state, u.remoteId])).toEqual([
      [first, 'uploaded', 2 ** 33],
      [second, 'dropped', null],
    ]);
    markUpdatesPublished(q, [first, second]);
    expect(stateOf(first)).toBe(MQTT_STATE.updatePublished);
    expect(outboxCounts(q)).toEqual({ detections: 1, updates: 0 });
  });

  it('skipUnpublished leaves nothing to publish', () => {
    enqueueRecording(q, { recording: null, detections: [detection('b', 0), detection('b', 1)] });
    markDetectionsPublished(q, [detectionsToPublish(q, 1)[0].id]);
    expect(skipUnpublished(q)).toBe(2);
    expect(outboxCounts(q)).toEqual({ detections: 0, updates: 0 });
    expect(detectionsToPublish(q, 10)).toEqual([]);
  });

  it('a detection queued while publishing is off is past the outbox (no outbox index entry written for it)', () => {
    setMeta(q, 'mqtt', { active: false });
    enqueueRecording(q, { recording: null, detections: [detection('c', 0)] });
    setMeta(q, 'mqtt', { active: true });
    enqueueRecording(q, { recording: null, detections: [detection('c', 1)] });
    expect(outboxCounts(q)).toEqual({ detections: 1, updates: 0 });
    const entries = q.db.prepare(`SELECT count(*) AS n FROM detections INDEXED BY detections_mqtt WHERE mqtt_published < 2`).get() as { n: number };
    expect(entries.n).toBe(1);
    expect(detectionsToPublish(q, 10).map((d) => d.startS)).toEqual([3]);
  });
});
