import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * docs/ARCHITECTURE.md's folder table against the tree: every folder of `src/` has its row,
 * and every row names a folder that exists, so the map a newcomer reads first stays true.
 */
describe('docs/ARCHITECTURE.md: the folder table', () => {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| `src\/([a-z-]+)` \|/gm)].map((m) => m[1]);
  const folders = readdirSync(path.join(REPO_ROOT, 'src'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);

  it('has a row for every folder of src/, and no row for a folder that is gone', () => {
    expect([...new Set(rows)].sort()).toEqual(folders.sort());
  });

  it('draws the data flow through the folders in the order the code runs', () => {
    const diagram = doc.split('```')[1] ?? '';
    const order = ['src/ingest', 'src/queue', 'src/encode', 'src/upload', 'src/api'].map((f) => diagram.indexOf(f));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });
});

describe('docs/ARCHITECTURE.md: the import ranks', () => {
  it('lists the ranks of eslint.boundaries.js, in order', async () => {
    const { RANKS } = await import('../../eslint.boundaries.js');
    const doc = readFileSync(path.join(REPO_ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
    const table = [...doc.matchAll(/^\| (\d+) \| ((?:`[^`]+`(?:, )?)+) \|/gm)].map((m) => ({
      rank: Number(m[1]),
      folders: [...m[2].matchAll(/`([^`]+)`/g)].map((f) => f[1]),
    }));
    expect(table.map((r) => r.rank)).toEqual(RANKS.map((_, i) => i + 1));
    expect(table.map((r) => r.folders)).toEqual(RANKS);
  });
});

describe('docs/ARCHITECTURE.md: the packages', () => {
  it('names each package folder with its package.json name, and says which a station installs', () => {
    const doc = readFileSync(path.join(REPO_ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z]+)\/` \| ([^|]+) \| [^|]+ \| (yes|no)\b/gm)].map((m) => ({ folder: m[1], pkg: m[2].trim(), station: m[3] }));
    expect(rows.map((r) => r.folder)).toEqual(['src', 'emulator', 'demo', 'bench']);
    const root = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; workspaces: string[]; files: string[] };
    for (const row of rows) {
      const own = row.folder === 'src' ? root.name : root.workspaces.includes(row.folder) ? (JSON.parse(readFileSync(path.join(REPO_ROOT, row.folder, 'package.json'), 'utf8')) as { name: string }).name : null;
      if (own) expect(row.pkg, row.folder).toContain(`\`${own}\``);
      // A station installs the root package's files: dist/ of src, never a workspace.
      expect(row.station, row.folder).toBe(row.folder === 'src' ? 'yes' : 'no');
    }
  });
});
