import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths.js';
import type { Queue } from '../../src/queue/db.js';
import { enqueueRecording } from '../../src/queue/enqueue.js';
import { QueueError, QueueTransitionError } from '../../src/queue/errors.js';
import { getItem } from '../../src/queue/get-item.js';
import { TRANSITIONS, allowedFrom, transition, transitionWhere } from '../../src/queue/state.js';
import { ITEM_STATES, type ItemKind, type ItemState } from '../../src/queue/types.js';
import { detection, recording, tempQueue } from './helpers.js';

let q: Queue;
let cleanup: () => void;
beforeEach(() => ({ q, cleanup } = tempQueue()));
afterEach(() => cleanup());

let n = 0;
/** A fresh item of `kind` in state `pending`. */
function newItem(kind: ItemKind): number {
  n += 1;
  const r = enqueueRecording(q, { recording: recording(n), detections: [detection(`s${n}`, 1)] });
  if (kind === 'recording') return r.recordingId!;
  return (q.db.prepare('SELECT id FROM detections WHERE recording_id = ?').get(r.recordingId) as { id: number }).id;
}

/** The shortest path of allowed transitions from pending to `target`. */
function pathTo(target: ItemState): ItemState[] {
  const seen = new Map<ItemState, ItemState[]>([['pending', []]]);
  const queue: ItemState[] = ['pending'];
  while (queue.length > 0) {
    const s = queue.shift()!;
    if (s === target) return seen.get(s)!;
    for (const t of TRANSITIONS) {
      if (t.from === s && !seen.has(t.to)) {
        seen.set(t.to, [...seen.get(s)!, t.to]);
        queue.push(t.to);
      }
    }
  }
  throw new Error(`${target} is unreachable`);
}

function itemIn(kind: ItemKind, state: ItemState): number {
  const id = newItem(kind);
  for (const step of pathTo(state)) transition(q, kind, id, step, step === 'uploaded' ? { remoteId: 9_000_000_000 } : {});
  expect(getItem(q, kind, id)!.state).toBe(state);
  return id;
}

