/**
 * The agent's own JSON sidecar, `<base>.detections.json`, for analyzers that write neither
 * of the analyzer formats (specified in docs/SIDECAR.md):
 *
 *   { "recordingStart": "2024-05-01T06:00:00.000+02:00",
 *     "detections": [{ "start": 0, "end": 3, "scientificName": "...", "commonName": "...", "confidence": 0.8 }] }
 *
 * The document's shape (an object with a `detections` array, a valid `recordingStart`) is
 * checked first: a failure there is a ResultFileError. Each detection is then checked on its
 * own, so one bad entry is a RowError (naming its JSON path and line) and the rest still count.
 */
import { z } from 'zod';
import { ResultFileError } from '../errors.js';
import { resolveSpecies } from '../labels.js';
import type { ParseContext, ParsedDetection, ParsedResultFile, RowError } from '../types.js';
import { describeIssues, readJson } from './json-common.js';
import { arrayElementLines } from './json-lines.js';
import { rowError } from './text.js';

const name = z.string().trim().min(1, 'must not be empty');

export const sidecarDetectionSchema = z
  .looseObject({
    start: z.number().min(0),
    end: z.number().min(0),
    scientificName: name.optional(),
    commonName: name.optional(),
    confidence: z.number().min(0).max(1),
  })
  .refine((d) => d.end >= d.start, { message: 'end must not be before start', path: ['end'] })
  .refine((d) => d.scientificName !== undefined || d.commonName !== undefined, {
    message: 'needs scientificName or commonName',
    path: ['scientificName'],
  });

export const sidecarDocumentSchema = z.looseObject({
  /** ISO 8601 with offset (`Z` or `+02:00`); a time without offset would be ambiguous. */
  recordingStart: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with an offset' }).optional(),
  /** The analysed audio file's name, when it differs from the sidecar's base name. */
  audioFile: name.optional(),
  detections: z.array(z.unknown()),
});

export function parse(text: string, ctx: ParseContext): ParsedResultFile {
  const doc = sidecarDocumentSchema.safeParse(readJson(text, ctx, 'a detections sidecar'));
  if (!doc.success) {
    const problems = describeIssues(doc.error).map((i) => `${i.path}: ${i.message}`);
    throw new ResultFileError(ctx.fileName, `not a valid detections sidecar: ${problems.join('; ')}`);
  }
  const lines = arrayElementLines(text, 'detections');
  const detections: ParsedDetection[] = [];
  const errors: RowError[] = [];
  doc.data.detections.forEach((entry, i) => {
    const line = lines[i] ?? 1;
    const parsed = sidecarDetectionSchema.safeParse(entry);
    if (!parsed.success) {
      for (const issue of describeIssues(parsed.error, ['detections', i])) {
        errors.push(rowError(ctx, line, issue.path, issue.message));
      }
      return;
    }
    const d = parsed.data;
    const resolved = resolveSpecies(d, ctx.labels);
    if (!resolved.ok) {
      const field = d.scientificName !== undefined ? 'scientificName' : 'commonName';
      errors.push(rowError(ctx, line, `detections[${i}].${field}`, resolved.problem));
      return;
    }
    detections.push({ startSec: d.start, endSec: d.end, confidence: d.confidence, line, ...resolved.species });
  });
  const result: ParsedResultFile = { format: 'sidecar', detections, errors };
  if (doc.data.recordingStart !== undefined) result.recordingStart = doc.data.recordingStart;
  if (doc.data.audioFile !== undefined) result.audioFileName = doc.data.audioFile;
  return result;
}
