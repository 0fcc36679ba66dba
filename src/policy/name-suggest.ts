import { nameKey } from './names.js';

/**
 * "Did you mean" for a class or species name the labels do not know, from an index built
 * once per labels: sorted keys with their common prefixes (for the edit distance) and a
 * word index (for a name that is a whole word of a label). A scan of every label per name
 * cost about a second each (an edit distance against some 13,000 labels), at every daemon
 * start and `config validate` (issue 35); the index answers in well under a millisecond
 * for a name with a close match. The suggestion is the one the scan gave:
 * - a label that holds the name as whole words (`Human` -> `Human vocal`), the shortest,
 *   first in file order among equals;
 * - else the nearest by edit distance (insert, delete, substitute, swap neighbours) within
 *   two edits and a third of the name's length (`Turdus merla` -> `Turdus merula`), first in
 *   file order among equals. (The scan allowed a third of the length however long: a name
 *   15 letters long then "meant" any label 5 edits away, a guess rather than a typo, and
 *   proving that no label is that close is most of the work.)
 */
const MAX_EDITS = 2;

export class NameSuggester {
  /** Every label (scientific and common names), in file order. */
  private readonly names: string[] = [];
  /** Their keys, sorted; `sortedOrder[i]` is the file order of `sortedKeys[i]`. */
  private readonly sortedKeys: string[];
  private readonly sortedOrder: Int32Array;
  /** Characters `sortedKeys[i]` shares with `sortedKeys[i - 1]`. */
  private readonly shared: Int32Array;
  /** The first key after `i` that shares fewer characters than `i` does: a skip past `i`'s siblings' subtrees. */
  private readonly nextFewer: Int32Array;
  /** Word -> file orders of the labels whose key has it as a word. */
  private readonly byWord = new Map<string, number[]>();
  private readonly keys: string[] = [];
  private readonly longest: number;

  constructor(labels: Iterable<string>) {
    for (const name of labels) {
      const key = nameKey(name);
      const order = this.names.length;
      this.names.push(name);
      this.keys.push(key);
      for (const word of new Set(key.split(' '))) {
        const list = this.byWord.get(word);
        if (list) list.push(order);
        else this.byWord.set(word, [order]);
      }
    }
    const sorted = this.keys.map((key, order) => ({ key, order })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.order - b.order));
    this.sortedKeys = sorted.map((s) => s.key);
    this.sortedOrder = Int32Array.from(sorted, (s) => s.order);
    this.shared = new Int32Array(sorted.length);
    for (let i = 1; i < sorted.length; i++) this.shared[i] = commonPrefix(this.sortedKeys[i - 1], this.sortedKeys[i]);
    this.nextFewer = new Int32Array(sorted.length).fill(sorted.length);
    const open: number[] = [];
    for (let i = 0; i < sorted.length; i++) {
      while (open.length > 0 && this.shared[open[open.length - 1]] > this.shared[i]) this.nextFewer[open.pop()!] = i;
      open.push(i);
    }
    this.longest = this.keys.reduce((n, k) => Math.max(n, k.length), 0);
  }

  /** The label the configured name most likely meant, or undefined when none is close. */
  suggest(name: string): string | undefined {
    const key = nameKey(name);
    if (key.length === 0) return undefined;
    const containing = this.containing(key);
    if (containing !== undefined) return this.names[containing];
    const nearest = this.nearest(key, Math.max(1, Math.min(MAX_EDITS, Math.floor(key.length / 3))));
    return nearest === undefined ? undefined : this.names[nearest];
  }

  /** The shortest label holding `key` as whole words, from the labels that have its rarest word. */
  private containing(key: string): number | undefined {
    let fewest: number[] | undefined;
    for (const word of key.split(' ')) {
      const list = this.byWord.get(word);
      if (!list) return undefined;
      if (!fewest || list.length < fewest.length) fewest = list;
    }
    let best: number | undefined;
    for (const order of fewest ?? []) {
      if (!holdsWords(this.keys[order], key)) continue;
      if (best === undefined || this.names[order].length < this.names[best].length) best = order;
    }
    return best;
  }

  /**
   * The nearest label within `limit` edits: the sorted keys walked as a trie, each key's
   * rows of the distance table reused up to the prefix it shares with the one before; a
   * prefix whose row is already past the best distance is skipped with every key under it,
   * a key whose own length cannot end within it is left. A bound of 1, then 2, up to
   * `limit`: a close match (the usual typo) prunes hardest.
   */
  private nearest(key: string, limit: number): number | undefined {
    const n = key.length;
    const width = n + 1;
    const codes = Int32Array.from(key, (ch) => ch.charCodeAt(0));
    const rows = new Int32Array((this.longest + 1) * width);
    for (let j = 0; j < width; j++) rows[j] = j;
    const keys = this.sortedKeys;
    for (let bound = 1; bound <= limit; bound++) {
      let best = -1;
      let bestDistance = bound + 1;
      /** Rows 0..valid hold the last key walked. */
      let valid = 0;
      let i = 0;
      while (i < keys.length) {
        const candidate = keys[i];
        const length = candidate.length;
        let depth = Math.min(this.shared[i], valid);
        let skipFrom = -1;
        let ends = Math.abs(length - n) <= bound;
        while (ends && depth < length) {
          depth++;
          const threshold = best < 0 ? bound : bestDistance;
          if (fillRow(rows, width, codes, candidate, depth, bound, length) > threshold) {
            skipFrom = depth;
            break;
          }
          if (rowEnd > threshold) ends = false;
        }
        valid = depth;
        if (ends && skipFrom < 0) {
          const distance = rows[depth * width + n];
          const order = this.sortedOrder[i];
          if (distance < bestDistance || (distance === bestDistance && order < best)) {
            bestDistance = distance;
            best = order;
          }
        }
        i++;
        // Every key sharing the first `skipFrom` characters is at least as far.
        if (skipFrom > 0) while (i < keys.length && this.shared[i] >= skipFrom) i = this.nextFewer[i];
      }
      if (best >= 0) return best;
    }
    return undefined;
  }
}

