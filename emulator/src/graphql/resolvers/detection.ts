import type { DetectionRecord } from '../../store/index.js';
import { soundscapeUrl } from '../../present/soundscape.js';
import { formatTimestamp } from '../../time.js';
import type { GqlContext } from '../context.js';
import { publicCoords } from '../geo.js';
import { encodeId } from '../ids.js';
import { none, type TypeResolvers } from './types.js';
import type { SoundscapeView } from './views.js';

function zoneOf(ctx: GqlContext, stationId: number): string {
  return ctx.station(stationId)?.timezone ?? 'UTC';
}

function coordsOf(d: DetectionRecord, ctx: GqlContext): { lat: number; lon: number } {
  return publicCoords(d.lat, d.lon, ctx.station(d.stationId)?.locationPrivacy ?? false);
}

function speciesOf(d: DetectionRecord, ctx: GqlContext) {
  const species = ctx.species(d.speciesId);
  if (!species) throw new Error(`detection ${d.id} refers to unknown species ${d.speciesId}`);
  return species;
}

/**
 * Pages of the service for people (favourite, flag, vote). The local service does not
 * serve them; the URLs have the shape of its own base URL so clients can show them.
 */
function pageUrl(ctx: GqlContext, d: DetectionRecord, action: string): string {
  return `${ctx.baseUrl}/detections/${d.id}/${action}`;
}

export const detectionResolvers: TypeResolvers<DetectionRecord> = {
  id: (d) => encodeId('Detection', d.id),
  speciesId: (d) => encodeId('Species', d.speciesId),
  coords: (d, _args, ctx) => coordsOf(d, ctx),
  eclipse: none,
  favoriteUrl: (d, _args, ctx) => pageUrl(ctx, d, 'favorite'),
  flagUrl: (d, _args, ctx) => pageUrl(ctx, d, 'flag'),
  voteUrl: (d, _args, ctx) => pageUrl(ctx, d, 'vote'),
  soundscape: (d, _args, ctx): SoundscapeView | null => {
    const soundscape = d.soundscapeId === null ? undefined : ctx.soundscape(d.soundscapeId);
    if (!soundscape) return null;
    return {
      soundscape,
      startTime: d.soundscapeStartTime ?? 0,
      endTime: d.soundscapeEndTime ?? soundscape.duration,
    };
  },
  species: (d, _args, ctx) => speciesOf(d, ctx),
  station: (d, _args, ctx) => ctx.station(d.stationId) ?? null,
  timestamp: (d, _args, ctx) => formatTimestamp(d.timestampMs, zoneOf(ctx, d.stationId)),
};

/** Sightings are detections of mobile stations (see the Sighting type's description). */
export const sightingResolvers: TypeResolvers<DetectionRecord> = {
  id: (d) => encodeId('Sighting', d.id),
  speciesId: (d) => encodeId('Species', d.speciesId),
  coords: (d, _args, ctx) => coordsOf(d, ctx),
  species: (d, _args, ctx) => speciesOf(d, ctx),
  timestamp: (d, _args, ctx) => formatTimestamp(d.timestampMs, zoneOf(ctx, d.stationId)),
};

export const soundscapeResolvers: TypeResolvers<SoundscapeView> = {
  id: (v) => encodeId('Soundscape', v.soundscape.id),
  downloadFilename: (v) => `soundscape-${v.soundscape.id}.flac`,
  duration: (v) => v.soundscape.duration,
  filesize: (v) => v.soundscape.filesize,
  mode: (v) => v.soundscape.mode,
  station: (v, _args, ctx) => ctx.station(v.soundscape.stationId) ?? null,
  timestamp: (v, _args, ctx) => formatTimestamp(v.soundscape.timestampMs, zoneOf(ctx, v.soundscape.stationId)),
  url: (v, _args, ctx) => soundscapeUrl(v.soundscape, ctx.emulator.mediaUrl),
};
