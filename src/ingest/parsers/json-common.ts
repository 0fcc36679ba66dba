/** What the two JSON formats share: reading the text (json-shape.ts checks what it holds). */
import { ResultFileError } from '../errors.js';
import type { ParseContext } from '../types.js';
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
