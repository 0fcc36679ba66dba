import { CONFIG_RANGES } from '../../../src/wire/types.js';
import { EmulatorHttpError } from '../http-errors.js';
import type { StationConfigChange } from '../store/index.js';
import { BodyReader } from './fields.js';

const BOOLEANS: Record<string, boolean> = { true: true, '1': true, false: false, '0': false };

/**
 * Validates a config update. Every field is optional; a value of the wrong type or
 * outside its documented range rejects the whole update with the service's bare
 * 422 `{success: false}` (no errors object), and nothing is changed.
 */
export function readConfigInput(body: Record<string, unknown>): StationConfigChange {
  const input = new BodyReader(body);
  const change: StationConfigChange = {};
  if (input.has('name')) {
    const value = body.name;
    if (typeof value === 'string' && value.trim() !== '') change.name = value.trim();
    else input.add('name', 'is invalid');
  } else if (typeof body.name === 'string') {
    input.add('name', "can't be blank");
  }
  if (input.has('locationPrivacy')) {
    const value = body.locationPrivacy;
    const flag = typeof value === 'boolean' ? value : typeof value === 'number' || typeof value === 'string' ? BOOLEANS[String(value).trim().toLowerCase()] : undefined;
    if (flag === undefined) input.add('locationPrivacy', 'is invalid');
    else change.locationPrivacy = flag;
  }
  for (const field of Object.keys(CONFIG_RANGES) as (keyof typeof CONFIG_RANGES)[]) {
    const [min, max] = CONFIG_RANGES[field];
    const value = input.number(field, { min, max });
    if (value !== undefined) change[field] = value;
  }
  if (input.failed) throw new EmulatorHttpError(422, { success: false });
  return change;
}
