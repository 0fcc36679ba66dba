import type { Database } from 'better-sqlite3';

/**
 * The local service's tables. Times are UTC epoch milliseconds (`*_ms`); they are
 * rendered in the station's time zone only when a response is written.
 *
 * Ids: each table counts up from its own base (`idOffset` + the table's stride,
 * see ID_STRIDES), so a client that confuses a soundscape id with a detection id
 * gets a 422/404 instead of silently hitting the wrong row, and every id is above
 * 2^31 by default (clients must not squeeze ids into 32-bit integers).
 */
export const SCHEMA_VERSION = 1;

export const ID_STRIDES = {
  stations: 0,
  species: 10_000_000,
  soundscapes: 100_000_000,
  detections: 200_000_000,
} as const;

export type IdTable = keyof typeof ID_STRIDES;

const DDL = `
CREATE TABLE IF NOT EXISTS stations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  token TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  edition TEXT NOT NULL,
  lat REAL NOT NULL,
  lon REAL NOT NULL,
  timezone TEXT NOT NULL,
  active INTEGER NOT NULL,
  location_privacy INTEGER NOT NULL,
  min_confidence REAL NOT NULL,
  min_probability REAL NOT NULL,
  min_score REAL NOT NULL,
  min_human_confidence REAL NOT NULL,
  created_ms INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS species (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  scientific_name TEXT NOT NULL,
  common_name TEXT NOT NULL,
  classification TEXT NOT NULL,
  color TEXT NOT NULL,
  alpha TEXT,
  alpha6 TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS species_scientific_name ON species (scientific_name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS species_common_name ON species (common_name COLLATE NOCASE);

CREATE TABLE IF NOT EXISTS soundscapes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  station_id INTEGER NOT NULL REFERENCES stations (id),
  timestamp_ms INTEGER NOT NULL,
  duration INTEGER NOT NULL,
  filesize INTEGER NOT NULL,
  sample_rate INTEGER NOT NULL,
  mode TEXT NOT NULL,
  file_key TEXT NOT NULL,
  created_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS soundscapes_station_time ON soundscapes (station_id, timestamp_ms, id);

CREATE TABLE IF NOT EXISTS detections (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  station_id INTEGER NOT NULL REFERENCES stations (id),
  species_id INTEGER NOT NULL REFERENCES species (id),
  timestamp_ms INTEGER NOT NULL,
  lat REAL NOT NULL,
  lon REAL NOT NULL,
  confidence REAL NOT NULL,
  probability REAL,
  score REAL NOT NULL,
  certainty TEXT NOT NULL,
  algorithm TEXT,
  metadata TEXT,
  mode TEXT NOT NULL,
  soundscape_id INTEGER REFERENCES soundscapes (id),
  soundscape_start REAL,
  soundscape_end REAL,
  behavior_key TEXT,
  behavior_confidence REAL,
  shortlist TEXT,
  created_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS detections_station_time ON detections (station_id, timestamp_ms, id);
CREATE INDEX IF NOT EXISTS detections_station_species_time ON detections (station_id, species_id, timestamp_ms);
CREATE INDEX IF NOT EXISTS detections_soundscape ON detections (soundscape_id);
CREATE INDEX IF NOT EXISTS detections_time ON detections (timestamp_ms, id);
`;

/**
 * Creates the tables on a new database and sets each table's first id. On an
 * existing database (a restart on the same file) it changes nothing: the id
 * sequences continue where they were, whatever `idOffset` is now.
 */
export function applySchema(db: Database, idOffset: number): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    throw new Error(`emulator database schema version ${version} is newer than this program's (${SCHEMA_VERSION})`);
  }
  db.transaction(() => {
    db.exec(DDL);
    const seed = db.prepare(
      `INSERT INTO sqlite_sequence (name, seq)
       SELECT @name, @seq WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = @name)`,
    );
    for (const [table, stride] of Object.entries(ID_STRIDES)) {
      seed.run({ name: table, seq: idOffset + stride - 1 });
    }
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  })();
}
