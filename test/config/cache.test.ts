import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, constants, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_CACHE_FILE, configCacheKey, entryDigest, schemaIdentity, type ConfigCacheEntry } from '../../src/config/cache.js';
import { ConfigError } from '../../src/config/errors.js';
import { loadConfig } from '../../src/config/load.js';
import { tempDir } from '../helpers/paths.js';
import { minimalConfig, writeConfig, type ConfigObject } from './config-files.js';

/**
 * The validated config of the last start, kept in dataDir (src/config/cache.ts): a start
 * whose inputs did not change skips the schema, and gets exactly what validation gives;
 * any change of the inputs validates again, and the token is never written down.
 */
const TOKEN = 'tok-cache-5d81e3a9c2';

let dir: string;
let dataDir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('station-agent-config-cache-'));
  dataDir = path.join(dir, 'data');
  mkdirSync(dataDir);
});
afterEach(() => cleanup());

const cacheFile = () => path.join(dataDir, CONFIG_CACHE_FILE);
function config(extra: Partial<ConfigObject> = {}): ConfigObject {
  const c = minimalConfig();
  return { ...c, ...extra, dataDir, service: { ...c.service, token: TOKEN, ...(extra.service ?? {}) } };
}

describe('the config cache', () => {
  it('gives a second load exactly what validation gave, and writes no token', async () => {
    const file = writeConfig(dir, config({ upload: { windows: ['22:00-06:00'] } }));
    const first = await loadConfig({ path: file, env: {} });
    const entry = readFileSync(cacheFile(), 'utf8');
    expect(statSync(cacheFile()).mode & 0o777).toBe(0o600);
    expect(entry).not.toContain(TOKEN);
    const second = await loadConfig({ path: file, env: {} });
    expect(second).toEqual(first);
    expect(second.config.service.token).toBe(TOKEN);
    // The hit wrote nothing.
    expect(readFileSync(cacheFile(), 'utf8')).toBe(entry);
  });

  it('validates again when the entry was made by another schema: a key the schema added since comes with its default', async () => {
    const file = writeConfig(dir, config());
    await loadConfig({ path: file, env: {} });
    const entry = JSON.parse(readFileSync(cacheFile(), 'utf8')) as { schema: string; config: { upload: Record<string, unknown> } };
    expect(entry.schema).toBe(await schemaIdentity());
    expect(entry.schema).toMatch(/^[0-9a-f]{64}$/);
    // What an earlier build of the same version left: its schema had no upload.flacCompressionLevel.
    delete entry.config.upload.flacCompressionLevel;
    entry.schema = 'the schema of an earlier build';
    writeFileSync(cacheFile(), JSON.stringify(entry), { mode: 0o600 });
    expect((await loadConfig({ path: file, env: {} })).config.upload.flacCompressionLevel).toBe(0);
    // Written again for this schema.
    expect(JSON.parse(readFileSync(cacheFile(), 'utf8'))).toMatchObject({ schema: await schemaIdentity(), config: { upload: { flacCompressionLevel: 0 } } });
  });

  it('validates again when the file, the environment or a flag changes', async () => {
    const file = writeConfig(dir, config({ upload: { concurrency: 2 } }));
    expect((await loadConfig({ path: file, env: {} })).config.upload.concurrency).toBe(2);
    writeConfig(dir, config({ upload: { concurrency: 3 } }));
    expect((await loadConfig({ path: file, env: {} })).config.upload.concurrency).toBe(3);
    expect((await loadConfig({ path: file, env: { STATION_AGENT_UPLOAD_CONCURRENCY: '4' } })).config.upload.concurrency).toBe(4);
    expect((await loadConfig({ path: file, env: {}, overrides: { upload: { concurrency: 5 } } })).config.upload.concurrency).toBe(5);
    // An invalid change is refused like any invalid config, whatever was cached.
    writeConfig(dir, config({ upload: { concurrency: 99 } }));
    await expect(loadConfig({ path: file, env: {} })).rejects.toBeInstanceOf(ConfigError);
  });

  it('takes the token from its source at every load: a changed token file or inline token is used, a bad one refused', async () => {
    const tokenFile = path.join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const c = config();
    delete c.service.token;
    const file = writeConfig(dir, { ...c, service: { ...c.service, tokenFile } });
    expect((await loadConfig({ path: file, env: {} })).config.service.token).toBe(TOKEN);
    writeFileSync(tokenFile, 'tok-new-0a1b2c3d\n');
    chmodSync(tokenFile, 0o644);
    const reloaded = await loadConfig({ path: file, env: {} });
    expect(reloaded.config.service.token).toBe('tok-new-0a1b2c3d');
    expect(reloaded.warnings.join(' ')).toMatch(/service\.tokenFile/); // readable by others now: checked again

    const inline = writeConfig(dir, config(), 0o600, 'inline.json');
    expect((await loadConfig({ path: inline, env: {} })).config.service.token).toBe(TOKEN);
    writeConfig(dir, config({ service: { token: 'tok-other-99aa77' } }), 0o600, 'inline.json');
    expect((await loadConfig({ path: inline, env: {} })).config.service.token).toBe('tok-other-99aa77');
    writeConfig(dir, config({ service: { token: 'has white space' } }), 0o600, 'inline.json');
    await expect(loadConfig({ path: inline, env: {} })).rejects.toThrow(/service\.token must not contain white space/);

    const fromEnv = await loadConfig({ path: file, env: { STATION_AGENT_TOKEN: 'tok-env-1234abcd' } });
    expect(fromEnv.config.service.token).toBe('tok-env-1234abcd');
    expect((await loadConfig({ path: file, env: { STATION_AGENT_TOKEN: 'tok-env-5678efgh' } })).config.service.token).toBe('tok-env-5678efgh');
    for (const name of readdirSync(dataDir)) {
      const text = readFileSync(path.join(dataDir, name), 'utf8');
      for (const token of [TOKEN, 'tok-new-0a1b2c3d', 'tok-other-99aa77', 'tok-env-1234abcd', 'tok-env-5678efgh']) expect(text).not.toContain(token);
    }
  });

  it('checks the folders at every load: dataDir moved inside input.dir is refused though the file is unchanged', async () => {
    const input = path.join(dir, 'input');
    mkdirSync(input);
    const file = writeConfig(dir, config({ input: { dir: input } }));
    await loadConfig({ path: file, env: {} });
    // dataDir becomes a link into the input folder: only the real paths say so.
    const { renameSync, symlinkSync } = await import('node:fs');
    renameSync(dataDir, path.join(input, 'data'));
    symlinkSync(path.join(input, 'data'), dataDir);
    await expect(loadConfig({ path: file, env: {} })).rejects.toThrow(/inside/);
  });

  it('is not used with cache: false (config validate, doctor)', async () => {
    const file = writeConfig(dir, config());
    await loadConfig({ path: file, env: {} });
    // A cache entry that lies (with its digest, as the agent would have written it) is believed
    // only by a load that uses the cache.
    const entry = JSON.parse(readFileSync(cacheFile(), 'utf8')) as ConfigCacheEntry & { config: { upload: { concurrency: number } } };
    entry.config.upload.concurrency = 7;
    writeFileSync(cacheFile(), JSON.stringify({ ...entry, digest: entryDigest(entry) }));
    expect((await loadConfig({ path: file, env: {} })).config.upload.concurrency).toBe(7);
    expect((await loadConfig({ path: file, env: {}, cache: false })).config.upload.concurrency).not.toBe(7);
  });

  it('a cache file swapped for a FIFO is passed over (validated again), never waited on', async () => {
    const file = writeConfig(dir, config());
    execFileSync('mkfifo', [cacheFile()]);
    try {
      const loaded = await loadConfig({ path: file, env: {} });
      expect(loaded.config.service.token).toBe(TOKEN);
    } finally {
      // Before the fix a read of the FIFO held a libuv thread until a writer came: end it.
      try {
        closeSync(openSync(cacheFile(), constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // ENXIO: nobody reads it
      }
    }
  });

  it('does not trust an entry edited by hand: the config is validated again, and the entry written anew', async () => {
    const file = writeConfig(dir, config({ upload: { concurrency: 2 } }));
    await loadConfig({ path: file, env: {} });
    const entry = JSON.parse(readFileSync(cacheFile(), 'utf8')) as { digest: string; config: { upload: { concurrency: number } } };
    expect(entry.digest).toMatch(/^[0-9a-f]{64}$/);
    // An operator "fixes" the cached copy instead of the config (99 is beyond the schema's range).
    entry.config.upload.concurrency = 99;
    writeFileSync(cacheFile(), JSON.stringify(entry), { mode: 0o600 });
    expect((await loadConfig({ path: file, env: {} })).config.upload.concurrency).toBe(2);
    expect((JSON.parse(readFileSync(cacheFile(), 'utf8')) as typeof entry).config.upload.concurrency).toBe(2);
    // A torn entry (cut short) is no entry either.
    writeFileSync(cacheFile(), readFileSync(cacheFile(), 'utf8').slice(0, 100), { mode: 0o600 });
    expect((await loadConfig({ path: file, env: {} })).config.upload.concurrency).toBe(2);
  });
});

describe('the config cache key', () => {
  const inputs = (localtime: string) => ({ file: null, fileValues: null, env: {}, overrides: undefined, cwd: dir, localtime });

  it('changes with the system zone when /etc/localtime is a regular file (a copy of the zone file), not a link', async () => {
    const berlin = readFileSync('/usr/share/zoneinfo/Europe/Berlin');
    const tokyo = readFileSync('/usr/share/zoneinfo/Asia/Tokyo');
    const localtime = path.join(dir, 'localtime');
    writeFileSync(localtime, berlin);
    const inBerlin = await configCacheKey(inputs(localtime));
    expect(await configCacheKey(inputs(localtime))).toBe(inBerlin);
    writeFileSync(localtime, tokyo);
    expect(await configCacheKey(inputs(localtime))).not.toBe(inBerlin);
    // As a link, by where it points.
    const link = path.join(dir, 'localtime-link');
    symlinkSync('/usr/share/zoneinfo/Europe/Berlin', link);
    const linked = await configCacheKey(inputs(link));
    rmSync(link);
    symlinkSync('/usr/share/zoneinfo/Asia/Tokyo', link);
    expect(await configCacheKey(inputs(link))).not.toBe(linked);
  });
});
