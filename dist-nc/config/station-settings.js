import { formatIssues } from './issues.js';
import { stationSettingsSchema } from './schema.js';
export function validateStationSettings(settings, prefix = ['station', 'settings']) {
    const parsed = stationSettingsSchema.safeParse(settings, { reportInput: true });
    return parsed.success ? [] : formatIssues(parsed.error.issues, { prefix });
}
