import { scrubSecrets } from './scrub.js';

/**
 * A scrubbed copy of any value about to be logged: every string in it (keys excepted)
 * goes through `scrubSecrets`, errors included (message, stack, cause, own fields such
 * as `request`). The caller's objects are never changed.
 *
 * Errors stay errors: the copy has the same prototype, so `instanceof`, the class name
 * pino prints as `type`, and pino's "first argument is an error" handling all still work.
 */

const MAX_DEPTH = 12;

export function scrubValue(value: unknown, secrets: readonly string[]): unknown {
  return copy(value, secrets, new WeakMap(), 0);
}

function copy(value: unknown, secrets: readonly string[], seen: WeakMap<object, unknown>, depth: number): unknown {
  if (typeof value === 'string') return scrubSecrets(value, secrets);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return seen.get(value);
  if (depth >= MAX_DEPTH) return '[too deep]';
  const next = (v: unknown) => copy(v, secrets, seen, depth + 1);

  if (value instanceof Error) return copyError(value, seen, next);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const item of value) out.push(next(item));
    return out;
  }
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return `[${value.constructor.name} ${value.byteLength} bytes]`;
  // URL, Date and other classes that serialize themselves: scrub what JSON would print.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return next((value as { toJSON: () => unknown }).toJSON());
  }
  const out: Record<string, unknown> = {};
  seen.set(value, out);
  for (const [key, item] of Object.entries(value)) out[key] = next(item);
  return out;
}

function copyError(err: Error, seen: WeakMap<object, unknown>, next: (v: unknown) => unknown): Error {
  const out = Object.create(Object.getPrototypeOf(err) as object | null) as Error;
  seen.set(err, out);
  for (const key of Object.getOwnPropertyNames(err)) {
    const descriptor = Object.getOwnPropertyDescriptor(err, key);
    // `stack` may be an accessor (newer V8): read it through the getter, store the text.
    const raw: unknown = descriptor && 'value' in descriptor ? descriptor.value : (err as unknown as Record<string, unknown>)[key];
    Object.defineProperty(out, key, {
      value: next(raw),
      enumerable: descriptor?.enumerable ?? false,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
