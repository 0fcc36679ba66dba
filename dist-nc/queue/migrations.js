import { QueueError } from './errors.js';
const STATES = `'pending', 'sending', 'unknown', 'uploaded', 'failed', 'dropped'`;
const ITEM_STATE_COLUMNS = `          state           TEXT NOT NULL CHECK (state IN (${STATES})),
          prev_state      TEXT CHECK (prev_state IN (${STATES})),
          attempts        INTEGER NOT NULL DEFAULT 0,
          next_attempt_at INTEGER NOT NULL,
          last_error      TEXT,
          last_error_code TEXT,
          remote_id       INTEGER,
          hold_reason     TEXT,
          reconcile       INTEGER NOT NULL DEFAULT 0,
          created_at      INTEGER NOT NULL,
          updated_at      INTEGER NOT NULL,`;
export const MIGRATIONS = [
    {
        version: 1,
        name: 'recordings, detections, meta',
        up: (db) => db.exec(`
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
${ITEM_STATE_COLUMNS}
          -- 0: no audio, 1: WAV to encode, 2: FLAC to upload. Claims read their own index range,
          -- so recordings that can never be uploaded (no audio) are not scanned by every claim.
          audio_stage     INTEGER GENERATED ALWAYS AS (
                            CASE WHEN spool_path IS NULL THEN 0 WHEN audio_format = 'flac' THEN 2 ELSE 1 END) VIRTUAL,
          -- What the recording's detections wait for (copied to detections.recording_wait by triggers):
          -- 0: nothing (the recording is uploaded, failed or dropped), 1: its upload, 2: its audio.
          detection_wait  INTEGER GENERATED ALWAYS AS (
                            CASE WHEN state IN ('uploaded', 'failed', 'dropped') THEN 0
                                 WHEN spool_path IS NULL THEN 2 ELSE 1 END) VIRTUAL
        );
        -- Claims (state, stage, due time, in order), and counts by state (covering).
        CREATE INDEX recordings_due ON recordings (state, audio_stage, next_attempt_at);
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
${ITEM_STATE_COLUMNS}
          -- The recording's detection_wait: set by the INSERT (enqueue.ts), kept by the trigger
          -- below. A claim reads only the index range of detections that may go, however many
          -- wait for their recordings.
          recording_wait  INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX detections_due ON detections (state, recording_wait, next_attempt_at);
        CREATE INDEX detections_recording ON detections (recording_id);
        CREATE INDEX detections_remote_id ON detections (remote_id) WHERE remote_id IS NOT NULL;
        CREATE INDEX detections_waiting ON detections (created_at) WHERE state IN ('pending', 'sending', 'unknown');

        -- Recordings change state a few times in their life: a trigger costs nothing here
        -- (on detections, a trigger per INSERT would triple the cost of ingest).
        CREATE TRIGGER recordings_detection_wait AFTER UPDATE OF state, spool_path ON recordings
        WHEN OLD.detection_wait IS NOT NEW.detection_wait
        BEGIN
          UPDATE detections SET recording_wait = NEW.detection_wait WHERE recording_id = NEW.id;
        END;

        -- Items per kind and state, kept by the queue's code in the same transaction as every
        -- INSERT and state change (state.ts, enqueue.ts): \`status\` reads 12 rows instead of
        -- counting a million. recountStates() rebuilds it from the tables.
        CREATE TABLE state_counts (
          kind  TEXT NOT NULL CHECK (kind IN ('recording', 'detection')),
          state TEXT NOT NULL CHECK (state IN (${STATES})),
          n     INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (kind, state)
        ) WITHOUT ROWID;
        INSERT INTO state_counts (kind, state)
          SELECT kind.value, state.value FROM json_each('["recording","detection"]') AS kind,
            json_each('[${STATES.replaceAll("'", '"')}]') AS state;

        CREATE TABLE meta (
          key        TEXT PRIMARY KEY,
          value      TEXT NOT NULL,
          updated_at INTEGER NOT NULL
        ) WITHOUT ROWID;
      `),
    },
    {
        version: 2,
        name: 'ingested files',
        up: (db) => db.exec(`
        CREATE TABLE ingested_files (
          path     TEXT PRIMARY KEY,
          size     INTEGER NOT NULL,
          mtime_ms INTEGER NOT NULL,
          outcome  TEXT NOT NULL CHECK (outcome IN ('queued', 'no-detections', 'error', 'discarded')),
          detail   TEXT,
          at       INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX ingested_files_at ON ingested_files (at);
      `),
    },
    {
        version: 3,
        name: 'spool index covers file sizes',
        up: (db) => db.exec(`
        DROP INDEX recordings_spool;
        CREATE INDEX recordings_spool ON recordings (updated_at, filesize, spool_path) WHERE spool_path IS NOT NULL;
      `),
    },
    {
        version: 4,
        name: 'mqtt publishing state of detections',
        up: (db) => db.exec(`
        ALTER TABLE detections ADD COLUMN mqtt_published INTEGER NOT NULL DEFAULT 0;
        UPDATE detections SET mqtt_published = 2;
        CREATE INDEX detections_mqtt ON detections (mqtt_published, id) WHERE mqtt_published < 2;
      `),
    },
    {
        version: 5,
        name: 'species sightings for the species gate',
        up: (db) => db.exec(`
        CREATE TABLE species_sightings (
          species     TEXT NOT NULL,
          detected_at INTEGER NOT NULL,
          dedupe_key  TEXT NOT NULL,
          expires_at  INTEGER NOT NULL,
          PRIMARY KEY (species, detected_at, dedupe_key)
        ) WITHOUT ROWID;
        CREATE INDEX species_sightings_expires ON species_sightings (expires_at);
      `),
    },
    {
        version: 6,
        name: 'held items index',
        up: (db) => db.exec(`
        CREATE INDEX recordings_held ON recordings (hold_reason, id) WHERE hold_reason IS NOT NULL;
        CREATE INDEX detections_held ON detections (hold_reason, id) WHERE hold_reason IS NOT NULL;
      `),
    },
    {
        version: 7,
        name: 'result files in error index',
        up: (db) => db.exec(`CREATE INDEX ingested_files_errors ON ingested_files (at) WHERE outcome = 'error';`),
    },
    {
        version: 8,
        name: 'fewer pages written per recording',
        up: (db) => db.exec(`
        ALTER TABLE recordings ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE detections ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0;
        UPDATE recordings SET waiting = 1 WHERE state IN ('pending', 'sending', 'unknown');
        UPDATE detections SET waiting = 1 WHERE state IN ('pending', 'sending', 'unknown');
        DROP INDEX recordings_waiting;
        CREATE INDEX recordings_waiting ON recordings (created_at) WHERE waiting = 1;
        DROP INDEX detections_waiting;
        CREATE INDEX detections_waiting ON detections (created_at) WHERE waiting = 1;
        DROP INDEX recordings_spool;
        CREATE INDEX recordings_spool ON recordings (updated_at, filesize, spool_path, state)
          WHERE spool_path IS NOT NULL AND state IN ('uploaded', 'dropped');
        DROP INDEX recordings_due;
        CREATE INDEX recordings_due ON recordings (state, audio_stage, next_attempt_at, filesize, spool_path);
        DROP INDEX ingested_files_at;
        UPDATE state_counts SET n = n + (SELECT s.n FROM state_counts s WHERE s.kind = state_counts.kind AND s.state = 'sending')
          WHERE state = 'pending';
        UPDATE state_counts SET n = 0 WHERE state = 'sending';
      `),
    },
    {
        version: 9,
        name: 'claim index without spool paths',
        up: (db) => db.exec(`
        DROP INDEX recordings_due;
        CREATE INDEX recordings_due ON recordings (state, audio_stage, next_attempt_at);
      `),
    },
    {
        version: 10,
        name: 'claim indexes hold only waiting items',
        up: (db) => db.exec(`
        DROP INDEX recordings_due;
        CREATE INDEX recordings_due ON recordings (state, audio_stage, next_attempt_at) WHERE waiting = 1;
        DROP INDEX detections_due;
        CREATE INDEX detections_due ON detections (state, recording_wait, next_attempt_at) WHERE waiting = 1;
        DROP INDEX recordings_spool;
        CREATE INDEX recordings_spool ON recordings (updated_at, filesize, spool_path, state)
          WHERE spool_path IS NOT NULL AND state IN ('uploaded', 'dropped', 'failed');
      `),
    },
    {
        version: 11,
        name: 'claim indexes answer the oldest waiting item',
        up: (db) => db.exec(`
        DROP INDEX recordings_waiting;
        DROP INDEX detections_waiting;
        DROP INDEX recordings_due;
        CREATE INDEX recordings_due ON recordings (state, audio_stage, next_attempt_at, created_at, waiting) WHERE waiting = 1;
        DROP INDEX detections_due;
        CREATE INDEX detections_due ON detections (state, recording_wait, next_attempt_at, created_at, waiting) WHERE waiting = 1;
      `),
    },
    {
        version: 12,
        name: 'claim indexes in claim order',
        up: (db) => db.exec(`
        DROP INDEX recordings_due;
        CREATE INDEX recordings_due ON recordings (state, audio_stage, next_attempt_at, id, created_at, waiting) WHERE waiting = 1;
        DROP INDEX detections_due;
        CREATE INDEX detections_due ON detections (state, recording_wait, next_attempt_at, id, created_at, waiting) WHERE waiting = 1;
      `),
    },
    {
        version: 13,
        name: 'first waiting item kept',
        up: (db) => db.exec(`
        ALTER TABLE state_counts ADD COLUMN first_waiting_id INTEGER;
        UPDATE state_counts SET first_waiting_id = COALESCE(
            (SELECT MIN(id) FROM recordings WHERE waiting = 1), (SELECT COALESCE(MAX(id), 0) + 1 FROM recordings))
          WHERE kind = 'recording' AND state = 'pending';
        UPDATE state_counts SET first_waiting_id = COALESCE(
            (SELECT MIN(id) FROM detections WHERE waiting = 1), (SELECT COALESCE(MAX(id), 0) + 1 FROM detections))
          WHERE kind = 'detection' AND state = 'pending';
      `),
    },
    {
        version: 14,
        name: 'waiting recordings spool total kept',
        up: (db) => db.exec(`
        ALTER TABLE state_counts ADD COLUMN spool_files INTEGER;
        ALTER TABLE state_counts ADD COLUMN spool_bytes INTEGER;
        UPDATE state_counts SET (spool_files, spool_bytes) = (
            SELECT COUNT(*), COALESCE(SUM(filesize), 0) FROM recordings WHERE waiting = 1 AND spool_path IS NOT NULL)
          WHERE kind = 'recording' AND state = 'pending';
      `),
    },
];
export const SCHEMA_VERSION = MIGRATIONS.length;
export function migrate(db, dbPath, migrations = MIGRATIONS) {
    const latest = migrations.length;
    const current = userVersion(db);
    if (current > latest) {
        throw new QueueError('ERR_QUEUE', `queue database ${dbPath} has schema version ${current}, newer than this agent knows (${latest}); upgrade station-agent`);
    }
    const applied = [];
    if (current === latest)
        return applied;
    db.transaction(() => {
        for (const migration of migrations) {
            if (migration.version <= userVersion(db))
                continue;
            migration.up(db);
            db.pragma(`user_version = ${migration.version}`);
            applied.push(migration.version);
        }
    }).immediate();
    return applied;
}
function userVersion(db) {
    return db.pragma('user_version', { simple: true });
}
