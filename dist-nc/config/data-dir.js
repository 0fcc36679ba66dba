export const DEFAULT_DATA_DIR = '/var/lib/station-agent';
