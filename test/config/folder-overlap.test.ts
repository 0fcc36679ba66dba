import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { folderOverlapProblem } from '../../src/config/folder-overlap.js';
import { tempDir } from '../helpers/paths.js';

const tmp = tempDir('folder-overlap-');
afterAll(() => tmp.cleanup());
const at = (...p: string[]) => path.join(tmp.dir, ...p);

describe('folderOverlapProblem (dataDir and input.dir)', () => {
  it('accepts folders side by side, existing or not', async () => {
    mkdirSync(at('input'));
    expect(await folderOverlapProblem(at('data'), at('input'))).toBeNull();
    // A common prefix is not nesting.
    expect(await folderOverlapProblem(at('input-data'), at('input'))).toBeNull();
  });

  it('refuses dataDir inside input.dir, the reverse, and the same folder, naming both keys', async () => {
    expect(await folderOverlapProblem(at('input', 'agent'), at('input'))).toMatch(/^dataDir must not be inside input\.dir: dataDir .*input\/agent and input\.dir .*input; /);
    expect(await folderOverlapProblem(at('data'), at('data', 'in'))).toMatch(/^input\.dir must not be inside dataDir: dataDir .* and input\.dir /);
    expect(await folderOverlapProblem(at('input'), `${at('input')}/`)).toMatch(/^dataDir must not be input\.dir/);
  });

  it('compares real paths: through a symlink and `..`, showing the resolved path', async () => {
    mkdirSync(at('real'));
    symlinkSync(at('real'), at('linked'));
    const problem = await folderOverlapProblem(at('linked', 'not-yet', 'data'), at('real'));
    expect(problem).toContain(`dataDir ${at('linked', 'not-yet', 'data')} (${at('real', 'not-yet', 'data')})`);
    expect(await folderOverlapProblem(at('input', '..', 'real', 'x'), at('linked'))).toMatch(/^dataDir must not be inside input\.dir/);
  });
});
