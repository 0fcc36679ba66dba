import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { enqueueRecording, getItem, QueueError, QueueTransitionError } from '../../src/queue/index.js';
import { GroupCommit } from '../../src/upload/group-commit.js';
import { bindUploadQueue } from '../../src/upload/upload-queue-sqlite.js';
import { detection, tempQueue } from '../queue/helpers.js';

/**
 * The group commit over a real queue file: outcomes recorded while no commit runs wait
 * for the next one, which holds them all and the next claim; a second connection (what
 * the CLI or a restart after a crash sees) sees nothing of them before it and all after.
 */
let world: ReturnType<typeof tempQueue> | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

function setup(detections: number) {
  world = tempQueue();
  const { q, dbPath } = world;
  enqueueRecording(q, { recording: null, detections: Array.from({ length: detections }, (_, i) => detection('standalone', i)) });
  const queue = bindUploadQueue(q);
  let pendingCalls = 0;
  const commits = new GroupCommit(queue, () => pendingCalls++);
  const other = new Database(dbPath, { readonly: true });
  const stateSeenByOther = (id: number) => (other.prepare('SELECT state FROM detections WHERE id = ?').get(id) as { state: string }).state;
  return { q, queue, commits, other, stateSeenByOther, pendingCalls: () => pendingCalls };
}

const claimAll = (queue: ReturnType<typeof bindUploadQueue>, limit: number) => queue.claimDetections({ now: Date.now(), limit, order: 'oldest', noAudioAfterMs: 0 });

describe('GroupCommit', () => {
  it('fsyncs a commit that claims before it returns, and not one of outcomes alone (fsynced by the next claim, or by flush)', async () => {
    const { q, queue, commits, other, stateSeenByOther } = setup(4);
    const syncs = vi.spyOn(q, 'syncWal');
    const sync = () => q.db.pragma('synchronous', { simple: true }) as number;
    const NORMAL = 1;
    const FULL = 2;
    let during = 0;
    const claimed = commits.commit(() => {
      during = sync();
      return claimAll(queue, 2);
    });
    // Committed under NORMAL, then the WAL fsynced: the claim is durable before any request goes out.
    expect(during).toBe(NORMAL);
    expect(syncs).toHaveBeenCalledTimes(1);
    expect(stateSeenByOther(1)).toBe('sending');
    expect(sync()).toBe(FULL);

    // Outcomes and a claim that finds nothing to take: not fsynced (a power cut takes it back to `sending`).
    const recorded = commits.record(() => queue.markUploaded('detection', claimed[0].id, 7));
    commits.commit(() => undefined);
    await recorded;
    expect(syncs).toHaveBeenCalledTimes(1);
    expect(stateSeenByOther(1)).toBe('uploaded');

    // The next claim fsyncs it with its own; flush then has nothing to do.
    const again = commits.record(() => queue.markUploaded('detection', claimed[1].id, 8));
    commits.commit(() => claimAll(queue, 1));
    await again;
    expect(syncs).toHaveBeenCalledTimes(2);
    commits.flush();
    expect(syncs).toHaveBeenCalledTimes(2);

    // Outcomes alone, then flush (the uploader's stop): one fsync.
    const last = commits.record(() => queue.markUploaded('detection', 3, 9));
    commits.commit(() => undefined);
    await last;
    expect(syncs).toHaveBeenCalledTimes(2);
    commits.flush();
    expect(syncs).toHaveBeenCalledTimes(3);
    expect(sync()).toBe(FULL);
    other.close();
  });

  it('records several outcomes and the next claim in one transaction, durable only after it', async () => {
    const { queue, commits, other, stateSeenByOther, pendingCalls } = setup(6);
    const first = commits.commit(() => claimAll(queue, 3));
    expect(first.map((d) => d.id)).toEqual([1, 2, 3]);
    expect(commits.commits).toBe(1);
    expect(stateSeenByOther(1)).toBe('sending');

    // Three answers arrive while nothing commits: they wait, together.
    const settled: number[] = [];
    const recorded = first.map((d, i) =>
      commits.record(() => queue.markUploaded('detection', d.id, 100 + i)).then(() => settled.push(d.id)),
    );
    expect(commits.waiting).toBe(3);
    expect(pendingCalls()).toBe(1); // the owner was asked once to commit soon
    await Promise.resolve();
    expect(settled).toEqual([]);
    expect(stateSeenByOther(1)).toBe('sending');

    const next = commits.commit(() => claimAll(queue, 3));
    await Promise.all(recorded);
    expect(settled.sort()).toEqual([1, 2, 3]);
    expect(commits.commits).toBe(2); // one for the claim, one for three outcomes and the next claim
    expect(commits.recorded).toBe(3);
    expect(next.map((d) => d.id)).toEqual([4, 5, 6]);
    for (const id of [1, 2, 3]) expect(stateSeenByOther(id)).toBe('uploaded');
    for (const id of [4, 5, 6]) expect(stateSeenByOther(id)).toBe('sending');
    other.close();
  });

  it('a refused outcome undoes only its own write; the others and the claim commit', async () => {
    const { q, queue, commits, other } = setup(3);
    commits.commit(() => claimAll(queue, 2));
    const ok = commits.record(() => queue.markUploaded('detection', 1, 500));
    // Detection 3 was never claimed: `pending -> uploaded` is not a transition.
    const refused = commits.record(() => {
      queue.markUploaded('detection', 2, 501);
      queue.markUploaded('detection', 3, 502);
    });
    const claimed = commits.commit(() => claimAll(queue, 5));
    await expect(ok).resolves.toBeUndefined();
    await expect(refused).rejects.toBeInstanceOf(QueueTransitionError);
    expect(getItem(q, 'detection', 1)?.state).toBe('uploaded');
    // Its savepoint was undone whole: detection 2's mark, made before the refusal, too.
    expect(getItem(q, 'detection', 2)?.state).toBe('sending');
    expect(claimed.map((d) => d.id)).toEqual([3]);
    other.close();
  });

  it('a failed commit rejects every outcome of its batch and leaves the database as it was', async () => {
    const { q, queue, commits, other } = setup(2);
    commits.commit(() => claimAll(queue, 2));
    const a = commits.record(() => queue.markUploaded('detection', 1, 700));
    const b = commits.record(() => queue.markUploaded('detection', 2, 701));
    // Another connection holds the write lock: the commit cannot begin.
    const locker = new Database(world!.dbPath);
    locker.pragma('busy_timeout = 0');
    q.db.pragma('busy_timeout = 0');
    locker.prepare('BEGIN IMMEDIATE').run();
    expect(() => commits.commit(() => claimAll(queue, 1))).toThrow(/locked|busy/i);
    locker.prepare('ROLLBACK').run();
    locker.close();
    await expect(a).rejects.toThrow(/locked|busy/i);
    await expect(b).rejects.toThrow(/locked|busy/i);
    expect(getItem(q, 'detection', 1)?.state).toBe('sending');
    expect(commits.commits).toBe(1);
    other.close();
  });

  it('refuses to run inside another transaction, where its commit would not be durable', () => {
    const { q, queue, commits, other } = setup(1);
    expect(() => q.write(() => commits.commit(() => claimAll(queue, 1)))).toThrow(QueueError);
    expect(getItem(q, 'detection', 1)?.state).toBe('pending');
    other.close();
  });
});
