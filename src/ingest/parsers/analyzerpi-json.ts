/**
 * The analyzerpi's per-recording JSON, `<wav name>.json` (e.g.
 * `2024-02-24-birdnet-16:19:37.wav.json`), written next to its WAV:
 *
 *   {"file_name": "2024-02-24-birdnet-16:19:37.wav.json", "timestamp": "2024-02-24T16:19:37+01:00",
 *    "delay": 15, "detections": [{"start": 0.0, "common_name": "Eurasian Magpie", "confidence": 0.912}]}
 *
 * Only the common name is given (in the analyzerpi's display language), so scientific names
 * come from the labels. Each detection covers the analyzer's 3 s segment from `start`. The
 * analyzerpi names the JSON file itself in `file_name`; the audio file is that name without
 * `.json`. Extra fields are tolerated.
 */
import { z } from 'zod';
import { ResultFileError } from '../errors.js';
import { resolveSpecies } from '../labels.js';
import type { ParseContext, ParsedDetection, ParsedResultFile, RowError } from '../types.js';
import { describeIssues, readJson } from './json-common.js';
import { arrayElementLines } from './json-lines.js';
import { baseNameAnyOs, rowError } from './text.js';

/** Length of the analyzer's segments: a detection ends this long after its start. */
export const ANALYZERPI_SEGMENT_SEC = 3;

const documentSchema = z.looseObject({
  file_name: z.string().optional(),
  timestamp: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with an offset' }).optional(),
  delay: z.number().optional(),
  detections: z.array(z.unknown()),
});

const detectionSchema = z.looseObject({
  start: z.number().min(0),
  common_name: z.string().trim().min(1, 'must not be empty'),
  confidence: z.number().min(0).max(1),
});

export function parse(text: string, ctx: ParseContext): ParsedResultFile {
  const doc = documentSchema.safeParse(readJson(text, ctx, 'an analyzerpi result'));
  if (!doc.success) {
    const problems = describeIssues(doc.error).map((i) => `${i.path}: ${i.message}`);
    throw new ResultFileError(ctx.fileName, `not a valid analyzerpi result: ${problems.join('; ')}`);
  }
  const lines = arrayElementLines(text, 'detections');
  const detections: ParsedDetection[] = [];
  const errors: RowError[] = [];
  doc.data.detections.forEach((entry, i) => {
    const line = lines[i] ?? 1;
    const parsed = detectionSchema.safeParse(entry);
    if (!parsed.success) {
      for (const issue of describeIssues(parsed.error, ['detections', i])) errors.push(rowError(ctx, line, issue.path, issue.message));
      return;
    }
    const d = parsed.data;
    const resolved = resolveSpecies({ commonName: d.common_name }, ctx.labels);
    if (!resolved.ok) {
      errors.push(rowError(ctx, line, `detections[${i}].common_name`, resolved.problem));
      return;
    }
    detections.push({ startSec: d.start, endSec: d.start + ANALYZERPI_SEGMENT_SEC, confidence: d.confidence, line, ...resolved.species });
  });
  const result: ParsedResultFile = { format: 'analyzerpi-json', detections, errors };
  if (doc.data.timestamp !== undefined) result.recordingStart = doc.data.timestamp;
  const named = doc.data.file_name ? baseNameAnyOs(doc.data.file_name) : '';
  if (named !== '') result.audioFileName = named.replace(/\.json$/i, '');
  return result;
}