describe('the state machine table', () => {
  it('mirrors the table in docs/ARCHITECTURE.md', () => {
    const doc = readFileSync(path.join(REPO_ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
    const start = doc.indexOf('## Queue state machine');
    const end = doc.indexOf('\n## ', start + 1);
    const section = doc.slice(start, end === -1 ? undefined : end);
    const rows = section
      .split('\n')
      .filter((line) => /^\| .* \| `\w+` \|/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    const documented = new Set<string>();
    for (const [, fromCell, toCell] of rows) {
      const to = /`(\w+)`/.exec(toCell)![1];
      if (fromCell.startsWith('(new)')) {
        documented.add(`new>${to}`);
      } else if (fromCell.startsWith('any but')) {
        const except = /`(\w+)`/.exec(fromCell)![1];
        // Dropping a dropped item is refused, not repeated.
        for (const s of ITEM_STATES) if (s !== except && s !== to) documented.add(`${s}>${to}`);
      } else {
        documented.add(`${/`(\w+)`/.exec(fromCell)![1]}>${to}`);
      }
    }
    const coded = new Set(TRANSITIONS.map((t) => `${t.from}>${t.to}`));
    expect([...coded].sort()).toEqual([...documented].sort());
  });

  it('answers allowedFrom from the table', () => {
    expect(allowedFrom('sending')).toEqual(['pending', 'unknown']);
    expect(allowedFrom('dropped')).toEqual(['pending', 'failed']);
    expect(allowedFrom('dropped')).not.toContain('uploaded');
    expect(allowedFrom('pending')).toContain('failed');
  });
});

describe('transition', () => {
  for (const kind of ['recording', 'detection'] as const) {
    for (const from of ITEM_STATES) {
      for (const to of ITEM_STATES) {
        // The table itself, read apart from allowedFrom (which transition() checks by).
        const allowed = TRANSITIONS.some((t) => t.from === from && t.to === to);
        it(`${kind}: ${from} -> ${to} is ${allowed ? 'allowed' : 'refused'}`, () => {
          const id = itemIn(kind, from);
          const before = getItem(q, kind, id)!;
          if (allowed) {
            const moved = transition(q, kind, id, to, { lastError: 'x' }, { now: before.updatedAt + 5 });
            expect(moved.state).toBe(to);
            expect(moved.lastError).toBe('x');
            expect(moved.updatedAt).toBe(before.updatedAt + 5);
            expect(getItem(q, kind, id)!.state).toBe(to);
          } else {
            let caught: unknown;
            try {
              transition(q, kind, id, to);
            } catch (err) {
              caught = err;
            }
            expect(caught).toBeInstanceOf(QueueTransitionError);
            expect(caught).toBeInstanceOf(QueueError);
            const err = caught as QueueTransitionError;
            expect(err.code).toBe('ERR_QUEUE_TRANSITION');
            expect(err.message).toContain(`${kind === 'recording' ? 'r' : 'd'}${id} from ${from} to ${to}`);
            expect(err.toJSON()).toMatchObject({ item: `${kind[0]}${id}`, from, to });
            expect(getItem(q, kind, id)).toEqual(before);
          }
        });
      }
    }
  }

  it('refuses a from state outside the restriction even when the table allows it', () => {
    const id = itemIn('recording', 'failed');
    expect(() => transition(q, 'recording', id, 'pending', {}, { from: ['sending'] })).toThrow(/from failed to pending/);
    expect(() => transition(q, 'recording', id, 'pending', {}, { from: ['dropped'] })).toThrow(/no transition from dropped to pending/);
  });

  it('names a missing item with ERR_QUEUE_NOT_FOUND', () => {
    expect(() => transition(q, 'detection', 424242, 'sending')).toThrow(expect.objectContaining({ code: 'ERR_QUEUE_NOT_FOUND', message: expect.stringContaining('d424242') }));
  });

  it('refuses recording fields on detections', () => {
    const id = itemIn('detection', 'sending');
    expect(() => transition(q, 'detection', id, 'pending', { spoolPath: '/x' })).toThrow(/recording field/);
  });

  it('binds each call its own values when one shape of transition repeats on a queue (its SQL is built once)', () => {
    const [a, b] = [itemIn('recording', 'sending'), itemIn('recording', 'sending')];
    transition(q, 'recording', a, 'pending', { lastError: 'first', reconcile: true }, { now: 1_000 });
    transition(q, 'recording', b, 'pending', { lastError: 'second', reconcile: false }, { now: 2_000 });
    expect(getItem(q, 'recording', a)).toMatchObject({ state: 'pending', lastError: 'first', reconcile: true, updatedAt: 1_000 });
    expect(getItem(q, 'recording', b)).toMatchObject({ state: 'pending', lastError: 'second', reconcile: false, updatedAt: 2_000 });
    // The same target with another restriction is another shape: its own states are checked.
    const failed = itemIn('recording', 'failed');
    expect(() => transition(q, 'recording', failed, 'pending', {}, { from: ['sending'] })).toThrow(/from failed to pending/);
    expect(transition(q, 'recording', failed, 'pending').state).toBe('pending');
    // A patch column set on one call is not set on the next call of the same target without it.
    const c = itemIn('recording', 'sending');
    transition(q, 'recording', c, 'pending', {}, { now: 3_000 });
    expect(getItem(q, 'recording', c)).toMatchObject({ state: 'pending', lastError: null, updatedAt: 3_000 });
  });

  it('moves a batch only from allowed states, in one UPDATE', () => {
    const pending = itemIn('recording', 'pending');
    const uploaded = itemIn('recording', 'uploaded');
    const failed = itemIn('recording', 'failed');
    const moved = transitionWhere(q, 'recording', 'dropped', { where: 'id IN (SELECT value FROM json_each(@ids))', params: { ids: JSON.stringify([pending, uploaded, failed]) } });
    expect(moved.map((m) => m.id).sort()).toEqual([pending, failed].sort());
    expect(getItem(q, 'recording', uploaded)!.state).toBe('uploaded');
  });
});
