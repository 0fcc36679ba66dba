import type { SpeciesRecord } from '../../store/index.js';
import { likePattern } from '../../store/species.js';
import { sqlSource, type PageSource } from '../connection.js';
import type { GqlContext } from '../context.js';
import { toSpeciesRecord, type SpeciesRow } from './rows.js';

/**
 * `searchSpecies`: species whose common or scientific name contains the text
 * (case-insensitive). Exact matches first, then names starting with the text, then
 * the rest; within each, by common name. `cap` bounds the whole result (`limit`).
 */
export function speciesSearch(ctx: GqlContext, text: string | undefined, cap: number | undefined): PageSource<SpeciesRecord> {
  const query = text?.trim().toLowerCase() ?? '';
  const params: Record<string, unknown> = { q: query, prefix: `${likePattern(query).slice(1)}`, contains: likePattern(query) };
  const rank = `CASE WHEN lower(s.common_name) = @q OR lower(s.scientific_name) = @q THEN 0
                     WHEN s.common_name LIKE @prefix ESCAPE '\\' OR s.scientific_name LIKE @prefix ESCAPE '\\' THEN 1
                     ELSE 2 END`;
  const where = query === '' ? '1' : `(s.common_name LIKE @contains ESCAPE '\\' OR s.scientific_name LIKE @contains ESCAPE '\\')`;
  let sql = `SELECT s.*, ${rank} AS _k0, lower(s.common_name) AS _k1, s.id AS _k2 FROM species s WHERE ${where}`;
  if (cap !== undefined) {
    sql = `${sql} ORDER BY _k0, _k1, _k2 LIMIT @cap`;
    params.cap = cap;
  }
  return sqlSource<SpeciesRow, SpeciesRecord>(ctx.emulator.store.db, {
    sql,
    params,
    keyLength: 3,
    descending: false,
    map: toSpeciesRecord,
  });
}
