import type { Config, MqttConfig } from '../config/index.js';

/**
 * The station's topics (docs/MQTT.md): everything lives under
 * `<mqtt.topicPrefix>/<mqtt.clientId>`.
 *
 * | topic | retained | payload |
 * |---|---|---|
 * | `<base>/status` | always | `online` / `offline` (the last will) |
 * | `<base>/state` | `retain: state` or `all` | {@link StatePayload} |
 * | `<base>/detection` | `retain: all` | {@link DetectionPayload}, one per detection as it is queued |
 * | `<base>/detection/update` | `retain: all` | {@link DetectionUpdatePayload}, once uploaded (or dropped) |
 * | `<base>/doctor` | never | a test message from `station-agent doctor` |
 */
export interface StationTopics {
  base: string;
  status: string;
  state: string;
  detection: string;
  detectionUpdate: string;
  doctor: string;
}

export const ONLINE = 'online';
export const OFFLINE = 'offline';

export function stationTopics(mqtt: Pick<MqttConfig, 'topicPrefix' | 'clientId'>): StationTopics {
  const base = `${mqtt.topicPrefix}/${mqtt.clientId}`;
  return {
    base,
    status: `${base}/status`,
    state: `${base}/state`,
    detection: `${base}/detection`,
    detectionUpdate: `${base}/detection/update`,
    doctor: `${base}/doctor`,
  };
}

/** Whether the broker keeps a message of this kind for new subscribers. */
export function retainFor(mqtt: Pick<MqttConfig, 'retain'>, kind: 'state' | 'detection'): boolean {
  if (mqtt.retain === 'all') return true;
  return mqtt.retain === 'state' && kind === 'state';
}

/** Who sent a message: the station as configured. */
export interface StationRef {
  id: string;
  name: string | null;
  latitude: number;
  longitude: number;
}

export function stationRef(config: Config): StationRef {
  return {
    id: config.mqtt.clientId,
    name: config.station.settings.name ?? null,
    latitude: config.station.latitude,
    longitude: config.station.longitude,
  };
}

/** `<base>/detection`: one detection, as soon as it is queued. */
export interface DetectionPayload {
  event: 'detected';
  /** The detection's id in the station's queue (`station-agent queue show d<id>`). */
  id: number;
  species: string;
  scientificName: string;
  confidence: number;
  /** When the bird called: ISO 8601 with the station's offset. */
  timestamp: string;
  /** Seconds from the start of the recording. */
  startS: number;
  endS: number;
  station: StationRef;
  /** When the agent queued it (ISO 8601, UTC). */
  queuedAt: string;
}

/** `<base>/detection/update`: the service's ids once the detection is uploaded (or that it never will be). */
export interface DetectionUpdatePayload {
  event: 'uploaded' | 'dropped';
  id: number;
  /** The service's id of the detection; null when dropped. */
  detectionId: number | null;
  /** The service's id of the soundscape it was posted with; null without one. */
  soundscapeId: number | null;
  species: string;
  scientificName: string;
  timestamp: string;
  station: StationRef;
  /** When the queue recorded the outcome (ISO 8601, UTC). */
  at: string;
}

/** `<base>/state`: the counters Home Assistant's sensors read. */
export interface StatePayload {
  at: string;
  queue: {
    /** Detections and soundscapes waiting to be uploaded (pending, sending, unknown). */
    waiting: number;
    detectionsWaiting: number;
    soundscapesWaiting: number;
    failed: number;
  };
  uploadsPaused: boolean;
  /** Why uploads are paused (`token`, `clock`, `circuit`, ...), with the reason's message. */
  pausedReasons: { reason: string; message: string }[];
  lastUploadAt: string | null;
  /** Detections published today (the station's time zone), by the time they were heard. */
  detectionsToday: number;
  speciesToday: Record<string, number>;
  lastSpecies: string | null;
  lastScientificName: string | null;
  lastDetectionAt: string | null;
  /** Detection messages the broker has not received yet. */
  mqttPending: number;
  /**
   * The last delivery audit found items missing, altered or foreign at the service (the
   * `delivery-mismatch` alert's condition, docs/OPERATOR.md "Verified delivery"); false
   * before the first audit and after a clean one.
   */
  deliveryMismatch: boolean;
  /** The last delivery audit's totals (`station-agent audit` lists the items); null before the first. */
  delivery: { auditedAt: string; from: string; to: string; missing: number; altered: number; foreign: number; requeued: number } | null;
}
