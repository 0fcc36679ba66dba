import type { Database } from 'better-sqlite3';
import { GraphqlInputError } from './errors.js';

/**
 * Relay connections (`edges {cursor node}`, `nodes`, `pageInfo`, `totalCount`) over
 * keyset pages: a cursor holds the sort key of its row, so a page after a cursor
 * stays exact while new detections arrive (an offset would shift). `first/after`
 * pages forward, `last/before` backward; both together are honoured as Relay says
 * (first, then last). `totalCount` and the page flags are computed only when asked.
 */

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export type CursorKey = readonly (number | string)[];

export interface PageRange {
  /** Only rows after this key in list order. */
  after?: CursorKey;
  /** Only rows before this key in list order. */
  before?: CursorKey;
  limit: number;
  /** Take the last `limit` rows of the range instead of the first (still returned in list order). */
  fromEnd: boolean;
}

export interface KeyedRow<T> {
  key: CursorKey;
  node: T;
}

export interface PageSource<T> {
  /** Number of values in a key (a cursor of another length is refused). */
  keyLength: number;
  total(): number;
  slice(range: PageRange): KeyedRow<T>[];
}

export interface PageArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

export interface PageInfo {
  startCursor: string | null;
  endCursor: string | null;
  hasNextPage: () => boolean;
  hasPreviousPage: () => boolean;
}

/** Function-valued fields are called by graphql-js's default resolver, so they run only when selected. */
export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  nodes: T[];
  pageInfo: PageInfo;
  totalCount: () => number;
}

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64');
}

export function decodeCursor(cursor: string, keyLength: number, argument: string): CursorKey {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64').toString('utf8'));
  } catch {
    key = undefined;
  }
  if (
    !Array.isArray(key) ||
    key.length !== keyLength ||
    !key.every((v) => (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string')
  ) {
    throw new GraphqlInputError(`${argument}: ${JSON.stringify(cursor)} is not a cursor of this list (use a cursor from its pageInfo or edges)`);
  }
  return key as CursorKey;
}

/**
 * `first`/`last` (and other page sizes): a negative size is refused, a size above
 * `max` is clamped to it. Dashboards ask for 250 or 500 and the real service
 * answers them with a full page, so refusing would break them.
 */
export function pageSize(value: number | null | undefined, argument: string, max = MAX_PAGE_SIZE): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (value < 0) throw new GraphqlInputError(`${argument} must be 0 or more, got ${value}`);
  return Math.min(value, max);
}

export function paginate<T>(source: PageSource<T>, args: PageArgs): Connection<T> {
  const first = pageSize(args.first, 'first');
  const last = pageSize(args.last, 'last');
  const after = args.after != null ? decodeCursor(args.after, source.keyLength, 'after') : undefined;
  const before = args.before != null ? decodeCursor(args.before, source.keyLength, 'before') : undefined;

  let rows: KeyedRow<T>[];
  let hasNextPage: () => boolean;
  let hasPreviousPage: () => boolean;
  // "Is there any row before/after this key within the bounds?" One indexed row at most.
  const anyBefore = (key: CursorKey | undefined) => source.slice({ before: key, limit: 1, fromEnd: true }).length > 0;
  const anyAfter = (key: CursorKey | undefined) => source.slice({ after: key, limit: 1, fromEnd: false }).length > 0;

  if (last !== undefined && first === undefined) {
    const got = source.slice({ after, before, limit: last + 1, fromEnd: true });
    const more = got.length > last;
    rows = more ? got.slice(got.length - last) : got;
    hasPreviousPage = () => more;
    hasNextPage = () => before !== undefined && anyAfter(rows.at(-1)?.key ?? after);
  } else {
    const size = first ?? DEFAULT_PAGE_SIZE;
    const got = source.slice({ after, before, limit: size + 1, fromEnd: false });
    const more = got.length > size;
    rows = got.slice(0, size);
    let trimmed = false;
    if (last !== undefined && rows.length > last) {
      rows = rows.slice(rows.length - last);
      trimmed = true;
    }
    hasNextPage = () => more;
    hasPreviousPage = () => trimmed || (after !== undefined && anyBefore(rows[0]?.key ?? before));
  }

  const edges = rows.map((row) => ({ cursor: encodeCursor(row.key), node: row.node }));
  return {
    edges,
    nodes: rows.map((row) => row.node),
    pageInfo: {
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
      hasNextPage: once(hasNextPage),
      hasPreviousPage: once(hasPreviousPage),
    },
    totalCount: once(() => source.total()),
  };
}

