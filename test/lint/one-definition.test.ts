import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths.js';

/** Every `.ts` file of `src/`, relative to the repository. */
function sourceFiles(dir = path.join(REPO_ROOT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.relative(REPO_ROOT, path.join(dir, e.name))] : [],
  );
}

/**
 * One truth per concept (shared/STYLE.md): a helper that keeps being copied into the module
 * that needs it has one home, and the copies are found here by what they are written as.
 */
describe('helpers with one home', () => {
  it('tells a JSON object from an array or null in src/wire/json-object.ts only', () => {
    const test = /typeof (\w+) === 'object' && \1 !== null && !Array\.isArray\(\1\)/;
    const where = sourceFiles().filter((f) => test.test(readFileSync(path.join(REPO_ROOT, f), 'utf8')));
    expect(where).toEqual(['src/wire/json-object.ts']);
  });
});
