/** What the two JSON formats share: reading the text (json-shape.ts checks what it holds) and taking its detections. */
import { ResultFileError } from '../errors.js';
import type { ParseContext } from '../types.js';
import { arrayElementLines } from './json-lines.js';
import type { ShapeCheck } from './json-shape.js';
import { stripBom } from './text.js';

/** The parsed JSON; a file that is not JSON is a ResultFileError. */
export function readJson(text: string, ctx: ParseContext, what: string): unknown {
  try {
    return JSON.parse(stripBom(text)) as unknown;
  } catch (err) {
    throw new ResultFileError(ctx.fileName, `expected ${what} (JSON), but it is not valid JSON: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/**
 * The document's `detections`, each with the line it starts on, once the document's own
 * fields checked out; a document with problems is a ResultFileError naming them all.
 */
export function detectionEntries(
  text: string,
  ctx: ParseContext,
  check: ShapeCheck,
  entries: unknown[] | undefined,
  what: string,
): { entry: unknown; line: number }[] {
  if (!entries || check.problems.length > 0) {
    const problems = check.problems.map((i) => `${i.path}: ${i.message}`);
    throw new ResultFileError(ctx.fileName, `not a valid ${what}: ${problems.join('; ')}`);
  }
  const lines = arrayElementLines(text, 'detections');
  return entries.map((entry, i) => ({ entry, line: lines[i] ?? 1 }));
}
