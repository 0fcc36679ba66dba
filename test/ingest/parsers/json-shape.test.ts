import { describe, expect, it } from 'vitest';
import { ShapeCheck } from '../../../src/ingest/parsers/json-shape.js';

describe('ShapeCheck (the JSON result formats\' field checks)', () => {
  it.each(['2024-02-24T16:19:37+01:00', '2024-02-24T16:19:37.250Z', '2024-02-24T16:19:37+0100', '2024-02-24T16:19-05'])('takes %s as a date-time with an offset', (value) => {
    const check = new ShapeCheck();
    expect(check.dateTimeWithOffset({ t: value }, 't')).toBe(value);
    expect(check.problems).toEqual([]);
  });

  it.each(['2024-02-24T16:19:37', '2024-02-24 16:19:37+01:00', '2024-13-45T16:19:37Z', 'yesterday'])('refuses %s, naming the field', (value) => {
    const check = new ShapeCheck(['doc']);
    expect(check.dateTimeWithOffset({ t: value }, 't')).toBeUndefined();
    expect(check.problems).toEqual([{ path: 'doc.t', message: 'must be an ISO 8601 date-time with an offset' }]);
  });

  it('names each problem by its JSON path and says what came', () => {
    const check = new ShapeCheck(['detections', 2]);
    const row = check.object({ start: '0', confidence: 1.5, name: '  ' })!;
    check.number(row, 'start', { min: 0 });
    check.number(row, 'confidence', { min: 0, max: 1 });
    check.name(row, 'name');
    check.array(row, 'list');
    expect(check.problems).toEqual([
      { path: 'detections[2].start', message: 'must be a number (got a string)' },
      { path: 'detections[2].confidence', message: 'must be at most 1' },
      { path: 'detections[2].name', message: 'must not be empty' },
      { path: 'detections[2].list', message: 'must be an array (got nothing)' },
    ]);
  });
});
