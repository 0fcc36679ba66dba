import { formatIssues } from './issues.js';
import { stationSettingsSchema } from './schema.js';

/**
 * The local check of `config push`: the problems the service would reject (ranges of
 * `CONFIG_RANGES`, unknown keys), one line each, e.g.
 * `station.settings.minConfidence must be between 0.35 and 1 (got 0.2)`. Empty when valid.
 */
export function validateStationSettings(settings: unknown, prefix: readonly string[] = ['station', 'settings']): string[] {
  const parsed = stationSettingsSchema.safeParse(settings, { reportInput: true });
  return parsed.success ? [] : formatIssues(parsed.error.issues, { prefix });
}
