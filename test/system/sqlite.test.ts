import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/system/sqlite.js';
import { buildCli } from '../helpers/cli.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('station-agent-sqlite-'));
});
afterEach(() => cleanup());

describe('openSqlite', () => {
  it('opens a real database file, with the options it is given', () => {
    const file = path.join(dir, 'a.db');
    const db = openSqlite(file);
    db.exec('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (42)');
    db.close();
    const again = openSqlite(file, { readonly: true, fileMustExist: true });
    expect(again.readonly).toBe(true);
    expect(again.prepare('SELECT x FROM t').pluck().get()).toBe(42);
    again.close();
    expect(() => openSqlite(path.join(dir, 'absent.db'), { fileMustExist: true })).toThrow();
  });
});

/**
 * In a process of its own, as a station runs it (tsc's module under dist/): the addon is
 * loaded from the file the module names (the package's prebuilt one: nothing was compiled),
 * and no `bindings` package is loaded.
 */
describe('openSqlite in a process of its own', () => {
  beforeAll(async () => {
    await buildCli();
  }, 180_000);

  it("loads better-sqlite3's prebuilt Node-API addon by its file, without the bindings package", () => {
    const sqlite = pathToFileURL(path.join(REPO_ROOT, 'dist/system/sqlite.js')).href;
    const script = `import { createRequire } from 'node:module';
      const { openSqlite } = await import(${JSON.stringify(sqlite)});
      const db = openSqlite(process.argv[1]);
      db.exec('CREATE TABLE t (x)');
      db.close();
      const cache = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({ addon: cache.filter((f) => f.endsWith('.node')), bindings: cache.some((f) => f.includes('/node_modules/bindings/')) }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, path.join(dir, 'b.db')], { encoding: 'utf8', timeout: 30_000 });
    expect(JSON.parse(out)).toEqual({ addon: [path.join(REPO_ROOT, `node_modules/better-sqlite3/prebuilds/${process.platform}-${process.arch}.node`)], bindings: false });
  });
});
