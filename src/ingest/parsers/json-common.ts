/** What the two JSON formats share: reading the text and naming zod issues by JSON path. */
import type { z } from 'zod';
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

/** `detections[2].confidence` from a zod path (with an optional prefix). */
export function jsonPath(path: readonly PropertyKey[], prefix: readonly PropertyKey[] = []): string {
  let out = '';
  for (const part of [...prefix, ...path]) {
    out += typeof part === 'number' ? `[${part}]` : `${out === '' ? '' : '.'}${String(part)}`;
  }
  return out === '' ? '(root)' : out;
}

/** Each zod issue as `path: message`. */
export function describeIssues(error: z.ZodError, prefix: readonly PropertyKey[] = []): { path: string; message: string }[] {
  return error.issues.map((issue) => ({ path: jsonPath(issue.path, prefix), message: issue.message }));
}
