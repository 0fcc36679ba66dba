import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../helpers/cli.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';

/**
 * What a station gets: bin/install run into a temporary root (from this tree, with its
 * node_modules copied and pruned, as `--copy-node-modules` does offline) holds the agent
 * alone. None of the local service's server stack (an HTTP server framework, the GraphQL
 * implementation) and none of the emulator, demo or benchmark code is installed; the
 * development-only commands say how to get them.
 */

interface Manifest {
  dependencies?: Record<string, string>;
}

const readManifest = (file: string) => JSON.parse(readFileSync(path.join(REPO_ROOT, file), 'utf8')) as Manifest;

/** The local service's own dependencies: those of its package that the agent does not share. */
function serverDependencies(): string[] {
  const agent = new Set(Object.keys(readManifest('package.json').dependencies ?? {}));
  return Object.keys(readManifest('emulator/package.json').dependencies ?? {}).filter((name) => !agent.has(name));
}

/** Every path under `dir` (relative), node_modules left out. */
function codePaths(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules') return [];
    const rel = path.join(prefix, entry.name);
    return entry.isDirectory() ? [rel, ...codePaths(path.join(dir, entry.name), rel)] : [rel];
  });
}

describe('a station install', () => {
  const temp = tempDir('station-agent-contents-');
  const code = (...parts: string[]) => path.join(temp.dir, 'opt/station-agent', ...parts);
  const cli = (args: string[]) => spawnSync(process.execPath, [code('bin/station-agent'), ...args], { encoding: 'utf8' });

  beforeAll(async () => {
    await buildCli();
    const result = spawnSync(
      path.join(REPO_ROOT, 'bin/install'),
      ['--root', temp.dir, '--no-systemctl', '--copy-node-modules', '--no-build'],
      { encoding: 'utf8', timeout: 180_000 },
    );
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  }, 600_000);
  afterAll(() => temp.cleanup());

  it('holds none of the local service server dependencies', () => {
    const names = serverDependencies();
    // The list is derived, so a new server dependency is covered too; these must be among it.
    expect(names).toEqual(expect.arrayContaining(['fastify', '@fastify/formbody', 'graphql']));
    for (const name of [...names, 'find-my-way', 'avvio', 'light-my-request']) {
      expect(existsSync(code('node_modules', name)), `node_modules/${name}`).toBe(false);
    }
    expect(existsSync(code('node_modules/@fastify')), 'node_modules/@fastify').toBe(false);
    expect(existsSync(code('node_modules/@station-agent')), 'node_modules/@station-agent').toBe(false);
    // What the agent itself runs is there.
    expect(existsSync(code('node_modules/better-sqlite3/package.json'))).toBe(true);
  });

  it('holds no emulator, demo or benchmark code', () => {
    const paths = codePaths(code());
    expect(paths).toContain(path.join('dist', 'cli', 'main.js'));
    const foreign = paths.filter((p) => p.split(path.sep).some((part) => ['emulator', 'demo', 'bench'].includes(part)));
    expect(foreign).toEqual([]);
  });

  it('runs the agent, and says how to get the local service and the demo', () => {
    const version = cli(['--version']);
    expect(version.status, version.stderr).toBe(0);
    for (const command of ['emulator', 'demo']) {
      const result = cli([command]);
      expect(result.status, result.stderr).toBe(1);
      expect(result.stderr).toContain('a station does not install');
      expect(result.stderr).toContain(`npm run ${command}`);
      expect(result.stderr).toContain('development checkout');
      expect(result.stderr).not.toMatch(/https?:\/\//);
    }
  });
});
