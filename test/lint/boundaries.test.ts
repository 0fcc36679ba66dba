import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { RANKS } from '../../eslint.boundaries.js';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * The package boundaries in eslint.boundaries.js, proved to fire: a forbidden import,
 * linted as if it were in an existing file of each package, is an error, and an allowed
 * one is not. Without this, a pattern that stopped matching would pass silently.
 */
const eslint = new ESLint({ cwd: REPO_ROOT });

async function ruleErrors(rule: string, file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${REPO_ROOT}/${file}` });
  return result.messages.filter((m) => m.ruleId === rule).map((m) => m.message);
}
const boundaryErrors = (file: string, code: string) => ruleErrors('no-restricted-imports', file, code);

/** An existing file of a `src/` folder (or the top-level file itself), to lint text as if it were there. */
function fileOf(folder: string): string | null {
  if (folder.endsWith('.ts')) return existsSync(path.join(REPO_ROOT, 'src', folder)) ? `src/${folder}` : null;
  const dir = path.join(REPO_ROOT, 'src', folder);
  if (!existsSync(dir)) return null;
  const file = readdirSync(dir).find((f) => f.endsWith('.ts'));
  return file ? `src/${folder}/${file}` : null;
}

/** A specifier from `file` to `folder`'s entry (a folder's index.js or any of its files). */
function specifierTo(file: string, folder: string): string {
  const target = folder.endsWith('.ts') ? `src/${folder.replace(/\.ts$/, '.js')}` : `src/${folder}/index.js`;
  const rel = path.relative(path.dirname(file), target);
  return rel.startsWith('.') ? rel : `./${rel}`;
}

const use = (specifier: string) => `import * as m from '${specifier}';\nexport const used = m;\n`;

describe('package boundaries', () => {
  it('keep the agent from importing the local service, the demo or the benchmark', async () => {
    for (const specifier of ['../../../emulator/src/index.js', '../../demo/src/run-demo.js', '../bench/src/main.js', '@station-agent/emulator']) {
      expect(await boundaryErrors('src/cli/commands/emulator.ts', use(specifier)), specifier).toHaveLength(1);
    }
    expect(await boundaryErrors('src/cli/commands/emulator.ts', use('./support/options.js'))).toEqual([]);
  }, 120_000);

  it('keep the local service inside src/wire/ of the agent', async () => {
    expect(await boundaryErrors('emulator/src/options.ts', use('../../src/config/index.js'))).toHaveLength(1);
    expect(await boundaryErrors('emulator/src/options.ts', use('../../demo/src/index.js'))).toHaveLength(1);
    expect(await boundaryErrors('emulator/src/options.ts', use('../../src/wire/types.js'))).toEqual([]);
  }, 120_000);

  it('keep the wire module to node built-ins and itself', async () => {
    expect(await boundaryErrors('src/wire/types.ts', use('../errors.js'))).toHaveLength(1);
    expect(await boundaryErrors('src/wire/types.ts', use('zod'))).toHaveLength(1);
    expect(await boundaryErrors('src/wire/types.ts', use('node:crypto'))).toEqual([]);
  }, 120_000);

  it('keep each folder of the agent to its own rank and below (RANKS)', async () => {
    const folders = RANKS.map((rank, i) => rank.map((folder) => ({ folder, i }))).flat();
    let checked = 0;
    for (const { folder, i } of folders) {
      const file = fileOf(folder);
      // src/wire/ has a stricter rule of its own (node built-ins and itself only), tested above.
      if (!file || i === 0 || folder === 'wire') continue;
      // The nearest folder above, and one of its own rank or the one below: one error, then none.
      const above = RANKS.slice(0, i)
        .flat()
        .reverse()
        .find((f) => fileOf(f) !== null)!;
      const below = [...RANKS[i], ...(RANKS[i + 1] ?? [])].find((f) => f !== folder && fileOf(f) !== null) ?? 'errors.ts';
      const code = `${use(specifierTo(file, above))}import * as n from '${specifierTo(file, below)}';\nexport const other = n;\n`;
      const errors = await boundaryErrors(file, code);
      expect(errors, `${file} importing ${above} and ${below}`).toHaveLength(1);
      expect(errors[0]).toContain(`src/${folder} is ranked below`);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(14);
  }, 300_000);

  it('open SQLite files only through src/system/sqlite.ts (better-sqlite3 elsewhere for its types)', async () => {
    const opens = "import Database from 'better-sqlite3';\nexport const open = (f: string) => new Database(f);\n";
    expect(await ruleErrors('no-restricted-syntax', 'src/queue/db.ts', opens)).toHaveLength(1);
    expect(await ruleErrors('no-restricted-syntax', 'src/queue/db.ts', "import type Database from 'better-sqlite3';\nexport type Db = Database.Database;\n")).toEqual([]);
    expect(await ruleErrors('no-restricted-syntax', 'src/system/sqlite.ts', opens)).toEqual([]);
  }, 120_000);

  it('refuse a circle in the import graph', async () => {
    // src/queue/index.ts re-exports db.ts: db.ts importing the index back closes a circle.
    expect(await ruleErrors('import-x/no-cycle', 'src/queue/db.ts', use('./index.js'))).toHaveLength(1);
    expect(await ruleErrors('import-x/no-cycle', 'src/queue/db.ts', use('./errors.js'))).toEqual([]);
  }, 120_000);
});
