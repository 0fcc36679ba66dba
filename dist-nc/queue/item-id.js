import { QueueError } from './errors.js';
const PREFIX = { recording: 'r', detection: 'd' };
export function formatItemId(kind, id) {
    return `${PREFIX[kind]}${id}`;
}
export function formatItemRef(ref) {
    return formatItemId(ref.kind, ref.id);
}
export function parseItemId(text, kind) {
    const match = /^([rd]?)(\d{1,15})$/i.exec(text.trim());
    if (!match) {
        throw new QueueError('ERR_QUEUE_INVALID', `invalid item id "${text}": expected r<number> (recording), d<number> (detection), or a number with a kind`);
    }
    const prefix = (match[1] ?? '').toLowerCase();
    const id = Number(match[2]);
    const prefixed = prefix === 'r' ? 'recording' : prefix === 'd' ? 'detection' : undefined;
    if (prefixed && kind && prefixed !== kind) {
        throw new QueueError('ERR_QUEUE_INVALID', `item id "${text}" names a ${prefixed}, but the kind given is ${kind}`);
    }
    const resolved = prefixed ?? kind;
    if (!resolved) {
        throw new QueueError('ERR_QUEUE_INVALID', `item id "${text}" is ambiguous: write r${id} (recording) or d${id} (detection), or give the kind`);
    }
    if (id < 1)
        throw new QueueError('ERR_QUEUE_INVALID', `invalid item id "${text}": ids start at 1`);
    return { kind: resolved, id };
}
