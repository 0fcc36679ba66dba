import type { Soundscape } from '../../../src/wire/types.js';
import type { SoundscapeRecord, StationRecord } from '../store/index.js';
import { formatTimestamp } from '../time.js';

export function soundscapeUrl(soundscape: SoundscapeRecord, mediaUrl: string): string {
  return `${mediaUrl}/soundscapes/${soundscape.fileKey}`;
}

export function presentSoundscape(soundscape: SoundscapeRecord, station: StationRecord, mediaUrl: string): Soundscape {
  return {
    id: soundscape.id,
    stationId: soundscape.stationId,
    duration: soundscape.duration,
    filesize: soundscape.filesize,
    sampleRate: soundscape.sampleRate,
    timestamp: formatTimestamp(soundscape.timestampMs, station.timezone),
    mode: soundscape.mode,
    url: soundscapeUrl(soundscape, mediaUrl),
  };
}
