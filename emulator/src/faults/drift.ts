/**
 * The `drift` fault: a successful JSON answer reshaped the way the real service's
 * answers have drifted over time (docs/EMULATOR.md, "Fault injection"). The meaning
 * stays the same, so a client that reads by meaning keeps working:
 *
 * - every integer `id`, `stationId`, `soundscapeId` and `speciesId` becomes a string
 *   of digits (some serializers send ids beyond 2^31 that way);
 * - `duration` becomes a float (`15.0`) or a numeric string (`"15"`), by turns;
 * - every object gains unknown fields: `extension: null` and `revision: 2`;
 * - a 201 answer loses its `success` field.
 */

const ID_FIELDS = new Set(['id', 'stationId', 'soundscapeId', 'speciesId']);
/** A marker for a number that must be written with a decimal point (JSON.stringify writes 15.0 as 15). */
const FLOAT_MARK = '@@drift-float@@';

export type DurationForm = 'float' | 'string';

function reshape(value: unknown, duration: DurationForm): unknown {
  if (Array.isArray(value)) return value.map((item) => reshape(item, duration));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (ID_FIELDS.has(key) && Number.isInteger(field)) out[key] = String(field);
    else if (key === 'duration' && typeof field === 'number') out[key] = duration === 'float' ? `${FLOAT_MARK}${field}` : String(field);
    else out[key] = reshape(field, duration);
  }
  out.extension = null;
  out.revision = 2;
  return out;
}

/** The drifted form of a JSON body (a text that is not JSON is returned unchanged). */
export function driftBody(payload: string, status: number, duration: DurationForm): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return payload;
  }
  const drifted = reshape(parsed, duration) as Record<string, unknown>;
  if (status === 201 && drifted && typeof drifted === 'object' && !Array.isArray(drifted)) delete drifted.success;
  return JSON.stringify(drifted).replace(new RegExp(`"${FLOAT_MARK}(-?\\d+)(\\.\\d+)?"`, 'g'), (_m, whole: string, fraction?: string) => `${whole}${fraction ?? '.0'}`);
}
