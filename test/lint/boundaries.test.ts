import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * The package boundaries in eslint.boundaries.js, proved to fire: a forbidden import,
 * linted as if it were in an existing file of each package, is an error, and an allowed
 * one is not. Without this, a pattern that stopped matching would pass silently.
 */
const eslint = new ESLint({ cwd: REPO_ROOT });

async function boundaryErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${REPO_ROOT}/${file}` });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
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
});
