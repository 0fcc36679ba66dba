import { MESSAGES } from '../http-errors.js';
import { parseTimestamp } from '../time.js';

const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Field readers for POST bodies, which arrive as JSON (typed values) or as form
 * parameters (all strings). Each returns `undefined` for an absent or blank value and
 * records "is invalid" for a value of the wrong kind. This is the one place of the
 * local service's leniencies (listed in docs/EMULATOR.md, "Leniencies"): numbers as
 * numeric strings, times into a recording as ISO timestamps; the timestamp forms
 * themselves are parseTimestamp's (time.ts).
 */
export class BodyReader {
  readonly errors: Record<string, string[]> = {};

  constructor(private readonly body: Record<string, unknown>) {}

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  has(field: string): boolean {
    const value = this.body[field];
    return !(value === undefined || value === null || (typeof value === 'string' && value.trim() === ''));
  }

  /** The first of several accepted spellings that is present (e.g. `behavior_key`, `behaviorKey`). */
  pick(...fields: string[]): string {
    return fields.find((f) => this.has(f)) ?? fields[0];
  }

  raw(field: string): unknown {
    return this.has(field) ? this.body[field] : undefined;
  }

  string(field: string, required = false): string | undefined {
    if (!this.has(field)) {
      if (required) this.add(field, MESSAGES.blank);
      return undefined;
    }
    const value = this.body[field];
    if (typeof value === 'string') return value.trim();
    if (typeof value === 'number') return String(value);
    this.add(field, MESSAGES.invalid);
    return undefined;
  }

  /** A finite number from a number or a numeric string, optionally within [min, max]. */
  number(field: string, bounds?: { min?: number; max?: number }): number | undefined {
    if (!this.has(field)) return undefined;
    const value = this.body[field];
    const number =
      typeof value === 'number' ? value : typeof value === 'string' && NUMERIC.test(value.trim()) ? Number(value) : NaN;
    if (!Number.isFinite(number)) {
      this.add(field, MESSAGES.invalid);
      return undefined;
    }
    if ((bounds?.min !== undefined && number < bounds.min) || (bounds?.max !== undefined && number > bounds.max)) {
      this.add(field, MESSAGES.invalid);
      return undefined;
    }
    return number;
  }

  /**
   * Seconds into a recording: a number (or numeric string) of seconds, or an ISO 8601
   * timestamp inside the recording, converted to seconds from its start. A widely
   * used uploader sends absolute times and the real service takes them; a time
   * before the recording's start "is invalid". A start after the recording's end is
   * invalid too (the duration is whole seconds, so half a second late is allowed), but
   * an end may run past it (`endsPastRecording`): an analyzer segment is 3 s whatever
   * the recording's length, and a public uploader's connection test posts a 3 s
   * detection on a 0.5 s soundscape, which the real service accepts. Such an end is
   * stored as sent.
   */
  secondsInto(
    field: string,
    recording: { startMs: number; durationSeconds: number; zone: string } | undefined,
    options: { endsPastRecording?: boolean } = {},
  ): number | undefined {
    if (!this.has(field)) return undefined;
    const value = this.body[field];
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}[T ]/.test(value.trim())) return this.number(field, { min: 0 });
    const ms = parseTimestamp(value, recording?.zone ?? 'UTC');
    if (ms === null) {
      this.add(field, MESSAGES.invalid);
      return undefined;
    }
    if (!recording) return undefined; // without a soundscape the offsets are not stored
    const seconds = (ms - recording.startMs) / 1000;
    if (options.endsPastRecording) {
      if (seconds >= 0) return seconds;
    } else if (seconds >= 0 && seconds <= recording.durationSeconds + 0.5) {
      return Math.min(seconds, recording.durationSeconds);
    }
    this.add(field, MESSAGES.invalid);
    return undefined;
  }

  integer(field: string): number | undefined {
    if (!this.has(field)) return undefined;
    const value = this.body[field];
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
    if (!/^\d+$/.test(text)) {
      this.add(field, MESSAGES.invalid);
      return undefined;
    }
    return Number(text);
  }

  get failed(): boolean {
    return Object.keys(this.errors).length > 0;
  }
}

/** The body as a record, whatever the parser produced. */
export function bodyOf(body: unknown): Record<string, unknown> {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}
