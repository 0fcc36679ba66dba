import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { parseConfig } from '../../src/config/validate.js';
import { systemTimeZone } from '../../src/config/schema.js';
import { minimalConfig } from './config-files.js';

function problemsOf(input: unknown): readonly string[] {
  try {
    parseConfig(input, '/etc/station-agent/config.json');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('config schema', () => {
  it('fills in every default around the required keys', () => {
    const config = parseConfig({
      service: { baseUrl: 'https://service.example.org/' },
      station: { latitude: 52.52, longitude: 13.4 },
      input: { dir: '/srv/out' },
    });
    expect(config.service).toEqual({
      baseUrl: 'https://service.example.org',
      timeoutMs: 60_000,
      graphqlUrl: 'https://service.example.org/graphql',
    });
    expect(config.station).toEqual({ latitude: 52.52, longitude: 13.4, timezone: systemTimeZone(), settings: {} });
    expect(config.input).toMatchObject({
      format: 'auto',
      minConfidence: 0.7,
      labels: null,
      afterUpload: 'keep',
      analyzerpiJsonTimeoutSec: 300,
      rescanIntervalSec: 300,
      stableMs: 2000,
    });
    expect(config.dataDir).toBe('/var/lib/station-agent');
    expect(config.upload).toEqual({
      concurrency: 4,
      flacEncoder: 'auto',
      flacCompressionLevel: 0,
      backoffBaseMs: 1000,
      backoffMaxMs: 300_000,
      noSoundscapeAfterSec: 3600,
      probeIntervalSec: 60,
      windows: [],
      windowsAudioOnly: false,
      audioBytesPerSec: null,
      audioBytesPerDay: null,
    });
    expect(config.retention.keepUploadedDays).toBe(0);
    expect(config.disk.minFreeMb).toBe(200);
    expect(config.clock.requireSync).toBe('auto');
    expect(config.metrics.listen).toBeNull();
    expect(config.log.level).toBe('info');
  });

  it('keeps an explicit GraphQL URL', () => {
    const input = minimalConfig();
    input.service.graphqlUrl = 'https://gql.example.org/graphql';
    expect(parseConfig(input).service.graphqlUrl).toBe('https://gql.example.org/graphql');
  });

  it('reports a missing section by its required keys', () => {
    expect(problemsOf({})).toEqual([
      'service.baseUrl is required',
      'station.latitude is required',
      'station.longitude is required',
      'input.dir is required',
    ]);
  });

  it('states ranges, choices and the value that came', () => {
    const input = minimalConfig();
    input.station.settings = { minConfidence: 0.2, minHumanConfidence: 0.3 };
    input.input.format = 'csv';
    input.upload = { concurrency: 2.5 };
    input.log = { level: 'verbose' };
    expect(problemsOf(input)).toEqual([
      'station.settings.minConfidence must be between 0.35 and 1 (got 0.2)',
      'station.settings.minHumanConfidence must be between 0.01 and 0.25 (got 0.3)',
      'input.format must be one of auto, results, analyzerpi (got a string)',
      'upload.concurrency must be a whole number (got 2.5)',
      'log.level must be one of fatal, error, warn, info, debug, trace, silent (got a string)',
    ]);
  });

  it('names wrong types', () => {
    const input = minimalConfig();
    input.station.latitude = '52.5';
    input.station.settings = { locationPrivacy: 'no' };
    expect(problemsOf(input)).toEqual([
      'station.latitude must be a number (got a string)',
      'station.settings.locationPrivacy must be true or false (got a string)',
    ]);
  });

  it('catches unknown keys and suggests the key meant', () => {
    const input = minimalConfig();
    input.input.dirr = '/x';
    input.service.timezone = 'Europe/Berlin';
    input.uplaod = {};
    expect(problemsOf(input)).toEqual([
      'unknown key service.timezone (did you mean station.timezone?)',
      'unknown key input.dirr (did you mean input.dir?)',
      'unknown key uplaod (did you mean upload?)',
    ]);
  });

  it('checks URLs, time zones and listen addresses', () => {
    const input = minimalConfig();
    input.service.baseUrl = 'ftp://service.example.org';
    input.station.timezone = 'Mars/Olympus';
    input.metrics = { listen: '127.0.0.1:99999' };
    expect(problemsOf(input)).toEqual([
      'service.baseUrl must be an http:// or https:// URL (got a string)',
      'station.timezone must be an IANA time zone name such as Europe/Berlin (got a string)',
      'metrics.listen must be host:port or a port, e.g. 127.0.0.1:9464 (got a string)',
    ]);
    input.service.baseUrl = 'https://service.example.org/api/v1/';
    input.station.timezone = 'UTC';
    input.metrics = { listen: '[::1]:9464' };
    expect(problemsOf(input)).toEqual([
      'service.baseUrl must be the base URL without /api/v1 (the agent adds it) (got a string)',
    ]);
    // A bare port is accepted (the endpoint then binds 127.0.0.1).
    input.metrics = { listen: '9464' };
    expect(problemsOf(input)).toEqual([
      'service.baseUrl must be the base URL without /api/v1 (the agent adds it) (got a string)',
    ]);
  });

  it('requires input.labels for analyzerpi input and input.moveTo for move', () => {
    const input = minimalConfig();
    input.input.format = 'analyzerpi';
    input.input.afterUpload = 'move';
    const problems = problemsOf(input);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^input\.labels is required when input\.format is analyzerpi /);
    expect(problems[1]).toBe('input.moveTo is required when input.afterUpload is move');
    input.input.labels = '/srv/labels.txt';
    input.input.moveTo = '/srv/done';
    expect(parseConfig(input).input.format).toBe('analyzerpi');
  });

  it('reports cross-key problems together with the other problems', () => {
    const input = minimalConfig();
    input.input.format = 'analyzerpi';
    input.input.stableMs = 5;
    expect(problemsOf(input)).toEqual([
      'input.stableMs must be between 100 and 600000 (got 5)',
      expect.stringMatching(/^input\.labels is required/),
    ]);
  });

  it('wants the largest backoff at least the first', () => {
    const input = minimalConfig();
    input.upload = { backoffBaseMs: 60_000, backoffMaxMs: 10_000 };
    expect(problemsOf(input)).toEqual(['upload.backoffMaxMs must be at least upload.backoffBaseMs (got 10000)']);
  });

  it('accepts exactly one of token and tokenFile, and never shows the token', () => {
    const input = minimalConfig();
    input.service.token = 's3cr3t-token';
    input.service.tokenFile = '/etc/station-agent/token';
    expect(problemsOf(input)).toEqual([
      'service.tokenFile cannot be combined with service.token: set only one (got a string)',
    ]);

    delete input.service.tokenFile;
    input.service.token = 's3cr3t token';
    const problems = problemsOf(input);
    expect(problems).toEqual(['service.token must not contain white space']);
    expect(problems.join('\n')).not.toContain('s3cr3t');
  });

  it('puts the file and every problem into the error message', () => {
    const input = minimalConfig();
    input.upload = { concurrency: 20 };
    input.input.format = 'csv';
    try {
      parseConfig(input, '/etc/station-agent/config.json');
      expect.unreachable();
    } catch (err) {
      const error = err as ConfigError;
      expect(error.code).toBe('ERR_CONFIG_INVALID');
      expect(error.file).toBe('/etc/station-agent/config.json');
      expect(error.message).toBe(
        'invalid configuration (config file /etc/station-agent/config.json):\n' +
          '  - input.format must be one of auto, results, analyzerpi (got a string)\n' +
          '  - upload.concurrency must be between 1 and 16 (got 20)',
      );
      expect(error.toJSON()).toMatchObject({ code: 'ERR_CONFIG_INVALID', problems: error.problems });
    }
  });
});
