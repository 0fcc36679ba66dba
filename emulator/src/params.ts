import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '../../src/wire/types.js';
import { MESSAGES, validationFailed } from './http-errors.js';
import { parseBound } from './time.js';

const TRUE = new Set(['true', '1', 'yes', 'on', 't']);
const FALSE = new Set(['false', '0', 'no', 'off', 'f', '']);

/**
 * Reads query parameters (or form/JSON fields) the way the service does: lists as
 * `a,b` or repeated keys (`a=x&a=y`, `a[]=x`), numbers and booleans from strings.
 * Problems are collected per parameter and thrown together by `finish()` as one
 * 422 `{success: false, errors: {param: [message]}}`.
 */
export class ParamReader {
  private readonly errors: Record<string, string[]> = {};

  constructor(private readonly source: Record<string, unknown>) {}

  private raw(name: string): unknown {
    return this.source[name] ?? this.source[`${name}[]`];
  }

  fail(name: string, message: string): void {
    (this.errors[name] ??= []).push(message);
  }

  /** The trimmed value; blank counts as absent. */
  string(name: string): string | undefined {
    let value = this.raw(name);
    if (Array.isArray(value)) value = value[0];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      this.fail(name, MESSAGES.invalid);
      return undefined;
    }
    const text = String(value).trim();
    return text === '' ? undefined : text;
  }

  /** Comma-separated and/or repeated values, blanks dropped; undefined when none. */
  list(name: string): string[] | undefined {
    const value = this.raw(name);
    if (value === undefined || value === null) return undefined;
    const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(','));
    const items = parts.map((p) => p.trim()).filter((p) => p !== '');
    return items.length > 0 ? items : undefined;
  }

  /** A list whose every item must be one of `allowed`. */
  enumList<T extends string>(name: string, allowed: readonly T[]): T[] | undefined {
    const items = this.list(name);
    if (items?.some((item) => !(allowed as readonly string[]).includes(item))) {
      this.fail(name, MESSAGES.notIncluded);
      return undefined;
    }
    return items as T[] | undefined;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T;
  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined;
  oneOf<T extends string>(name: string, allowed: readonly T[], fallback?: T): T | undefined {
    const value = this.string(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.fail(name, MESSAGES.notIncluded);
      return fallback;
    }
    return value as T;
  }

  integer(name: string): number | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (!/^[+-]?\d+$/.test(value)) {
      this.fail(name, MESSAGES.invalid);
      return undefined;
    }
    return Number(value);
  }

  /** `limit`: default 100, clamped to 1..100 (the documented maximum is a clamp, not an error). */
  limit(): number {
    const value = this.integer('limit');
    if (value === undefined) return LIST_LIMIT_DEFAULT;
    return Math.min(LIST_LIMIT_MAX, Math.max(1, value));
  }

  /** `page`: default 1, at least 1. */
  page(): number {
    return Math.max(1, this.integer('page') ?? 1);
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name);
    if (value === undefined || value === null) return fallback;
    if (typeof value === 'boolean') return value;
    const text = String(Array.isArray(value) ? value[0] : value)
      .trim()
      .toLowerCase();
    if (TRUE.has(text)) return true;
    if (FALSE.has(text)) return false;
    this.fail(name, MESSAGES.invalid);
    return fallback;
  }

  /** An inclusive time bound in epoch ms (see parseBound). */
  time(name: string, zone: string, bound: 'from' | 'to'): number | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    const ms = parseBound(value, zone, bound);
    if (ms === null) {
      this.fail(name, MESSAGES.invalid);
      return undefined;
    }
    return ms;
  }

  /** Throws the collected problems as one 422. */
  finish(): void {
    if (Object.keys(this.errors).length > 0) throw validationFailed(this.errors);
  }
}

/** The query object of a request as a plain record. */
export function queryOf(query: unknown): Record<string, unknown> {
  return query && typeof query === 'object' ? (query as Record<string, unknown>) : {};
}
