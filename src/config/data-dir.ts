/**
 * The default `dataDir`, in a module of its own: the schema declares it, and the loader
 * needs it before the schema is loaded (to find the config cache, cache.ts).
 */
export const DEFAULT_DATA_DIR = '/var/lib/station-agent';
