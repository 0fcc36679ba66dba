import type Database from 'better-sqlite3';
import { QueueDatabaseError } from './errors.js';

/**
 * The queue's schema, as an ordered list of migrations. The database's
 * `user_version` pragma is the number of migrations applied. The missing migrations run
 * in one IMMEDIATE transaction together with the `user_version` bumps, so a crash
 * leaves the schema at a whole version, and two processes opening a fresh file at
 * once (daemon and CLI) do not both apply them: the second re-reads the version
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

/**
 * The columns of an item's way through the queue, the same in both tables of migration 1.
 * Part of a released migration: never edit it (the text lands in sqlite_master as written).
 */
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
    // The analyzer's files the agent has finished with (ingested-files.ts).
    up: (db) =>
      db.exec(`
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
    // spoolUsage (status) and the retention sweep read the index alone instead of a table row per spooled file.
    up: (db) =>
      db.exec(`
        DROP INDEX recordings_spool;
        CREATE INDEX recordings_spool ON recordings (updated_at, filesize, spool_path) WHERE spool_path IS NOT NULL;
      `),
  },
  {
    version: 4,
    name: 'mqtt publishing state of detections',
    // What the MQTT publisher (src/mqtt) has published of each detection: 0 nothing yet,
    // 1 the detection message, 2 also its update with the service's ids (or its end as
    // dropped). The history before this migration counts as published: enabling MQTT
    // does not replay it. The partial index holds only what may still be published, so
    // the publisher's batches and `status`'s pending count never scan the history.
    up: (db) =>
      db.exec(`
        ALTER TABLE detections ADD COLUMN mqtt_published INTEGER NOT NULL DEFAULT 0;
        UPDATE detections SET mqtt_published = 2;
        CREATE INDEX detections_mqtt ON detections (mqtt_published, id) WHERE mqtt_published < 2;
      `),
  },
  {
    version: 5,
    name: 'species sightings for the species gate',
    // filters.minDetectionsPer24h (species-gate.ts): one row per gated detection, by species and
    // detection time, so the count within 24 h is an index range; expires_at orders expiry and pruning.
    up: (db) =>
      db.exec(`
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
    // status counts holds per reason, and the daemon reviews held items, without scanning the queue.
    up: (db) =>
      db.exec(`
        CREATE INDEX recordings_held ON recordings (hold_reason, id) WHERE hold_reason IS NOT NULL;
        CREATE INDEX detections_held ON detections (hold_reason, id) WHERE hold_reason IS NOT NULL;
      `),
  },
  {
    version: 7,
    name: 'result files in error index',
    // status names the result files ingest could not take (no recording start, not a result
    // file, too large) without scanning every file the agent ever read.
    up: (db) => db.exec(`CREATE INDEX ingested_files_errors ON ingested_files (at) WHERE outcome = 'error';`),
  },
  {
    version: 8,
    name: 'fewer pages written per recording',
    // Every commit appends each page it changed to the WAL, and SQLite rewrites an index
    // whenever the UPDATE sets one of its columns or a column of its partial WHERE
    // (whatever the new key). A recording's ingest, claim and outcomes touched some 38 pages;
    // docs/ARCHITECTURE.md, "The write path", lists what is left. Here:
    // - `waiting` (1 from queued until uploaded, failed or dropped) is set by transitionWhere
    //   only when an item enters or leaves those end states, so the `*_waiting` indexes are
    //   written at ingest and at the outcome, not at every claim and retry (their WHERE was
    //   on `state`, which every transition sets);
    // - `recordings_spool` holds only what retention may delete (uploaded or dropped): it is
    //   written once, at the outcome, instead of at ingest, claim and outcome (its key held
    //   `updated_at`). The spool's other files are counted from `recordings_due`, which now
    //   covers `filesize` and `spool_path` (an index on the virtual `audio_stage` is never
    //   covering);
    // - `ingested_files_at` goes: only a pruning that nothing called read it
    //   (pruneIngestedFiles walks the primary key now);
    // - `state_counts` keeps `sending` items in the `pending` row (state-counts.ts): a claim
    //   and a retry no longer write it.
    up: (db) =>
      db.exec(`
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
    // Migration 8 made recordings_due cover filesize and spool_path (for spoolUsage): entries
    // four times as large, so the index, written three times per recording, split four
    // times as often (the bench's 40-recording run: 4.5 pages per recording instead of 3).
    // spoolUsage reads the few table rows of the spool's waiting files instead.
    up: (db) =>
      db.exec(`
        DROP INDEX recordings_due;
        CREATE INDEX recordings_due ON recordings (state, audio_stage, next_attempt_at);
      `),
  },
  {
    version: 10,
    name: 'claim indexes hold only waiting items',
    // The `*_due` indexes keep only items that still wait (`waiting = 1`): an outcome deletes
    // the item's entry instead of moving it into the uploaded range (a second page, far
    // from the waiting ones, once the history is large), a spool file's removal after
    // upload no longer touches them, and they stay the size of the backlog instead of
    // growing with the history (fewer splits, each of them several pages). Every query
    // that reads them says `waiting = 1`. Failed recordings' spool files are counted
    // through `recordings_spool`, which now holds them too.
    up: (db) =>
      db.exec(`
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
    // Since migration 10 the claim indexes hold exactly the waiting items: with `created_at`
    // (and `waiting`, so that a read of them alone needs no table row) they answer what the
    // `*_waiting` indexes did (the oldest waiting item, the detections queued since the
    // no-soundscape cutoff), and those two indexes, written at every ingest and outcome
    // (four pages per recording), go. The oldest waiting item is then a read of the
    // backlog's entries, not of one (status, metrics, alerts; never the history).
    up: (db) =>
      db.exec(`
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
    // A claim branch reads its range in claim order, due time then id, and stops after its
    // limit. With `created_at` between the due time and the rowid (migration 11), the
    // index is no longer in that order: each claim read every item sharing the earliest due
    // time (a result table's thousand rows are queued at one time), looked up its row and
    // sorted them. `id` after the due time puts the entries back in claim order; `created_at`
    // and `waiting` still let the index alone answer the oldest waiting item.
    up: (db) =>
      db.exec(`
        DROP INDEX recordings_due;
        CREATE INDEX recordings_due ON recordings (state, audio_stage, next_attempt_at, id, created_at, waiting) WHERE waiting = 1;
        DROP INDEX detections_due;
        CREATE INDEX detections_due ON detections (state, recording_wait, next_attempt_at, id, created_at, waiting) WHERE waiting = 1;
      `),
  },
  {
    version: 13,
    name: 'first waiting item kept',
    // The oldest waiting item read the claim index whole (every entry of the backlog: 80 ms
    // of `status` on a million waiting detections). Each kind's first waiting item in queue
    // order is kept instead (first-waiting.ts), on its `pending` row of `state_counts`: the
    // page every step that changes it writes already, so no step writes one page more.
    // Without a waiting item, one past the last id (the id the next item gets).
    up: (db) =>
      db.exec(`
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
    // The spool's files of the waiting recordings were counted by looking up the row of each
    // (status and the daemon's disk monitor: 30 ms for 100,000). Their number and bytes are
    // kept instead (waiting-spool.ts), on the recording kind's `pending` row of `state_counts`,
    // which ingest and every outcome write already.
    up: (db) =>
      db.exec(`
        ALTER TABLE state_counts ADD COLUMN spool_files INTEGER;
        ALTER TABLE state_counts ADD COLUMN spool_bytes INTEGER;
        UPDATE state_counts SET (spool_files, spool_bytes) = (
            SELECT COUNT(*), COALESCE(SUM(filesize), 0) FROM recordings WHERE waiting = 1 AND spool_path IS NOT NULL)
          WHERE kind = 'recording' AND state = 'pending';
      `),
  },
  {
    version: 15,
    name: 'delivery audit',
    // What the delivery audit (src/audit/) holds the service's answers against: the bytes
    // of the FLAC that was sent (the spool's `filesize` is the WAV's when the encode step
    // made the FLAC in memory), and whether the audit already re-queued an item it found
    // missing (once; the next time it is reported). Added columns: no row is rewritten.
    up: (db) =>
      db.exec(`
        ALTER TABLE recordings ADD COLUMN sent_bytes INTEGER;
        ALTER TABLE recordings ADD COLUMN audit_requeued INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE detections ADD COLUMN audit_requeued INTEGER NOT NULL DEFAULT 0;
      `),
  },
  {
    version: 16,
    name: 'audio modification time',
    // The spool WAV's modification time (whole ms) when its recording was queued: with
    // `filesize`, what the encode step checks the file against, since a hard link is the
    // analyzer's own inode and an analyzer rewriting it in place changes what would be
    // uploaded (issue 35). NULL: nothing to check (a reference carries its identity in its
    // name; rows queued before). An added column: no row is rewritten.
    up: (db) => db.exec(`ALTER TABLE recordings ADD COLUMN audio_mtime_ms INTEGER;`),
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Applies the migrations the database lacks. Returns the versions applied. */
export function migrate(db: Database.Database, dbPath: string, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const latest = migrations.length;
  const current = userVersion(db);
  if (current > latest) {
    throw new QueueDatabaseError(
      `queue database ${dbPath} has schema version ${current}, newer than this agent knows (${latest}); upgrade station-agent`,
    );
  }
  const applied: number[] = [];
  if (current === latest) return applied;
  // All that is missing in one transaction: a page changed by several migrations (the
  // schema's, an index rebuilt twice) goes to the WAL once, so a new queue starts with
  // some 30 KB of WAL instead of 85 KB (a nearly full card must still open it). Still
  // whole versions only: the transaction commits all of them or none.
  db.transaction(() => {
    for (const migration of migrations) {
      // Another process may have applied it since we looked.
      if (migration.version <= userVersion(db)) continue;
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
      applied.push(migration.version);
    }
  }).immediate();
  return applied;
}

function userVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}
