import type Database from 'better-sqlite3';
import { QueueError } from './errors.js';

/**
 * The queue's schema, as an ordered list of migrations. The database's
 * `user_version` pragma is the number of migrations applied. Each migration runs
 * in its own IMMEDIATE transaction together with the `user_version` bump, so a crash
 * leaves the schema at a whole version, and two processes opening a fresh file at
 * once (daemon and CLI) do not both apply it: the second re-reads the version
 * inside its transaction and finds nothing to do.
 *
 * Append only: never edit a released migration, add the next one.
 */
export interface Migration {
  version: number;
  name: string;
  up: (db: Database.Database) => void;
}

const STATES = `'pending', 'sending', 'unknown', 'uploaded', 'failed', 'dropped'`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'recordings, detections, meta',
    up: (db) =>
      db.exec(`
        CREATE TABLE recordings (
          id              INTEGER PRIMARY KEY,
          source_key      TEXT NOT NULL UNIQUE,
          source_path     TEXT NOT NULL,
          spool_path      TEXT,
          audio_format    TEXT CHECK (audio_format IN ('wav', 'flac')),
          timestamp       TEXT NOT NULL,
          time_source     TEXT NOT NULL CHECK (time_source IN ('sidecar', 'filename', 'metadata', 'mtime')),
          duration_s      REAL,
          sample_rate     INTEGER,
          filesize        INTEGER,
          state           TEXT NOT NULL CHECK (state IN (${STATES})),
          attempts        INTEGER NOT NULL DEFAULT 0,
          next_attempt_at INTEGER NOT NULL,
          last_error      TEXT,
          last_error_code TEXT,
          remote_id       INTEGER,
          hold_reason     TEXT,
          reconcile       INTEGER NOT NULL DEFAULT 0,
          created_at      INTEGER NOT NULL,
          updated_at      INTEGER NOT NULL
        );
        -- Claims (state, due time, in order), and counts by state (covering).
        CREATE INDEX recordings_due ON recordings (state, next_attempt_at);
        CREATE INDEX recordings_remote_id ON recordings (remote_id) WHERE remote_id IS NOT NULL;
        -- Only what is in the spool: retention and spool usage never scan the history.
        CREATE INDEX recordings_spool ON recordings (updated_at) WHERE spool_path IS NOT NULL;
        -- Only what still waits: the oldest waiting item without scanning a backlog.
        CREATE INDEX recordings_waiting ON recordings (created_at) WHERE state IN ('pending', 'sending', 'unknown');

        CREATE TABLE detections (
          id              INTEGER PRIMARY KEY,
          recording_id    INTEGER REFERENCES recordings (id),
          dedupe_key      TEXT NOT NULL UNIQUE,
          timestamp       TEXT NOT NULL,
          start_s         REAL NOT NULL,
          end_s           REAL NOT NULL,
          scientific_name TEXT NOT NULL,
          common_name     TEXT NOT NULL,
          confidence      REAL NOT NULL,
          lat             REAL,
          lon             REAL,
          state           TEXT NOT NULL CHECK (state IN (${STATES})),
          attempts        INTEGER NOT NULL DEFAULT 0,
          next_attempt_at INTEGER NOT NULL,
          last_error      TEXT,
          last_error_code TEXT,
          remote_id       INTEGER,
          hold_reason     TEXT,
          reconcile       INTEGER NOT NULL DEFAULT 0,
          created_at      INTEGER NOT NULL,
          updated_at      INTEGER NOT NULL
        );
        CREATE INDEX detections_due ON detections (state, next_attempt_at);
        CREATE INDEX detections_recording ON detections (recording_id);
        CREATE INDEX detections_remote_id ON detections (remote_id) WHERE remote_id IS NOT NULL;
        CREATE INDEX detections_waiting ON detections (created_at) WHERE state IN ('pending', 'sending', 'unknown');

        CREATE TABLE meta (
          key        TEXT PRIMARY KEY,
          value      TEXT NOT NULL,
          updated_at INTEGER NOT NULL
        ) WITHOUT ROWID;
      `),
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Applies the migrations the database lacks. Returns the versions applied. */
export function migrate(db: Database.Database, dbPath: string, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const latest = migrations.length;
  const current = userVersion(db);
  if (current > latest) {
    throw new QueueError(
      'ERR_QUEUE',
      `queue database ${dbPath} has schema version ${current}, newer than this agent knows (${latest}); upgrade station-agent`,
    );
  }
  const applied: number[] = [];
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      // Another process may have applied it since we looked.
      if (userVersion(db) >= migration.version) return;
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
      applied.push(migration.version);
    }).immediate();
  }
  return applied;
}

function userVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}
