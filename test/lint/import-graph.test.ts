import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { RANKS } from '../../eslint.boundaries.js';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * The whole import graph of `src/`, as the TypeScript compiler's pre-processor reads it:
 * static, dynamic (`import()`) and type-only imports. ESLint's rules leave two gaps this
 * closes: `import-x/no-cycle` does not count `import type` (erased at build, yet a circle
 * in the design all the same), and `no-restricted-imports` does not see `import()`.
 */
const SRC = path.join(REPO_ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

function importGraph(): Map<string, string[]> {
  const files = sourceFiles(SRC);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((s) => s.startsWith('.'))
      .map((s) => path.resolve(path.dirname(file), s).replace(/\.js$/, '.ts'))
      .filter((t) => known.has(t));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components of more than one file (Tarjan), or a file importing itself. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(path.relative(SRC, w));
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The graph of `src/`'s top folders (a top-level file stands for itself): an edge where any file of one imports any file of another. */
function folderGraph(graph: Map<string, string[]>): Map<string, string[]> {
  const top = (file: string) => path.join(SRC, path.relative(SRC, file).split(path.sep)[0]);
  const folders = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const edges = folders.get(top(from)) ?? new Set<string>();
    folders.set(top(from), edges);
    for (const to of targets) if (top(to) !== top(from)) edges.add(top(to));
  }
  return new Map([...folders].map(([folder, edges]) => [folder, [...edges]]));
}

/** The rank of a file's top folder (or of a top-level file) in RANKS. */
function rankOf(file: string): number {
  const rel = path.relative(SRC, file);
  const top = rel.includes(path.sep) ? rel.split(path.sep)[0] : rel;
  const rank = RANKS.findIndex((r) => r.includes(top));
  if (rank < 0) throw new Error(`src/${top} has no rank in eslint.boundaries.js RANKS`);
  return rank;
}

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('has no circle, counting type-only and dynamic imports', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(circles(graph)).toEqual([]);
  });

  it('has no import from a folder to one ranked above it, dynamic ones included', () => {
    const backArrows: string[] = [];
    for (const [from, targets] of graph) {
      for (const to of targets) {
        if (rankOf(to) < rankOf(from)) backArrows.push(`${path.relative(SRC, from)} -> ${path.relative(SRC, to)}`);
      }
    }
    expect(backArrows).toEqual([]);
  });

  it('has no two folders that import each other, even through others in their rank (the status/mqtt back-arrow of issue 34)', () => {
    expect(circles(folderGraph(graph))).toEqual([]);
  });

  it('finds a circle and a back-arrow where there is one (the checks can fail)', () => {
    const a = path.join(SRC, 'queue', 'a.ts');
    const b = path.join(SRC, 'upload', 'b.ts');
    const toy = new Map([
      [a, [b]],
      [b, [a]],
    ]);
    expect(circles(toy)).toEqual([['queue/a.ts', 'upload/b.ts']]);
    expect(rankOf(a)).toBeGreaterThan(rankOf(b));
    // Two folders of one rank, each importing a different file of the other: no file circle, a folder one.
    const [status1, status2, mqtt1, mqtt2] = ['status/x.ts', 'status/y.ts', 'mqtt/x.ts', 'mqtt/y.ts'].map((f) => path.join(SRC, f));
    const siblings = new Map([
      [status1, [mqtt1]],
      [mqtt2, [status2]],
      [mqtt1, []],
      [status2, []],
    ]);
    expect(circles(siblings)).toEqual([]);
    expect(circles(folderGraph(siblings))).toEqual([['mqtt', 'status']]);
  });
});