function once<R>(fn: () => R): () => R {
  let done = false;
  let value: R;
  return () => {
    if (!done) {
      value = fn();
      done = true;
    }
    return value;
  };
}

/** A connection with no items (sensor histories of the local service). */
export function emptyConnection<T>(args: PageArgs): Connection<T> {
  return paginate(arraySource<T>([]), args);
}

/** An in-memory list; the key is the position. */
export function arraySource<T>(items: readonly T[]): PageSource<T> {
  return {
    keyLength: 1,
    total: () => items.length,
    slice({ after, before, limit, fromEnd }) {
      const start = after ? Number(after[0]) + 1 : 0;
      const end = before ? Number(before[0]) : items.length;
      const from = Math.max(0, fromEnd ? Math.max(start, end - limit) : start);
      const to = Math.min(items.length, fromEnd ? end : Math.min(end, start + limit));
      const out: KeyedRow<T>[] = [];
      for (let i = from; i < to; i++) out.push({ key: [i], node: items[i] });
      return out;
    },
  };
}

/**
 * A list read by SQL. `sql` is a SELECT (no ORDER BY) whose result has the key columns
 * `_k0`, `_k1`, ...; the list is ordered by them, all ascending or all descending, and
 * they must identify a row (end with the id). Pages use row-value comparisons on them.
 */
export interface SqlList<Row, T> {
  sql: string;
  params: Record<string, unknown>;
  keyLength: number;
  descending: boolean;
  map: (row: Row) => T;
}

export function sqlSource<Row extends Record<string, unknown>, T>(db: Database, list: SqlList<Row, T>): PageSource<T> {
  const keys = Array.from({ length: list.keyLength }, (_, i) => `_k${i}`);
  const tuple = `(${keys.join(', ')})`;
  const placeholders = (prefix: string) => `(${keys.map((_, i) => `@${prefix}${i}`).join(', ')})`;
  const bind = (prefix: string, key: CursorKey) => Object.fromEntries(key.map((v, i) => [`${prefix}${i}`, v]));
  return {
    keyLength: list.keyLength,
    total: () => db.prepare<[Record<string, unknown>], { n: number }>(`SELECT COUNT(*) AS n FROM (${list.sql})`).get(list.params)!.n,
    slice({ after, before, limit, fromEnd }) {
      const clauses: string[] = [];
      const params: Record<string, unknown> = { ...list.params, __limit: limit };
      // In list order "after" means smaller keys when the list is descending.
      const later = list.descending ? '<' : '>';
      const earlier = list.descending ? '>' : '<';
      if (after) {
        clauses.push(`${tuple} ${later} ${placeholders('__a')}`);
        Object.assign(params, bind('__a', after));
      }
      if (before) {
        clauses.push(`${tuple} ${earlier} ${placeholders('__b')}`);
        Object.assign(params, bind('__b', before));
      }
      const forward = list.descending !== fromEnd ? 'DESC' : 'ASC';
      const rows = db
        .prepare<[Record<string, unknown>], Row>(
          `SELECT * FROM (${list.sql}) ${clauses.length ? `WHERE ${clauses.join(' AND ')}` : ''}
           ORDER BY ${keys.map((k) => `${k} ${forward}`).join(', ')} LIMIT @__limit`,
        )
        .all(params);
      if (fromEnd) rows.reverse();
      return rows.map((row) => ({ key: keys.map((k) => row[k] as number | string), node: list.map(row) }));
    },
  };
}
