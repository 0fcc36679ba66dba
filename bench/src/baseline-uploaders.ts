import { createReadStream, statSync } from 'node:fs';
import { Agent, request, type Dispatcher } from 'undici';
import type { WorkDetection, WorkRecording } from './workload.js';
import { STATION } from './service-process.js';

/**
 * The drain's two baselines, as small as they can be: no queue, no state, no
 * retries. Each makes exactly the requests the agent makes (one soundscape upload
 * per recording, then its detections carrying the soundscape's id).
 *
 * - `raw`: `concurrency` requests in flight over one keep-alive pool, soundscapes
 *   first (as the agent's uploader does). What the agent's bookkeeping costs is the
 *   difference to the agent.
 * - `sequential`: one request at a time over a new connection each, as analyzers'
 *   built-in uploaders do (a plain HTTP call per detection).
 */
export interface BaselineTarget {
  url: string;
  token: string;
  /** The FLAC every recording uploads. */
  flac: string;
}

export async function drainRaw(target: BaselineTarget, work: WorkRecording[], concurrency: number): Promise<number> {
  const agent = new Agent({ connections: concurrency });
  const size = statSync(target.flac).size;
  const recordings = [...work];
  const detections: { d: WorkDetection; soundscapeId: number }[] = [];
  let recordingsInFlight = 0;
  let sent = 0;
  let wake: (() => void) | null = null;
  const worker = async () => {
    for (;;) {
      const r = recordings.shift();
      if (r) {
        recordingsInFlight++;
        try {
          const id = await uploadSoundscape(agent, target, r, size);
          for (const d of r.detections) detections.push({ d, soundscapeId: id });
        } finally {
          recordingsInFlight--;
          wake?.();
        }
        sent++;
        continue;
      }
      const next = detections.shift();
      if (next) {
        await postDetection(agent, target, next.d, next.soundscapeId);
        sent++;
        continue;
      }
      if (recordingsInFlight === 0) return;
      // A soundscape in flight will add its detections.
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await agent.close();
  }
  return sent;
}

/** One request over a new connection: a fresh dispatcher, closed (with its socket) after the answer. */
export async function onNewConnection<T>(fn: (d: Dispatcher) => Promise<T>): Promise<T> {
  const agent = new Agent({ connections: 1 });
  try {
    return await fn(agent);
  } finally {
    await agent.close();
  }
}

export async function drainSequential(target: BaselineTarget, work: WorkRecording[]): Promise<number> {
  const size = statSync(target.flac).size;
  let sent = 0;
  for (const r of work) {
    const id = await onNewConnection((d) => uploadSoundscape(d, target, r, size));
    sent++;
    for (const det of r.detections) {
      await onNewConnection((d) => postDetection(d, target, det, id));
      sent++;
    }
  }
  return sent;
}

function stationPath(target: BaselineTarget, rest: string): string {
  return `${target.url}/api/v1/stations/${encodeURIComponent(target.token)}${rest}`;
}

export async function uploadSoundscape(d: Dispatcher, target: BaselineTarget, r: WorkRecording, size: number): Promise<number> {
  const res = await request(stationPath(target, `/soundscapes?timestamp=${encodeURIComponent(r.timestamp)}`), {
    method: 'POST',
    dispatcher: d,
    headers: { accept: 'application/json', 'content-type': 'audio/flac', 'content-length': String(size) },
    body: createReadStream(target.flac),
  });
  return createdId(res, 'soundscape');
}

export async function postDetection(d: Dispatcher, target: BaselineTarget, det: WorkDetection, soundscapeId: number): Promise<number> {
  const body = {
    timestamp: det.timestamp,
    commonName: det.commonName,
    scientificName: det.scientificName,
    lat: STATION.lat,
    lon: STATION.lon,
    confidence: det.confidence,
    soundscapeId,
    soundscapeStartTime: det.startS,
    soundscapeEndTime: det.endS,
  };
  const res = await request(stationPath(target, '/detections'), {
    method: 'POST',
    dispatcher: d,
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return createdId(res, 'detection');
}

async function createdId(res: Dispatcher.ResponseData, key: 'soundscape' | 'detection'): Promise<number> {
  const json = (await res.body.json()) as Record<string, { id?: unknown } | undefined>;
  const id = Number(json[key]?.id);
  if (res.statusCode >= 300 || !Number.isSafeInteger(id)) {
    throw new Error(`baseline: ${key} not created: HTTP ${res.statusCode} ${JSON.stringify(json).slice(0, 300)}`);
  }
  return id;
}
