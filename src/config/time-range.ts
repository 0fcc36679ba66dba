/**
 * The text form of an upload window, `HH:MM-HH:MM` (`upload.windows`): parsed here so
 * the schema validates it with the same function the uploader's windows use
 * (`src/upload/windows.ts`).
 */

/** A range in minutes since local midnight; `end` may be 1440 (24:00). */
export interface TimeRange {
  start: number;
  end: number;
  text: string;
}

const RANGE = /^(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})$/;

/**
 * Parses `HH:MM-HH:MM`. Returns the range, or the problem in words (for the config
 * schema, whose messages start with "must" after the key name). The problem never holds
 * the text: a token pasted into `upload.windows` would reach the journal with it.
 */
export function parseTimeRange(text: string): TimeRange | string {
  const m = RANGE.exec(text.trim());
  if (!m) return `must be a local time range HH:MM-HH:MM such as 22:00-06:00`;
  const [h1, m1, h2, m2] = m.slice(1).map(Number) as [number, number, number, number];
  const start = minutesOf(h1, m1, false);
  const end = minutesOf(h2, m2, true);
  if (start === null || end === null) return `must use times from 00:00 to 23:59 (24:00 as an end)`;
  if (start === end) return `must not start and end at the same time; 00:00-24:00 is the whole day`;
  return { start, end, text: text.trim() };
}

function minutesOf(h: number, m: number, isEnd: boolean): number | null {
  if (m > 59) return null;
  if (h === 24 && m === 0 && isEnd) return 1440;
  if (h > 23) return null;
  return h * 60 + m;
}
