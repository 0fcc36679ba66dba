import type { Database, Statement } from 'better-sqlite3';
import type { NewSoundscape, SoundscapeRecord } from './records.js';

interface SoundscapeRow {
  id: number;
  station_id: number;
  timestamp_ms: number;
  duration: number;
  filesize: number;
  sample_rate: number;
  mode: string;
  file_key: string;
  created_ms: number;
}

function toRecord(row: SoundscapeRow): SoundscapeRecord {
  return {
    id: row.id,
    stationId: row.station_id,
    timestampMs: row.timestamp_ms,
    duration: row.duration,
    filesize: row.filesize,
    sampleRate: row.sample_rate,
    mode: row.mode,
    fileKey: row.file_key,
    createdMs: row.created_ms,
  };
}

export interface SoundscapeFilter {
  stationId: number;
  fromMs?: number;
  toMs?: number;
  /** Only soundscapes with at least one detection of this species. */
  speciesId?: number;
}

export class SoundscapeStore {
  private readonly byIdStmt: Statement<[number], SoundscapeRow>;
  private readonly byFileKeyStmt: Statement<[string], SoundscapeRow>;

  constructor(private readonly db: Database) {
    this.byIdStmt = db.prepare('SELECT * FROM soundscapes WHERE id = ?');
    this.byFileKeyStmt = db.prepare('SELECT * FROM soundscapes WHERE file_key = ?');
  }

  byId(id: number): SoundscapeRecord | undefined {
    const row = this.byIdStmt.get(id);
    return row && toRecord(row);
  }

  byFileKey(fileKey: string): SoundscapeRecord | undefined {
    const row = this.byFileKeyStmt.get(fileKey);
    return row && toRecord(row);
  }

  insert(soundscape: NewSoundscape, nowMs: number): SoundscapeRecord {
    const result = this.db
      .prepare(
        `INSERT INTO soundscapes (station_id, timestamp_ms, duration, filesize, sample_rate, mode, file_key, created_ms)
         VALUES (@stationId, @timestampMs, @duration, @filesize, @sampleRate, @mode, @fileKey, @createdMs)`,
      )
      .run({ ...soundscape, createdMs: nowMs });
    return this.byId(Number(result.lastInsertRowid))!;
  }

  /** Removes a soundscape no detection references (the `lose-soundscape` lie). */
  delete(id: number): void {
    this.db.prepare('DELETE FROM soundscapes WHERE id = ?').run(id);
  }

  /** Changes what is said of a stored soundscape (the `alter-*` lies). */
  alter(id: number, change: { filesize?: number; duration?: number }): void {
    this.db
      .prepare('UPDATE soundscapes SET filesize = COALESCE(@filesize, filesize), duration = COALESCE(@duration, duration) WHERE id = @id')
      .run({ id, filesize: change.filesize ?? null, duration: change.duration ?? null });
  }

  /**
   * One page of a station's soundscapes, newest first (ties by id). An unknown
   * cursor (not a soundscape of this station) yields an empty page.
   */
  list(filter: SoundscapeFilter, page: { limit: number; cursor?: number }): SoundscapeRecord[] {
    const clauses = ['c.station_id = @stationId'];
    const params: Record<string, unknown> = { stationId: filter.stationId, limit: page.limit };
    if (filter.fromMs !== undefined) {
      clauses.push('c.timestamp_ms >= @fromMs');
      params.fromMs = filter.fromMs;
    }
    if (filter.toMs !== undefined) {
      clauses.push('c.timestamp_ms <= @toMs');
      params.toMs = filter.toMs;
    }
    if (filter.speciesId !== undefined) {
      clauses.push('EXISTS (SELECT 1 FROM detections d WHERE d.soundscape_id = c.id AND d.species_id = @speciesId)');
      params.speciesId = filter.speciesId;
    }
    if (page.cursor !== undefined) {
      const cursor = this.byId(page.cursor);
      if (!cursor || cursor.stationId !== filter.stationId) return [];
      clauses.push('(c.timestamp_ms < @cursorMs OR (c.timestamp_ms = @cursorMs AND c.id < @cursorId))');
      params.cursorMs = cursor.timestampMs;
      params.cursorId = cursor.id;
    }
    return this.db
      .prepare<[Record<string, unknown>], SoundscapeRow>(
        `SELECT c.* FROM soundscapes c WHERE ${clauses.join(' AND ')}
         ORDER BY c.timestamp_ms DESC, c.id DESC LIMIT @limit`,
      )
      .all(params)
      .map(toRecord);
  }
}
