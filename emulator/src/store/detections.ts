import type { Database, Statement } from 'better-sqlite3';
import type { BatBehaviorKey, Certainty } from '../../../src/wire/types.js';
import { compileDetectionFilter, type DetectionFilter } from './detection-filter.js';
import type { DetectionRecord, NewDetection, ShortlistItem } from './records.js';

/** A `detections` row as SQLite returns it; also read by the GraphQL queries. */
export interface DetectionRow extends Record<string, unknown> {
  id: number;
  station_id: number;
  species_id: number;
  timestamp_ms: number;
  lat: number;
  lon: number;
  confidence: number;
  probability: number | null;
  score: number;
  certainty: string;
  algorithm: string | null;
  metadata: string | null;
  mode: string;
  soundscape_id: number | null;
  soundscape_start: number | null;
  soundscape_end: number | null;
  behavior_key: string | null;
  behavior_confidence: number | null;
  shortlist: string | null;
  created_ms: number;
}

export function toDetectionRecord(row: DetectionRow): DetectionRecord {
  return {
    id: row.id,
    stationId: row.station_id,
    speciesId: row.species_id,
    timestampMs: row.timestamp_ms,
    lat: row.lat,
    lon: row.lon,
    confidence: row.confidence,
    probability: row.probability,
    score: row.score,
    certainty: row.certainty as Certainty,
    algorithm: row.algorithm,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as unknown),
    mode: row.mode,
    soundscapeId: row.soundscape_id,
    soundscapeStartTime: row.soundscape_start,
    soundscapeEndTime: row.soundscape_end,
    behaviorKey: row.behavior_key as BatBehaviorKey | null,
    behaviorConfidence: row.behavior_confidence,
    shortlist: row.shortlist === null ? null : (JSON.parse(row.shortlist) as ShortlistItem[]),
    createdMs: row.created_ms,
  };
}

/** Listing order of the REST interface: newest first; the id breaks ties so cursors are exact. */
const NEWEST_FIRST = 'ORDER BY d.timestamp_ms DESC, d.id DESC';

export interface DetectionPage {
  limit: number;
  /** Id of the last detection of the previous page: the page starts after it in listing order. */
  cursor?: number;
}

export class DetectionStore {
  private readonly byIdStmt: Statement<[number], DetectionRow>;
  private readonly insertStmt: Statement;

  constructor(private readonly db: Database) {
    this.byIdStmt = db.prepare('SELECT * FROM detections WHERE id = ?');
    this.insertStmt = db.prepare(
      `INSERT INTO detections (station_id, species_id, timestamp_ms, lat, lon, confidence, probability, score,
         certainty, algorithm, metadata, mode, soundscape_id, soundscape_start, soundscape_end, behavior_key,
         behavior_confidence, shortlist, created_ms)
       VALUES (@stationId, @speciesId, @timestampMs, @lat, @lon, @confidence, @probability, @score,
         @certainty, @algorithm, @metadata, @mode, @soundscapeId, @soundscapeStartTime, @soundscapeEndTime,
         @behaviorKey, @behaviorConfidence, @shortlist, @createdMs)`,
    );
  }

  byId(id: number): DetectionRecord | undefined {
    const row = this.byIdStmt.get(id);
    return row && toDetectionRecord(row);
  }

  insert(detection: NewDetection, nowMs: number): DetectionRecord {
    const result = this.insertStmt.run({
      ...detection,
      metadata: detection.metadata === null || detection.metadata === undefined ? null : JSON.stringify(detection.metadata),
      shortlist: detection.shortlist === null ? null : JSON.stringify(detection.shortlist),
      createdMs: nowMs,
    });
    return this.byId(Number(result.lastInsertRowid))!;
  }

  /**
   * One page of the station's detections matching the filter, newest first. An
   * unknown cursor (not a detection of this station) yields an empty page.
   */
  list(filter: DetectionFilter, page: DetectionPage): DetectionRecord[] {
    const { where, params } = compileDetectionFilter(filter);
    let cursorClause = '';
    if (page.cursor !== undefined) {
      const cursor = this.byId(page.cursor);
      if (!cursor || cursor.stationId !== filter.stationId) return [];
      cursorClause = 'AND (d.timestamp_ms < @cursorMs OR (d.timestamp_ms = @cursorMs AND d.id < @cursorId))';
      params.cursorMs = cursor.timestampMs;
      params.cursorId = cursor.id;
    }
    return this.db
      .prepare<[Record<string, unknown>], DetectionRow>(
        `SELECT d.* FROM detections d JOIN species s ON s.id = d.species_id
         WHERE ${where} ${cursorClause} ${NEWEST_FIRST} LIMIT @limit`,
      )
      .all({ ...params, limit: page.limit })
      .map(toDetectionRecord);
  }

  /** Removes a detection (the `lose-detection` lie). */
  delete(id: number): void {
    this.db.prepare('DELETE FROM detections WHERE id = ?').run(id);
  }

  /** The detections of a soundscape in the order they occur in it. */
  bySoundscape(soundscapeId: number): DetectionRecord[] {
    return this.db
      .prepare<[number], DetectionRow>(
        `SELECT * FROM detections WHERE soundscape_id = ?
         ORDER BY timestamp_ms, soundscape_start, id`,
      )
      .all(soundscapeId)
      .map(toDetectionRecord);
  }

  /** Most recent detection time of a station, optionally only detections meeting the given minimums. */
  latestTimestamp(
    stationId: number,
    minimums?: { confidence: number; probability: number; score: number },
  ): number | null {
    const row = minimums
      ? this.db
          .prepare<[number, number, number, number], { t: number | null }>(
            `SELECT MAX(timestamp_ms) AS t FROM detections
             WHERE station_id = ? AND confidence >= ? AND COALESCE(probability, 0) >= ? AND score >= ?`,
          )
          .get(stationId, minimums.confidence, minimums.probability, minimums.score)
      : this.db
          .prepare<[number], { t: number | null }>('SELECT MAX(timestamp_ms) AS t FROM detections WHERE station_id = ?')
          .get(stationId);
    return row?.t ?? null;
  }
}
