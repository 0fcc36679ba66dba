import type { Database, Statement } from 'better-sqlite3';
import type { StationEdition, StationRecord } from './records.js';

interface StationRow {
  id: number;
  token: string;
  name: string;
  type: string;
  edition: string;
  lat: number;
  lon: number;
  timezone: string;
  active: number;
  location_privacy: number;
  min_confidence: number;
  min_probability: number;
  min_score: number;
  min_human_confidence: number;
  created_ms: number;
}

export type NewStation = Omit<StationRecord, 'id' | 'createdMs'> & { id?: number };

/** The fields the config endpoint may change. */
export type StationConfigChange = Partial<
  Pick<StationRecord, 'name' | 'locationPrivacy' | 'minConfidence' | 'minProbability' | 'minScore' | 'minHumanConfidence'>
>;

/** Administrative changes (tests, seeds): everything but the id. */
export type StationChange = Partial<Omit<StationRecord, 'id' | 'createdMs'>>;

const COLUMNS: Record<keyof StationChange, string> = {
  token: 'token',
  name: 'name',
  type: 'type',
  edition: 'edition',
  lat: 'lat',
  lon: 'lon',
  timezone: 'timezone',
  active: 'active',
  locationPrivacy: 'location_privacy',
  minConfidence: 'min_confidence',
  minProbability: 'min_probability',
  minScore: 'min_score',
  minHumanConfidence: 'min_human_confidence',
};

function toRecord(row: StationRow): StationRecord {
  return {
    id: row.id,
    token: row.token,
    name: row.name,
    type: row.type,
    edition: row.edition as StationEdition,
    lat: row.lat,
    lon: row.lon,
    timezone: row.timezone,
    active: row.active === 1,
    locationPrivacy: row.location_privacy === 1,
    minConfidence: row.min_confidence,
    minProbability: row.min_probability,
    minScore: row.min_score,
    minHumanConfidence: row.min_human_confidence,
    createdMs: row.created_ms,
  };
}

function toColumnValue(value: unknown): unknown {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

export class StationStore {
  private readonly byTokenStmt: Statement<[string], StationRow>;
  private readonly byIdStmt: Statement<[number], StationRow>;

  constructor(private readonly db: Database) {
    this.byTokenStmt = db.prepare('SELECT * FROM stations WHERE token = ?');
    this.byIdStmt = db.prepare('SELECT * FROM stations WHERE id = ?');
  }

  byToken(token: string): StationRecord | undefined {
    const row = this.byTokenStmt.get(token);
    return row && toRecord(row);
  }

  byId(id: number): StationRecord | undefined {
    const row = this.byIdStmt.get(id);
    return row && toRecord(row);
  }

  all(): StationRecord[] {
    return this.db.prepare<[], StationRow>('SELECT * FROM stations ORDER BY id').all().map(toRecord);
  }

  insert(station: NewStation, nowMs: number): StationRecord {
    const result = this.db
      .prepare(
        `INSERT INTO stations (id, token, name, type, edition, lat, lon, timezone, active, location_privacy,
           min_confidence, min_probability, min_score, min_human_confidence, created_ms)
         VALUES (@id, @token, @name, @type, @edition, @lat, @lon, @timezone, @active, @locationPrivacy,
           @minConfidence, @minProbability, @minScore, @minHumanConfidence, @createdMs)`,
      )
      .run({
        ...station,
        id: station.id ?? null,
        active: station.active ? 1 : 0,
        locationPrivacy: station.locationPrivacy ? 1 : 0,
        createdMs: nowMs,
      });
    return this.byId(Number(result.lastInsertRowid))!;
  }

  /** Applies a change and returns the updated station (undefined when the id is unknown). */
  update(id: number, change: StationChange): StationRecord | undefined {
    const entries = Object.entries(change).filter(([k, v]) => v !== undefined && k in COLUMNS) as [
      keyof StationChange,
      unknown,
    ][];
    if (entries.length > 0) {
      const sets = entries.map(([key]) => `${COLUMNS[key]} = @${key}`).join(', ');
      const params = Object.fromEntries(entries.map(([key, value]) => [key, toColumnValue(value)]));
      this.db.prepare(`UPDATE stations SET ${sets} WHERE id = @id`).run({ ...params, id });
    }
    return this.byId(id);
  }
}
