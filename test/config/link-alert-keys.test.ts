import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { parseConfig } from '../../src/config/validate.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';

/** The keys of the metered-link policies and the alerts: validated with messages naming the key, env-overridable. */

const BASE = {
  service: { baseUrl: 'https://service.example.org', token: 'abc' },
  station: { latitude: 52.5, longitude: 13.4, timezone: 'Europe/Berlin' },
  input: { dir: '/tmp/in' },
};

function problems(extra: Record<string, unknown>): string[] {
  try {
    parseConfig({ ...BASE, ...extra }, 'config.json');
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    throw err;
  }
  return [];
}

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

describe('upload windows, cap and budget keys', () => {
  it('defaults: no windows, no cap, no budget; no alerts', () => {
    const c = parseConfig(BASE, 'config.json');
    expect(c.upload).toMatchObject({ windows: [], windowsAudioOnly: false, audioBytesPerSec: null, audioBytesPerDay: null });
    expect(c.alerts).toMatchObject({ webhook: { url: null, headers: {}, secretFile: null, secretHeader: 'Authorization', secretPrefix: 'Bearer ' }, noUploadHours: 6 });
  });

  it('a malformed window names the key, the index and what is expected', () => {
    const [p] = problems({ upload: { windows: ['22:00-06:00', '10-12'] } });
    // The value itself is never shown: a token pasted there would reach the journal.
    expect(p).toBe('upload.windows.1 must be a local time range HH:MM-HH:MM such as 22:00-06:00 (got a string)');
    expect(problems({ upload: { windows: ['06:00-06:00'] } })[0]).toMatch(/upload\.windows\.0 must not start and end at the same time/);
    expect(problems({ upload: { audioBytesPerSec: 100 } })[0]).toMatch(/upload\.audioBytesPerSec must be between 1024/);
  });

  it('alerts: the webhook URL and header names are checked', () => {
    expect(problems({ alerts: { webhook: { url: 'ntfy.sh/topic' } } })[0]).toMatch(/alerts\.webhook\.url must be an http:\/\/ or https:\/\/ URL/);
    expect(problems({ alerts: { webhook: { secretHeader: 'Bad Header' } } })[0]).toMatch(/alerts\.webhook\.secretHeader must be an HTTP header name/);
  });

  it('is overridable from the environment (windows as JSON)', async () => {
    const { dir, cleanup } = tempDir('link-keys-');
    cleanups.push(cleanup);
    const file = path.join(dir, 'config.json');
    writeFileSync(file, JSON.stringify(BASE), { mode: 0o600 });
    const { config } = await loadConfig({
      path: file,
      env: { STATION_AGENT_UPLOAD_WINDOWS: '["22:00-06:00"]', STATION_AGENT_UPLOAD_AUDIO_BYTES_PER_SEC: '65536', STATION_AGENT_ALERTS_WEBHOOK_URL: 'https://ntfy.sh/x' },
    });
    expect(config.upload.windows).toEqual(['22:00-06:00']);
    expect(config.upload.audioBytesPerSec).toBe(65_536);
    expect(config.alerts.webhook.url).toBe('https://ntfy.sh/x');
  });
});

describe('docs/examples/cellular.json', () => {
  it('loads through the real config loader', async () => {
    const { dir, cleanup } = tempDir('cellular-');
    cleanups.push(cleanup);
    const token = path.join(dir, 'token');
    writeFileSync(token, 'tok', { mode: 0o600 });
    const { config } = await loadConfig({ path: path.join(REPO_ROOT, 'docs/examples/cellular.json'), env: { STATION_AGENT_SERVICE_TOKEN_FILE: token } });
    expect(config.upload).toMatchObject({ windows: ['22:00-06:00'], windowsAudioOnly: true, audioBytesPerSec: 65_536, audioBytesPerDay: 200_000_000, noSoundscapeAfterSec: 86_400 });
    expect(config.alerts.webhook.url).toBe('https://ntfy.sh/alpine-meadow-station');
  });
});
