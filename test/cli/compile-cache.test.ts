import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../helpers/cli.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';

/**
 * The package's executable (bin/station-agent) under systemd keeps Node's compile cache in
 * the state directory (STATE_DIRECTORY, which the units' StateDirectory= sets): made 0700
 * at the first start, read at the next; a stale or unusable one never stops the agent.
 */
const BIN = path.join(REPO_ROOT, 'bin/station-agent');

let tmp: ReturnType<typeof tempDir>;
let version: string;
beforeAll(async () => {
  await buildCli();
  tmp = tempDir('station-agent-compile-cache-');
  version = (JSON.parse((await import('node:fs')).readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}, 300_000);
afterAll(() => tmp?.cleanup());

function agentVersion(env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, '--version'], { env: { PATH: process.env.PATH, ...env } }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve({ stdout, stderr }),
    );
  });
}

/** Every file under `dir`. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe('the compile cache', () => {
  it('is made 0700 in the state directory at the first start, filled, and used at the next', async () => {
    const state = path.join(tmp.dir, 'state');
    mkdirSync(state, { mode: 0o700 });
    expect(await agentVersion({ STATE_DIRECTORY: state })).toEqual({ stdout: `${version}\n`, stderr: '' });
    const cache = path.join(state, 'compile-cache');
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    expect(statSync(cache).uid).toBe(process.getuid?.());
    const written = files(cache);
    expect(written.length).toBeGreaterThan(0);
    const mtimes = written.map((f) => statSync(f).mtimeMs);
    expect(await agentVersion({ STATE_DIRECTORY: state })).toEqual({ stdout: `${version}\n`, stderr: '' });
    // Read, not written again: the same entries.
    expect(files(cache).map((f) => statSync(f).mtimeMs)).toEqual(mtimes);
  });

  it('a stale or damaged entry is compiled again; a cache that cannot be made or written is done without', async () => {
    const state = path.join(tmp.dir, 'stale');
    mkdirSync(state, { mode: 0o700 });
    await agentVersion({ STATE_DIRECTORY: state });
    for (const f of files(path.join(state, 'compile-cache'))) writeFileSync(f, 'not a code cache');
    expect(await agentVersion({ STATE_DIRECTORY: state })).toEqual({ stdout: `${version}\n`, stderr: '' });

    // A state directory that is missing, one whose compile-cache is a file, one that cannot be written.
    const blocked = path.join(tmp.dir, 'blocked');
    mkdirSync(blocked);
    writeFileSync(path.join(blocked, 'compile-cache'), '');
    const readOnly = path.join(tmp.dir, 'read-only');
    mkdirSync(readOnly, { mode: 0o500 });
    chmodSync(readOnly, 0o500);
    for (const dir of [path.join(tmp.dir, 'missing'), blocked, readOnly, '/proc/1']) {
      expect(await agentVersion({ STATE_DIRECTORY: dir }), dir).toEqual({ stdout: `${version}\n`, stderr: '' });
    }
    expect(existsSync(path.join(tmp.dir, 'missing'))).toBe(false);
  });

  it('without STATE_DIRECTORY (an operator\'s command) writes nothing', async () => {
    const home = path.join(tmp.dir, 'home');
    mkdirSync(home);
    expect(await agentVersion({ HOME: home })).toEqual({ stdout: `${version}\n`, stderr: '' });
    expect(readdirSync(home)).toEqual([]);
  });
});
