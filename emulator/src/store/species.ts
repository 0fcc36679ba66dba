import type { Database, Statement } from 'better-sqlite3';
import type { Classification } from '../../../src/wire/types.js';
import type { SpeciesRecord } from './records.js';

/** A `species` row as SQLite returns it; also read by the GraphQL queries. */
export interface SpeciesRow extends Record<string, unknown> {
  id: number;
  scientific_name: string;
  common_name: string;
  classification: string;
  color: string;
  alpha: string | null;
  alpha6: string | null;
}

export type NewSpecies = Omit<SpeciesRecord, 'id'>;

export function toSpeciesRecord(row: SpeciesRow): SpeciesRecord {
  return {
    id: row.id,
    scientificName: row.scientific_name,
    commonName: row.common_name,
    classification: row.classification as Classification,
    color: row.color,
    alpha: row.alpha,
    alpha6: row.alpha6,
  };
}

/** Escapes `%`, `_` and the escape character itself for a LIKE pattern with `ESCAPE '\'`. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export class SpeciesStore {
  private readonly byIdStmt: Statement<[number], SpeciesRow>;
  private readonly byScientificStmt: Statement<[string], SpeciesRow>;
  private readonly byCommonStmt: Statement<[string], SpeciesRow>;

  constructor(private readonly db: Database) {
    this.byIdStmt = db.prepare('SELECT * FROM species WHERE id = ?');
    this.byScientificStmt = db.prepare('SELECT * FROM species WHERE scientific_name = ? COLLATE NOCASE');
    this.byCommonStmt = db.prepare('SELECT * FROM species WHERE common_name = ? COLLATE NOCASE ORDER BY id LIMIT 1');
  }

  byId(id: number): SpeciesRecord | undefined {
    const row = this.byIdStmt.get(id);
    return row && toSpeciesRecord(row);
  }

  /** Case-insensitive exact match on the scientific name (surrounding blanks ignored). */
  byScientificName(name: string): SpeciesRecord | undefined {
    const row = this.byScientificStmt.get(name.trim().replace(/\s+/g, ' '));
    return row && toSpeciesRecord(row);
  }

  byCommonName(name: string): SpeciesRecord | undefined {
    const row = this.byCommonStmt.get(name.trim());
    return row && toSpeciesRecord(row);
  }

  count(): number {
    return this.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM species').get()!.n;
  }

  all(): SpeciesRecord[] {
    return this.db.prepare<[], SpeciesRow>('SELECT * FROM species ORDER BY id').all().map(toSpeciesRecord);
  }

  /** Adds the species not yet known (by scientific name); existing ones keep their id. Returns how many were added. */
  insertMissing(species: Iterable<NewSpecies>): number {
    const insert = this.db.prepare(
      `INSERT OR IGNORE INTO species (scientific_name, common_name, classification, color, alpha, alpha6)
       VALUES (@scientificName, @commonName, @classification, @color, @alpha, @alpha6)`,
    );
    let added = 0;
    this.db.transaction(() => {
      for (const s of species) added += insert.run(s).changes;
    })();
    return added;
  }

  /** Ids of species whose common or scientific name contains the text (case-insensitive). */
  searchIds(text: string): number[] {
    return this.db
      .prepare<[string, string], { id: number }>(
        `SELECT id FROM species
         WHERE common_name LIKE ? ESCAPE '\\' OR scientific_name LIKE ? ESCAPE '\\'`,
      )
      .all(likePattern(text), likePattern(text))
      .map((r) => r.id);
  }
}
