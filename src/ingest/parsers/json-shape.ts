/**
 * The few checks the two JSON result formats need (analyzerpi-json.ts, sidecar.ts), each
 * problem as `path: message` with the JSON path of the value. Not zod: the analyzerpi JSON
 * is read once per 15 s recording, and loading zod for it would keep about 11 MB resident
 * in the daemon for its whole life on a 512 MB Pi that runs the analyzer beside it (the
 * config's schema, which needs zod's full power, is validated only when the config
 * changed: src/config/cache.ts). The shapes are small and flat; this stays small.
 */

import { isoWithOffsetMs } from '../../system/zone.js';
import { isObject } from '../../wire/json-object.js';

export interface ShapeProblem {
  path: string;
  message: string;
}

/** Collects the problems of one JSON value, its fields named by path (`detections[2].confidence`). */
export class ShapeCheck {
  readonly problems: ShapeProblem[] = [];
  constructor(private readonly prefix: readonly (string | number)[] = []) {}

  /** The value as an object, or a problem at the root. */
  object(value: unknown): Record<string, unknown> | undefined {
    if (isObject(value)) return value;
    this.fail([], `must be an object (got ${kindOf(value)})`);
    return undefined;
  }

  array(obj: Record<string, unknown>, key: string): unknown[] | undefined {
    const value = obj[key];
    if (Array.isArray(value)) return value as unknown[];
    this.fail([key], `must be an array (got ${kindOf(value)})`);
    return undefined;
  }

  /** A number within [min, max]; a missing one is a problem unless `optional`. */
  number(obj: Record<string, unknown>, key: string, range: { min?: number; max?: number; optional?: boolean } = {}): number | undefined {
    const value = obj[key];
    if (value === undefined && range.optional) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.fail([key], `must be a number (got ${kindOf(value)})`);
      return undefined;
    }
    if (range.min !== undefined && value < range.min) return this.fail([key], `must be at least ${range.min}`);
    if (range.max !== undefined && value > range.max) return this.fail([key], `must be at most ${range.max}`);
    return value;
  }

  /** A string, trimmed, not empty; a missing one is a problem unless `optional`. */
  name(obj: Record<string, unknown>, key: string, optional = false): string | undefined {
    const value = obj[key];
    if (value === undefined && optional) return undefined;
    if (typeof value !== 'string') return this.fail([key], `must be a string (got ${kindOf(value)})`);
    const trimmed = value.trim();
    return trimmed === '' ? this.fail([key], 'must not be empty') : trimmed;
  }

  /** An optional string of any content. */
  text(obj: Record<string, unknown>, key: string): string | undefined {
    const value = obj[key];
    if (value === undefined || typeof value === 'string') return value;
    return this.fail([key], `must be a string (got ${kindOf(value)})`);
  }

  /** An optional ISO 8601 date-time with an offset (`Z`, `+02:00`, `+0200`): a time without one would be ambiguous. */
  dateTimeWithOffset(obj: Record<string, unknown>, key: string): string | undefined {
    const value = obj[key];
    if (value === undefined) return undefined;
    if (typeof value === 'string' && !Number.isNaN(isoWithOffsetMs(value))) return value;
    return this.fail([key], 'must be an ISO 8601 date-time with an offset');
  }

  fail(path: readonly (string | number)[], message: string): undefined {
    this.problems.push({ path: jsonPath([...this.prefix, ...path]), message });
    return undefined;
  }
}

/** `detections[2].confidence`; `(root)` for the document itself. */
function jsonPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `${out === '' ? '' : '.'}${part}`;
  return out === '' ? '(root)' : out;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'nothing';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
