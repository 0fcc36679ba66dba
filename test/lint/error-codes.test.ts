import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * docs/ARCHITECTURE.md's error-code table against the code: every stable `code` an error
 * class of `src/` declares has its row (a `ERR_X*` row covers a family), and every row
 * names a class that exists and declares that code. An operator reads the code in a log
 * line or a `--json` error and looks it up there.
 */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

describe('docs/ARCHITECTURE.md: the error codes', () => {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const section = doc.split('## Error codes')[1]?.split('\n## ')[0] ?? '';
  const rows = [...section.matchAll(/^\| `(ERR_[A-Z_]+\*?)` \| (?:`(\w+)`|\(([^)]*)\)) \|/gm)].map((m) => ({ code: m[1], cls: m[2] }));
  const code = sources(path.join(REPO_ROOT, 'src'))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  // Codes declared by classes (`readonly code = 'ERR_X'`) and by the code unions of classes
  // with several (`type QueueErrorCode = 'ERR_QUEUE' | ...`).
  const codesIn = (text: string) => [...text.matchAll(/'(ERR_[A-Z_]+)'/g)].map((m) => m[1]);
  const unions = new Map([...code.matchAll(/type (\w+ErrorCode) =([^;]+);/g)].map((m) => [m[1], codesIn(m[2])]));
  const classCodes = (cls: string): string[] => {
    const body = new RegExp(`class ${cls}\\b[^{]*\\{([\\s\\S]*?)\\n\\}`).exec(code)?.[1] ?? '';
    const own = /readonly code = '(ERR_[A-Z_]+)'/.exec(body)?.[1];
    const union = /readonly code: (\w+ErrorCode)/.exec(body)?.[1];
    return own ? [own] : union ? (unions.get(union) ?? []) : [];
  };
  const declared = new Set([...[...code.matchAll(/readonly code = '(ERR_[A-Z_]+)'/g)].map((m) => m[1]), ...[...unions.values()].flat()]);

  it('reads the table', () => {
    expect(rows.length).toBeGreaterThan(10);
  });

  it('has a row for every code an error class declares', () => {
    const covered = (c: string) => rows.some((r) => (r.code.endsWith('*') ? c.startsWith(r.code.slice(0, -1)) : r.code === c));
    expect([...declared].filter((c) => !covered(c)).sort()).toEqual([]);
  });

  it('names, in each row, a class of src/ that declares the code', () => {
    const wrong = rows
      .filter((r) => r.cls !== undefined)
      .filter((r) => {
        const codes = classCodes(r.cls);
        return r.code.endsWith('*') ? !codes.some((c) => c.startsWith(r.code.slice(0, -1))) : !codes.includes(r.code);
      })
      .map((r) => `${r.code} ${r.cls}`);
    expect(wrong).toEqual([]);
  });
});
