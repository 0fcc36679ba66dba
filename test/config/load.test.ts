import { existsSync, mkdirSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { DEFAULT_CONFIG_PATH, loadConfig, requireToken, type LoadConfigOptions } from '../../src/config/load.js';
import { tempDir } from '../helpers/paths.js';
import { minimalConfig, writeConfig } from './config-files.js';

const TOKEN = 'tok-3f9a7c21e8b4';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('station-agent-config-'));
});
afterEach(() => cleanup());

async function loadError(options: LoadConfigOptions): Promise<ConfigError> {
  try {
    await loadConfig(options);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected loadConfig to throw');
}

describe('loadConfig: where the file is', () => {
  it('reads the file given as path, and reports no warnings for a clean setup', async () => {
    const file = writeConfig(dir, minimalConfig());
    const loaded = await loadConfig({ path: file, env: {} });
    expect(loaded.path).toBe(file);
    expect(loaded.config.station.latitude).toBe(52.52);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.tokenSource).toBeNull();
  });

  it('falls back to STATION_AGENT_CONFIG', async () => {
    const file = writeConfig(dir, minimalConfig());
    const loaded = await loadConfig({ env: { STATION_AGENT_CONFIG: file } });
    expect(loaded.path).toBe(file);
  });

  it('refuses a named file that does not exist, naming where the name came from', async () => {
    const missing = path.join(dir, 'nope.json');
    const fromArg = await loadError({ path: missing, env: {} });
    expect(fromArg.message).toBe(`invalid configuration (config file ${missing}): the file does not exist`);
    const fromEnv = await loadError({ env: { STATION_AGENT_CONFIG: missing } });
    expect(fromEnv.problems).toEqual(['the file does not exist (named by STATION_AGENT_CONFIG)']);
  });

  it.skipIf(existsSync(DEFAULT_CONFIG_PATH))('says clearly when the default file does not exist', async () => {
    const loaded = await loadConfig({
      env: {
        STATION_AGENT_BASE_URL: 'http://127.0.0.1:8080',
        STATION_AGENT_STATION_LATITUDE: '1',
        STATION_AGENT_STATION_LONGITUDE: '2',
        STATION_AGENT_INPUT_DIR: '/srv/out',
      },
    });
    expect(loaded.path).toBeNull();
    expect(loaded.warnings).toEqual([
      `no config file at ${DEFAULT_CONFIG_PATH} (set STATION_AGENT_CONFIG or pass a path to use another); using defaults, environment and flags only`,
    ]);
    const error = await loadError({ env: {} });
    expect(error.message).toBe(
      `invalid configuration (no config file at ${DEFAULT_CONFIG_PATH}):\n` +
        '  - service.baseUrl is required\n  - station.latitude is required\n' +
        '  - station.longitude is required\n  - input.dir is required',
    );
  });

  it('locates a JSON syntax error by line and column without quoting the file', async () => {
    const text = `{\n  "service": { "baseUrl": "http://127.0.0.1:8080", "token": "${TOKEN}" }\n  "station": {}\n}\n`;
    const file = writeConfig(dir, text);
    const error = await loadError({ path: file, env: {} });
    expect(error.problems).toEqual(["the file is not valid JSON: expected ',' or '}', found character '\"' at line 3, column 3"]);
    expect(error.message).not.toContain(TOKEN);
  });

  it('refuses a file that holds no JSON object', async () => {
    const file = writeConfig(dir, '[1, 2]');
    expect((await loadError({ path: file, env: {} })).problems).toEqual(['the file must hold a JSON object ({ ... })']);
  });

  it('names the file in validation errors', async () => {
    const config = minimalConfig();
    config.input.dirr = '/x';
    const file = writeConfig(dir, config);
    const error = await loadError({ path: file, env: {} });
    expect(error.file).toBe(file);
    expect(error.message).toBe(`invalid configuration (config file ${file}): unknown key input.dirr (did you mean input.dir?)`);
  });
});

