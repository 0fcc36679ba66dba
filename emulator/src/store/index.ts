import BetterSqlite3, { type Database } from 'better-sqlite3';
import { DetectionStore } from './detections.js';
import { applySchema } from './schema.js';
import { SoundscapeStore } from './soundscapes.js';
import { SpeciesStore } from './species.js';
import { StationStore } from './stations.js';
import { SummaryQueries } from './summaries.js';

export type { DetectionFilter } from './detection-filter.js';
export type * from './records.js';
export { STATION_EDITIONS } from './records.js';
export type { NewStation, StationChange, StationConfigChange } from './stations.js';
export type { NewSpecies } from './species.js';
export type { SoundscapeFilter } from './soundscapes.js';
export type { SpeciesSort, SpeciesSummaryRow, StationCounts } from './summaries.js';
export { ID_STRIDES } from './schema.js';

export interface StoreOptions {
  /** First id of the stations table; the other tables start at fixed strides above it (see ID_STRIDES). */
  idOffset: number;
}

/**
 * The local service's data layer: one SQLite database (a file, or `:memory:`),
 * one small store object per table, and the aggregate queries.
 */
export class EmulatorStore {
  readonly stations: StationStore;
  readonly species: SpeciesStore;
  readonly soundscapes: SoundscapeStore;
  readonly detections: DetectionStore;
  readonly summaries: SummaryQueries;

  private constructor(readonly db: Database) {
    this.stations = new StationStore(db);
    this.species = new SpeciesStore(db);
    this.soundscapes = new SoundscapeStore(db);
    this.detections = new DetectionStore(db);
    this.summaries = new SummaryQueries(db);
  }

  /** Opens (and on first use creates) the database. Reopening a file keeps all its data. */
  static open(file: string, options: StoreOptions): EmulatorStore {
    const db = new BetterSqlite3(file);
    try {
      if (file !== ':memory:') {
        db.pragma('journal_mode = WAL');
        // WAL + NORMAL survives a crash of this process (what the outage tests simulate).
        db.pragma('synchronous = NORMAL');
      }
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      applySchema(db, options.idOffset);
    } catch (err) {
      db.close();
      throw err;
    }
    return new EmulatorStore(db);
  }

  /** Runs `fn` in one transaction. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