/** The least distance at the end of the key whose row `fillRow` filled last (its own length given). */
let rowEnd = 0;

/**
 * Row `d` of the distance table of `key` against `candidate`'s first `d` characters, in the
 * band of `bound` around the diagonal (a cell further out is more than `bound` anyway: it
 * reads as `bound + 1`); returns the row's minimum, and sets `rowEnd` to the least
 * distance the whole candidate (`length` characters) can still end at.
 */
function fillRow(rows: Int32Array, width: number, key: Int32Array, candidate: string, d: number, bound: number, length: number): number {
  const row = d * width;
  const above = row - width;
  const c = candidate.charCodeAt(d - 1);
  const before = d > 1 ? candidate.charCodeAt(d - 2) : -1;
  const far = bound + 1;
  const lo = d > bound ? d - bound : 1;
  const hi = d + bound < width - 1 ? d + bound : width - 1;
  const rest = length - d - (width - 1);
  rows[row + lo - 1] = lo === 1 ? d : far;
  if (hi + 1 < width) rows[row + hi + 1] = far;
  let min = lo === 1 ? d : far;
  let end = lo === 1 ? d + Math.abs(rest) : far;
  for (let j = lo; j <= hi; j++) {
    const k = key[j - 1];
    let v = rows[above + j - 1] + (k === c ? 0 : 1);
    const up = rows[above + j] + 1;
    if (up < v) v = up;
    const left = rows[row + j - 1] + 1;
    if (left < v) v = left;
    if (j > 1 && k === before && key[j - 2] === c) {
      const swap = rows[above - width + j - 2] + 1;
      if (swap < v) v = swap;
    }
    rows[row + j] = v;
    if (v < min) min = v;
    // What is left: length - d characters of the candidate against n - j of the key.
    const e = v + Math.abs(rest + j);
    if (e < end) end = e;
  }
  rowEnd = end;
  return min;
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Whether `key` is whole words of `candidate` (both name keys: words split by one space). */
function holdsWords(candidate: string, key: string): boolean {
  for (let at = candidate.indexOf(key); at >= 0; at = candidate.indexOf(key, at + 1)) {
    const end = at + key.length;
    if ((at === 0 || candidate[at - 1] === ' ') && (end === candidate.length || candidate[end] === ' ')) return true;
  }
  return false;
}