describe('loadConfig: precedence and environment', () => {
  it('layers defaults < file < environment < flags', async () => {
    const config = minimalConfig();
    config.upload = { concurrency: 2, probeIntervalSec: 30 };
    const file = writeConfig(dir, config);

    const fileOnly = await loadConfig({ path: file, env: {} });
    expect(fileOnly.config.upload).toMatchObject({ concurrency: 2, probeIntervalSec: 30, backoffBaseMs: 1000 });

    const env = { STATION_AGENT_UPLOAD_CONCURRENCY: '3', STATION_AGENT_LOG_LEVEL: 'debug' };
    const withEnv = await loadConfig({ path: file, env });
    expect(withEnv.config.upload).toMatchObject({ concurrency: 3, probeIntervalSec: 30 });
    expect(withEnv.config.log.level).toBe('debug');

    const withFlags = await loadConfig({
      path: file,
      env,
      overrides: { upload: { concurrency: 5, probeIntervalSec: undefined }, log: { level: undefined } },
    });
    expect(withFlags.config.upload).toMatchObject({ concurrency: 5, probeIntervalSec: 30 });
    expect(withFlags.config.log.level).toBe('debug');
  });

  it('reads environment values as JSON when the key takes it, else as text', async () => {
    const file = writeConfig(dir, minimalConfig());
    const loaded = await loadConfig({
      path: file,
      env: {
        STATION_AGENT_STATION_SETTINGS_NAME: '123',
        STATION_AGENT_STATION_SETTINGS_LOCATION_PRIVACY: 'true',
        STATION_AGENT_STATION_SETTINGS_MIN_SCORE: '3.5',
        STATION_AGENT_INPUT_LABELS: '/srv/labels.txt',
        STATION_AGENT_INPUT_MOVE_TO: 'null',
        STATION_AGENT_METRICS_LISTEN: '127.0.0.1:9464',
        STATION_AGENT_BASE_URL: 'http://localhost:9000/',
        STATION_AGENT_INPUT_FORMAT: '',
      },
    });
    expect(loaded.config.station.settings).toEqual({ name: '123', locationPrivacy: true, minScore: 3.5 });
    expect(loaded.config.input.labels).toBe('/srv/labels.txt');
    expect(loaded.config.input.moveTo).toBeNull();
    expect(loaded.config.input.format).toBe('auto');
    expect(loaded.config.metrics.listen).toBe('127.0.0.1:9464');
    expect(loaded.config.service.baseUrl).toBe('http://localhost:9000');
    expect(loaded.config.service.graphqlUrl).toBe('http://localhost:9000/graphql');
  });

  it('names the variable or flag a bad value came from', async () => {
    const file = writeConfig(dir, minimalConfig());
    const error = await loadError({
      path: file,
      env: { STATION_AGENT_UPLOAD_CONCURRENCY: '20', STATION_AGENT_INPUT_FORMAT: 'csv' },
      overrides: { station: { latitude: 91 } },
    });
    expect(error.problems).toEqual([
      'station.latitude must be between -90 and 90 (got 91) (from a command-line flag)',
      'input.format must be one of auto, results, analyzerpi (got a string) (from STATION_AGENT_INPUT_FORMAT)',
      'upload.concurrency must be between 1 and 16 (got 20) (from STATION_AGENT_UPLOAD_CONCURRENCY)',
    ]);
  });

  it('warns about unknown STATION_AGENT_ variables but not the admin token', async () => {
    const file = writeConfig(dir, minimalConfig());
    const loaded = await loadConfig({
      path: file,
      env: { STATION_AGENT_UPLOAD_CONCURENCY: '2', STATION_AGENT_ADMIN_TOKEN: 'admin-secret', OTHER: 'x' },
    });
    expect(loaded.warnings).toEqual([
      'environment variable STATION_AGENT_UPLOAD_CONCURENCY is not a config setting and is ignored',
    ]);
  });

  it('resolves relative paths in the file against its folder, from env and flags against cwd', async () => {
    const config = minimalConfig();
    config.input = { dir: 'output', labels: '../model/labels.txt' };
    config.dataDir = 'data';
    mkdirSync(path.join(dir, 'etc'));
    const file = writeConfig(path.join(dir, 'etc'), config);
    const cwd = path.join(dir, 'work');

    const loaded = await loadConfig({
      path: file,
      cwd,
      env: { STATION_AGENT_INPUT_MOVE_TO: 'done' },
      overrides: { input: { afterUpload: 'move' }, dataDir: 'spool' },
    });
    expect(loaded.config.input.dir).toBe(path.join(dir, 'etc', 'output'));
    expect(loaded.config.input.labels).toBe(path.join(dir, 'model', 'labels.txt'));
    expect(loaded.config.input.moveTo).toBe(path.join(cwd, 'done'));
    expect(loaded.config.dataDir).toBe(path.join(cwd, 'spool'));
  });

  it('warns about plain http to another host only', async () => {
    const config = minimalConfig();
    config.service.baseUrl = 'http://192.0.2.10:8080';
    const loaded = await loadConfig({ path: writeConfig(dir, config), env: {} });
    expect(loaded.warnings).toEqual([
      'service.baseUrl http://192.0.2.10:8080 is plain http to another host: the station token travels unencrypted in the URL path; use https://',
    ]);
  });
});

