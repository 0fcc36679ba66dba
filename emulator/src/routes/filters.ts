import { BAT_BEHAVIOR_KEYS, CLASSIFICATIONS, REST_PERIODS, SOUNDSCAPE_MODES } from '../../../src/wire/types.js';
import type { ParamReader } from '../params.js';
import type { DetectionFilter, StationRecord } from '../store/index.js';
import { periodStart } from '../time.js';

/** How a listing takes its time window. */
export type TimeWindow =
  /** `from`/`to` only (detections, soundscapes). */
  | 'range'
  /** `period` (default day), overridden by `since` (stats). */
  | 'period-since'
  /** `period` (default day), overridden by any of `from`, `to`, `since` (alias of from) (station species). */
  | 'period-range';

/**
 * Reads the filters the station listings share: time window, `speciesId`, `query`
 * (ignored when `speciesId` is given; `locale` is accepted, the catalog holds one
 * language), `mode`, `classification` and, for detections, `behavior`
 * (`bat_approach` also matches `bat_chase`).
 */
export function readDetectionFilter(
  q: ParamReader,
  station: StationRecord,
  window: TimeWindow,
  nowMs: number,
  options: { behavior?: boolean; species?: boolean } = {},
): DetectionFilter {
  const filter: DetectionFilter = { stationId: station.id };
  const zone = station.timezone;
  if (window === 'range') {
    filter.fromMs = q.time('from', zone, 'from');
    filter.toMs = q.time('to', zone, 'to');
  } else {
    const period = q.oneOf('period', REST_PERIODS, 'day');
    const since = q.time('since', zone, 'from');
    if (window === 'period-since') {
      filter.fromMs = since ?? periodStart(period, nowMs, zone);
    } else {
      const from = q.time('from', zone, 'from') ?? since;
      const to = q.time('to', zone, 'to');
      if (from === undefined && to === undefined) filter.fromMs = periodStart(period, nowMs, zone);
      else Object.assign(filter, { fromMs: from, toMs: to });
    }
  }
  if (options.species !== false) {
    filter.speciesId = q.integer('speciesId');
    filter.query = q.string('query');
    q.string('locale');
  }
  const mode = q.oneOf('mode', SOUNDSCAPE_MODES);
  if (mode) filter.modes = [mode];
  filter.classifications = q.enumList('classification', CLASSIFICATIONS);
  if (options.behavior) {
    const keys = q.enumList('behavior', BAT_BEHAVIOR_KEYS);
    if (keys?.includes('bat_approach') && !keys.includes('bat_chase')) keys.push('bat_chase');
    filter.behaviorKeys = keys;
  }
  return filter;
}
