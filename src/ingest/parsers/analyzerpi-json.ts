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
import { resolveSpecies } from '../labels.js';
import type { ParseContext, ParsedDetection, ParsedResultFile, RowError } from '../types.js';
import { detectionEntries, readJson } from './json-common.js';
import { ShapeCheck } from './json-shape.js';
import { baseNameAnyOs, rowError } from './text.js';

/** Length of the analyzer's segments: a detection ends this long after its start. */
export const ANALYZERPI_SEGMENT_SEC = 3;

export function parse(text: string, ctx: ParseContext): ParsedResultFile {
  const check = new ShapeCheck();
  const doc = check.object(readJson(text, ctx, 'an analyzerpi result'));
  const timestamp = doc && check.dateTimeWithOffset(doc, 'timestamp');
  const fileName = doc && check.text(doc, 'file_name');
  if (doc) check.number(doc, 'delay', { optional: true });
  const entries = doc && check.array(doc, 'detections');
  const detections: ParsedDetection[] = [];
  const errors: RowError[] = [];
  detectionEntries(text, ctx, check, entries, 'analyzerpi result').forEach(({ entry, line }, i) => {
    const row = new ShapeCheck(['detections', i]);
    const d = row.object(entry);
    const start = d && row.number(d, 'start', { min: 0 });
    const commonName = d && row.name(d, 'common_name');
    const confidence = d && row.number(d, 'confidence', { min: 0, max: 1 });
    if (start === undefined || commonName === undefined || confidence === undefined) {
      for (const issue of row.problems) errors.push(rowError(ctx, line, issue.path, issue.message));
      return;
    }
    const resolved = resolveSpecies({ commonName }, ctx.labels);
    if (!resolved.ok) {
      errors.push(rowError(ctx, line, `detections[${i}].common_name`, resolved.problem));
      return;
    }
    detections.push({ startSec: start, endSec: start + ANALYZERPI_SEGMENT_SEC, confidence, line, ...resolved.species });
  });
  const result: ParsedResultFile = { format: 'analyzerpi-json', detections, errors };
  if (timestamp !== undefined) result.recordingStart = timestamp;
  const named = fileName ? baseNameAnyOs(fileName) : '';
  if (named !== '') result.audioFileName = named.replace(/\.json$/i, '');
  return result;
}