describe('loadConfig: the token', () => {
  it('takes service.token from the file, and warns when others can read the file', async () => {
    const config = minimalConfig();
    config.service.token = TOKEN;
    const tight = await loadConfig({ path: writeConfig(dir, config, 0o600), env: {} });
    expect(tight.config.service.token).toBe(TOKEN);
    expect(tight.tokenSource).toBe('file');
    expect(tight.warnings).toEqual([]);

    const file = writeConfig(dir, config, 0o644, 'loose.json');
    const loose = await loadConfig({ path: file, env: {} });
    expect(loose.warnings).toEqual([
      `config file ${file} holds the station token but other users can read it (mode 0644); run: chmod 600 ${file}`,
    ]);
  });

  it('does not warn about a readable config file without a token', async () => {
    const loaded = await loadConfig({ path: writeConfig(dir, minimalConfig(), 0o644), env: {} });
    expect(loaded.warnings).toEqual([]);
  });

  it('takes STATION_AGENT_TOKEN over the file, as text even when it looks like a number', async () => {
    const config = minimalConfig();
    config.service.token = 'from-file';
    const file = writeConfig(dir, config);
    const loaded = await loadConfig({ path: file, env: { STATION_AGENT_TOKEN: '12345' } });
    expect(loaded.config.service.token).toBe('12345');
    expect(loaded.tokenSource).toBe('env');
  });

  it('reads and trims a token file, and warns when others can read it', async () => {
    const tokenFile = path.join(dir, 'token');
    writeFileSync(tokenFile, `  ${TOKEN}\n`);
    chmodSync(tokenFile, 0o640);
    const config = minimalConfig();
    config.service.tokenFile = 'token';
    const loaded = await loadConfig({ path: writeConfig(dir, config), env: {} });
    expect(loaded.config.service.token).toBe(TOKEN);
    expect(loaded.config.service.tokenFile).toBe(tokenFile);
    expect(loaded.tokenSource).toBe('tokenFile');
    expect(loaded.warnings).toEqual([
      `service.tokenFile: other users can read the file (mode 0640); run: chmod 600 ${tokenFile}`,
    ]);
  });

  it('refuses a token file that is missing, empty or holds more than the token', async () => {
    const config = minimalConfig();
    const tokenFile = path.join(dir, 'token');
    config.service.tokenFile = tokenFile;
    const file = writeConfig(dir, config);
    expect((await loadError({ path: file, env: {} })).problems).toEqual([
      'service.tokenFile: the file does not exist (the path set there must name a file holding the secret, not the secret itself)',
    ]);
    writeFileSync(tokenFile, '\n', { mode: 0o600 });
    expect((await loadError({ path: file, env: {} })).problems).toEqual(['service.tokenFile: the file is empty']);
    writeFileSync(tokenFile, `${TOKEN}\nsecond line\n`);
    const error = await loadError({ path: file, env: {} });
    expect(error.problems).toEqual([
      'service.tokenFile: the file must hold the secret alone (it has white space inside)',
    ]);
    expect(error.message).not.toContain(TOKEN);
  });

  it('lets a token from a higher layer replace a token file from a lower one, with a warning', async () => {
    const config = minimalConfig();
    config.service.tokenFile = path.join(dir, 'absent-token');
    const loaded = await loadConfig({ path: writeConfig(dir, config), env: { STATION_AGENT_TOKEN: TOKEN } });
    expect(loaded.config.service.token).toBe(TOKEN);
    expect(loaded.config.service.tokenFile).toBeUndefined();
    expect(loaded.tokenSource).toBe('env');
    expect(loaded.warnings).toEqual(['service.token from the environment replaces service.tokenFile from the config file']);
    expect(loaded.warnings.join('\n')).not.toContain(TOKEN);
  });

  it('has no flag for the token', async () => {
    const file = writeConfig(dir, minimalConfig());
    const overrides = { service: { token: TOKEN } } as unknown as LoadConfigOptions['overrides'];
    const error = await loadError({ path: file, env: {}, overrides });
    expect(error.problems).toEqual([
      'service.token cannot be given as a flag (other users can read command lines); use STATION_AGENT_TOKEN or service.tokenFile',
    ]);
    expect(error.message).not.toContain(TOKEN);
  });

  it('requireToken returns the token or says how to set one', async () => {
    const file = writeConfig(dir, minimalConfig());
    const without = await loadConfig({ path: file, env: {} });
    expect(() => requireToken(without)).toThrow(
      'service.token is required: set service.tokenFile or service.token in the config file, or STATION_AGENT_TOKEN',
    );
    const withToken = await loadConfig({ path: file, env: { STATION_AGENT_TOKEN: TOKEN } });
    expect(requireToken(withToken)).toBe(TOKEN);
  });

  it('never puts the token into an error, whatever is wrong', async () => {
    const config = minimalConfig();
    config.service.token = TOKEN;
    config.upload = { concurrency: TOKEN };
    config.station.settings = { name: TOKEN, [TOKEN]: 1 };
    const error = await loadError({ path: writeConfig(dir, config), env: { STATION_AGENT_TOKEN: `${TOKEN} x` } });
    expect(error.problems.length).toBeGreaterThan(0);
    expect(error.problems).toContain('service.token must not contain white space (from STATION_AGENT_TOKEN)');
    expect(error.problems).toContain('upload.concurrency must be a number (got a string)');
    expect(error.message).not.toContain(TOKEN);
  });
});
