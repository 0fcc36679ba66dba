import { QueueError } from './errors.js';
import type { ItemKind, ItemRef } from './types.js';

/**
 * Item ids as operators see them. Recordings and detections are numbered
 * separately, so a bare number is ambiguous: the CLI shows `r12` for recording 12
 * and `d345` for detection 345, and accepts either a prefixed id or a bare number
 * together with `--kind recording|detection`.
 */
const PREFIX: Record<ItemKind, string> = { recording: 'r', detection: 'd' };

export function formatItemId(kind: ItemKind, id: number): string {
  return `${PREFIX[kind]}${id}`;
}

export function formatItemRef(ref: ItemRef): string {
  return formatItemId(ref.kind, ref.id);
}

/**
 * Parses `r12`, `d345`, or `12` with `kind`. A prefix that contradicts `kind` is an
 * error, so `--kind detection r12` does not silently pick one of them.
 */
export function parseItemId(text: string, kind?: ItemKind): ItemRef {
  const match = /^([rd]?)(\d{1,15})$/i.exec(text.trim());
  if (!match) {
    throw new QueueError('ERR_QUEUE_INVALID', `invalid item id "${text}": expected r<number> (recording), d<number> (detection), or a number with a kind`);
  }
  const prefix = (match[1] ?? '').toLowerCase();
  const id = Number(match[2]);
  const prefixed: ItemKind | undefined = prefix === 'r' ? 'recording' : prefix === 'd' ? 'detection' : undefined;
  if (prefixed && kind && prefixed !== kind) {
    throw new QueueError('ERR_QUEUE_INVALID', `item id "${text}" names a ${prefixed}, but the kind given is ${kind}`);
  }
  const resolved = prefixed ?? kind;
  if (!resolved) {
    throw new QueueError('ERR_QUEUE_INVALID', `item id "${text}" is ambiguous: write r${id} (recording) or d${id} (detection), or give the kind`);
  }
  if (id < 1) throw new QueueError('ERR_QUEUE_INVALID', `invalid item id "${text}": ids start at 1`);
  return { kind: resolved, id };
}
