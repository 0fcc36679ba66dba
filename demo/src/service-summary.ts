import type { ServiceClient } from '../../src/api/index.js';
import type { CertaintyBreakdown, Detection, Soundscape } from '../../src/wire/types.js';

/**
 * What the service holds for the demo station, read back through the REST client
 * (the same one the agent uploads with): its species with detection counts by
 * certainty, its detections and its soundscapes.
 */
export interface ServiceSummary {
  species: { commonName: string; scientificName: string; detections: CertaintyBreakdown }[];
  detections: number;
  /** Every detection, oldest first: species, time, confidence and where in its soundscape it is. */
  detectionItems: { scientificName: string; timestamp: string; confidence: number; certainty: string; soundscape: { startTime: number; endTime: number } | null }[];
  soundscapes: { count: number; totalDurationSec: number; items: { id: number; timestamp: string; durationSec: number }[] };
}

const PAGE = 100;

export async function readServiceSummary(client: ServiceClient): Promise<ServiceSummary> {
  const species: ServiceSummary['species'] = [];
  for (let page = 1; ; page++) {
    const res = await client.listStationSpecies({ period: 'all', limit: PAGE, page, sort: 'top' });
    for (const s of res.species) species.push({ commonName: s.commonName, scientificName: s.scientificName, detections: s.detections });
    if (res.species.length < PAGE) break;
  }
  const soundscapes: Soundscape[] = [];
  for (let cursor: number | undefined; ; ) {
    const res = await client.listSoundscapes({ limit: PAGE, cursor });
    soundscapes.push(...res.soundscapes);
    if (res.soundscapes.length < PAGE) break;
    cursor = res.soundscapes[res.soundscapes.length - 1].id;
  }
  const detections: Detection[] = [];
  for (let cursor: number | undefined; ; ) {
    const res = await client.listDetections({ limit: PAGE, cursor });
    detections.push(...res.detections);
    if (res.detections.length < PAGE) break;
    cursor = res.detections[res.detections.length - 1].id;
  }
  const detectionItems = detections
    .map((d) => ({
      scientificName: d.species.scientificName,
      timestamp: d.timestamp,
      confidence: d.confidence,
      certainty: d.certainty,
      soundscape: d.soundscape ? { startTime: d.soundscape.startTime, endTime: d.soundscape.endTime } : null,
    }))
    .sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp) || a.scientificName.localeCompare(b.scientificName));
  const items = soundscapes
    .map((s) => ({ id: s.id, timestamp: s.timestamp, durationSec: s.duration }))
    .sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
  return {
    species,
    detections: species.reduce((n, s) => n + s.detections.total, 0),
    detectionItems,
    soundscapes: { count: items.length, totalDurationSec: items.reduce((n, s) => n + s.durationSec, 0), items },
  };
}
