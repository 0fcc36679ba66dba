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
import { resolveSpecies } from '../labels.js';
import type { ParseContext, ParsedDetection, ParsedResultFile, RowError } from '../types.js';
import { detectionEntries, readJson } from './json-common.js';
import { ShapeCheck } from './json-shape.js';
import { rowError } from './text.js';

/** One entry of `detections`, checked on its own (docs/SIDECAR.md). */
function checkDetection(entry: unknown, i: number) {
  const row = new ShapeCheck(['detections', i]);
  const d = row.object(entry);
  if (!d) return { problems: row.problems };
  const start = row.number(d, 'start', { min: 0 });
  const end = row.number(d, 'end', { min: 0 });
  const scientificName = row.name(d, 'scientificName', true);
  const commonName = row.name(d, 'commonName', true);
  const confidence = row.number(d, 'confidence', { min: 0, max: 1 });
  if (start !== undefined && end !== undefined && end < start) row.fail(['end'], 'end must not be before start');
  if (scientificName === undefined && commonName === undefined && d.scientificName === undefined && d.commonName === undefined) {
    row.fail(['scientificName'], 'needs scientificName or commonName');
  }
  if (row.problems.length > 0 || start === undefined || end === undefined || confidence === undefined) return { problems: row.problems };
  return { problems: [], detection: { start, end, confidence, scientificName, commonName } };
}

export function parse(text: string, ctx: ParseContext): ParsedResultFile {
  const check = new ShapeCheck();
  const doc = check.object(readJson(text, ctx, 'a detections sidecar'));
  /** ISO 8601 with offset (`Z` or `+02:00`); a time without offset would be ambiguous. */
  const recordingStart = doc && check.dateTimeWithOffset(doc, 'recordingStart');
  /** The analysed audio file's name, when it differs from the sidecar's base name. */
  const audioFile = doc && check.name(doc, 'audioFile', true);
  const entries = doc && check.array(doc, 'detections');
  const detections: ParsedDetection[] = [];
  const errors: RowError[] = [];
  detectionEntries(text, ctx, check, entries, 'detections sidecar').forEach(({ entry, line }, i) => {
    const checked = checkDetection(entry, i);
    if (!checked.detection) {
      for (const issue of checked.problems) errors.push(rowError(ctx, line, issue.path, issue.message));
      return;
    }
    const d = checked.detection;
    const resolved = resolveSpecies(d, ctx.labels);
    if (!resolved.ok) {
      const field = d.scientificName !== undefined ? 'scientificName' : 'commonName';
      errors.push(rowError(ctx, line, `detections[${i}].${field}`, resolved.problem));
      return;
    }
    detections.push({ startSec: d.start, endSec: d.end, confidence: d.confidence, line, ...resolved.species });
  });
  const result: ParsedResultFile = { format: 'sidecar', detections, errors };
  if (recordingStart !== undefined) result.recordingStart = recordingStart;
  if (audioFile !== undefined) result.audioFileName = audioFile;
  return result;
}
