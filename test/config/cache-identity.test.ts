import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_CACHE_FILE, VALIDATION_IDENTITY_FILE } from '../../src/config/cache.js';
import { buildCli } from '../helpers/cli.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { minimalConfig, writeConfig } from './config-files.js';

/**
 * The config cache trusts an entry only when the same code validated it (src/config/cache.ts,
 * schemaIdentity): a build whose rules differ (here a range tightened in wire/types, a module
 * the schema imports, not the schema's own file) validates a cached config again, and refuses
 * it when its rules do. Run on a copy of the build, as a station runs one.
 */
const TOKEN = 'tok-identity-3b7f09c1d4';
const SCRIPT = `
const { loadConfig } = await import(process.argv[1]);
try {
  const loaded = await loadConfig({ path: process.argv[2], env: {} });
  console.log(JSON.stringify({ minConfidence: loaded.config.station.settings.minConfidence }));
} catch (err) {
  console.log(JSON.stringify({ code: err.code, problems: err.problems }));
}`;

let tmp: ReturnType<typeof tempDir>;
beforeAll(async () => {
  await buildCli();
  tmp = tempDir('station-agent-cache-identity-');
}, 300_000);
afterAll(() => tmp?.cleanup());

function load(root: string, file: string): Promise<{ minConfidence?: number; code?: string; problems?: string[] }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', SCRIPT, path.join(root, 'dist/config/load.js'), file], (err, out, errOut) =>
      err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(JSON.parse(out) as { minConfidence?: number }),
    );
  });
}

/** The build's own step, as `npm run build` runs it after tsc. */
function identityStep(dist: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(REPO_ROOT, 'scripts/validation-identity.mjs'), dist], (err, _out, errOut) =>
      err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(),
    );
  });
}

describe('the config cache across builds', () => {
  it('the build names every module validation runs, and the packages it imports', () => {
    const written = JSON.parse(readFileSync(path.join(REPO_ROOT, 'dist/config', VALIDATION_IDENTITY_FILE), 'utf8')) as {
      identity: string;
      modules: string[];
      packages: string[];
    };
    expect(written.identity).toMatch(/^[0-9a-f]{64}$/);
    expect(written.modules).toEqual(
      expect.arrayContaining(['config/validate.js', 'config/validate-child.js', 'config/schema.js', 'wire/types.js', 'config/time-range.js', 'config/data-dir.js', 'config/env.js', 'config/merge.js']),
    );
    expect(written.packages.some((p) => p.startsWith('zod@'))).toBe(true);
  });

  it('a build with a rule changed outside the schema\'s file does not use the entry the old build cached', async () => {
    const root = path.join(tmp.dir, 'station');
    mkdirSync(root);
    cpSync(path.join(REPO_ROOT, 'dist'), path.join(root, 'dist'), { recursive: true });
    cpSync(path.join(REPO_ROOT, 'package.json'), path.join(root, 'package.json'));
    symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'));
    const dataDir = path.join(tmp.dir, 'data');
    mkdirSync(dataDir);
    const c = minimalConfig();
    const file = writeConfig(tmp.dir, { ...c, dataDir, service: { ...c.service, token: TOKEN }, station: { ...c.station, settings: { minConfidence: 0.4 } } });

    expect(await load(root, file)).toEqual({ minConfidence: 0.4 });
    expect(existsSync(path.join(dataDir, CONFIG_CACHE_FILE))).toBe(true);
    // The same build again: the cached entry.
    expect(await load(root, file)).toEqual({ minConfidence: 0.4 });

    // The next build: station.settings.minConfidence's range tightened to [0.5, 1] where the schema takes it from.
    const types = path.join(root, 'dist/wire/types.js');
    const source = readFileSync(types, 'utf8');
    expect(source).toContain('minConfidence: [0.35, 1.0]');
    writeFileSync(types, source.replace('minConfidence: [0.35, 1.0]', 'minConfidence: [0.5, 1.0]'));
    await identityStep(path.join(root, 'dist'));

    const refused = await load(root, file);
    expect(refused.code).toBe('ERR_CONFIG_INVALID');
    expect(refused.problems?.join('\n')).toContain('station.settings.minConfidence');
  }, 120_000);
});
