import type { StationConfigRecord } from '../../wire/types.js';
import { ConfigError, loadConfig, redactConfig, validateStationSettings, type LoadedConfig } from '../../config/index.js';
import { readStation } from '../../status/report.js';
import { queueExists } from '../../status/queue-file.js';
import { EXIT } from '../../errors.js';
import { createOutput } from '../format/output.js';
import { renderFields } from '../format/table.js';
import { createCliClient } from './support/client.js';
import { openExistingQueue } from './support/context.js';

export interface ConfigFlags {
  config?: string;
  json?: boolean;
  live?: boolean;
}

/** The actions of `station-agent config ...`, loaded only when one runs. */

export async function validateAction(flags: ConfigFlags): Promise<void> {
  const out = createOutput();
  let loaded: LoadedConfig;
  try {
    // Validates every time, whatever the cache holds.
    loaded = await loadConfig({ path: flags.config, cache: false });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    if (flags.json) {
      out.json({ valid: false, file: err.file, problems: err.problems, warnings: [], error: { code: err.code, message: err.message } });
    } else {
      out.note(`${out.errStyle.red('invalid')} configuration (${err.file ?? 'no config file'}):`);
      for (const p of err.problems) out.note(`  ${p}`);
    }
    process.exitCode = EXIT.CONFIG;
    return;
  }
  const warnings = [...loaded.warnings, ...(await unknownNameWarnings(loaded))];
  if (flags.json) {
    out.json({ valid: true, file: loaded.path, problems: [], warnings, tokenSource: loaded.tokenSource });
    return;
  }
  for (const w of warnings) out.warn(w);
  out.line(`${out.style.green('valid')}: ${loaded.path ?? 'no config file; defaults and environment'}`);
}

/** Class and species names in the config that the configured labels file does not know (nothing without `input.labels`). */
async function unknownNameWarnings(loaded: LoadedConfig): Promise<string[]> {
  const { input } = loaded.config;
  if (!input.labels) return [];
  const [{ Labels }, { describeUnknownName, unknownConfigNames }] = await Promise.all([import('../../ingest/labels.js'), import('../../policy/name-check.js')]);
  let labels;
  try {
    labels = await Labels.load(input.labels, input.localizedLabels ?? undefined);
  } catch (err) {
    return [`input.labels: ${(err as Error).message}`];
  }
  return unknownConfigNames(loaded.config, labels).map(describeUnknownName);
}

export async function showAction(flags: ConfigFlags): Promise<void> {
  const out = createOutput();
  const loaded = await loadConfig({ path: flags.config });
  const station = flags.live ? await liveStation(loaded) : await storedStation(loaded);
  const document = {
    file: loaded.path,
    tokenSource: loaded.tokenSource,
    warnings: loaded.warnings,
    config: redactConfig(loaded.config),
    station,
  };
  if (flags.json) {
    out.json(document);
    return;
  }
  for (const w of loaded.warnings) out.warn(w);
  out.line(out.style.bold(`# effective configuration (${loaded.path ?? 'no config file'}; token from ${loaded.tokenSource ?? 'nowhere'})`));
  out.line(JSON.stringify(document.config, null, 2));
  out.line();
  if (!station) {
    out.line(out.style.bold('# station record: none stored yet (the daemon stores it at its first config sync; or use --live)'));
    return;
  }
  out.line(out.style.bold(`# station record (${station.source === 'live' ? 'live from the service' : `stored at the last config sync, ${station.syncedAt ?? 'time unknown'}`})`));
  out.lines(recordLines(station.record));
}

export async function pushAction(flags: ConfigFlags): Promise<void> {
  const out = createOutput();
  const loaded = await loadConfig({ path: flags.config });
  const settings = loaded.config.station.settings;
  const problems = validateStationSettings(settings);
  if (problems.length > 0) throw new ConfigError(problems, loaded.path);
  if (Object.keys(settings).length === 0) {
    if (flags.json) out.json({ pushed: false, reason: 'station.settings is empty', settings, station: null });
    else out.note('station.settings is empty: nothing to push (set e.g. station.settings.minConfidence in the config file)');
    return;
  }
  const { client } = await createCliClient(loaded, {});
  let record: StationConfigRecord;
  try {
    record = await client.updateConfig(settings);
  } finally {
    await client.close();
  }
  const stored = await storeRecord(loaded, record);
  if (flags.json) {
    out.json({ pushed: true, settings, station: { source: 'live', record, syncedAt: new Date().toISOString() }, storedInQueue: stored });
    return;
  }
  out.note(`pushed ${Object.keys(settings).join(', ')}`);
  out.lines(recordLines(record));
}

interface StationView {
  source: 'queue' | 'live';
  record: StationConfigRecord;
  syncedAt: string | null;
}

async function storedStation(loaded: LoadedConfig): Promise<StationView | null> {
  if (!queueExists(loaded.config.dataDir)) return null;
  const { getMeta } = await import('../../queue/index.js');
  const q = await openExistingQueue(loaded.config.dataDir);
  try {
    const stored = readStation(getMeta(q, 'station'));
    return stored ? { source: 'queue', ...stored } : null;
  } finally {
    q.close();
  }
}

async function liveStation(loaded: LoadedConfig): Promise<StationView> {
  const { client } = await createCliClient(loaded, {});
  try {
    // The only read of the record: an update without fields changes nothing and returns it.
    const record = await client.updateConfig({});
    return { source: 'live', record, syncedAt: new Date().toISOString() };
  } finally {
    await client.close();
  }
}

/** Keeps the pushed record where `status` and `config show` read it; skipped when there is no queue yet. */
async function storeRecord(loaded: LoadedConfig, record: StationConfigRecord): Promise<boolean> {
  if (!queueExists(loaded.config.dataDir)) return false;
  const { setMeta } = await import('../../queue/index.js');
  const q = await openExistingQueue(loaded.config.dataDir);
  try {
    setMeta(q, 'station', { record, syncedAt: Date.now() });
    return true;
  } finally {
    q.close();
  }
}

function recordLines(r: StationConfigRecord): string[] {
  return renderFields([
    ['id', String(r.id)],
    ['name', r.name],
    ['type', r.type],
    ['timezone', r.timezone ?? '-'],
    ['locationPrivacy', String(r.locationPrivacy)],
    ['minConfidence', String(r.minConfidence)],
    ['minProbability', String(r.minProbability)],
    ['minScore', String(r.minScore)],
    ['minHumanConfidence', String(r.minHumanConfidence)],
    ['latestDetectionAt', r.latestDetectionAt ?? '-'],
    ['latestValidDetectionAt', r.latestValidDetectionAt ?? '-'],
  ]);
}

