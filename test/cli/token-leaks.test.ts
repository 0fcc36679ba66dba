import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '@station-agent/emulator';
import { CLI_MAIN, buildCli, runCli, type CliResult } from '../helpers/cli.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';

/**
 * A tired operator pastes the station token into the wrong place: the token file's
 * path, the base URL (userinfo, path, query), a misspelt environment variable, a key
 * that is no secret. Whatever they did, no command prints the token (its output reaches
 * the journal), and the message still names the key or variable to fix.
 */

const LEAK = 'TOKN-leak-7c41e9d2b8a6';
const REAL = 'token-leaks-real-token-31d7';

interface Case {
  name: string;
  /** The config file's content, given the local service's URL. */
  config: (url: string) => Record<string, unknown>;
  env?: Record<string, string>;
  /** Named in the output of the commands that report the mistake. */
  names: string;
  /** Commands that report the mistake (and so must name it); the others only must not leak. */
  reportedBy: readonly string[];
  /** Commands run beyond ALL. */
  more?: readonly string[];
}

const ALL = ['config validate', 'config validate --json', 'status', 'status --json', 'doctor', 'config show', 'run'];
const CONFIG_ERROR = ALL.filter((c) => c !== 'doctor');

const CASES: Case[] = [
  {
    name: 'the token as service.tokenFile',
    config: (url) => ({ service: { baseUrl: url, tokenFile: LEAK } }),
    names: 'service.tokenFile',
    reportedBy: [...CONFIG_ERROR, 'doctor'],
  },
  {
    name: 'the token in service.baseUrl userinfo',
    config: (url) => ({ service: { baseUrl: url.replace('://', `://station:${LEAK}@`), token: REAL } }),
    names: '<redacted>@',
    reportedBy: ['status', 'status --json', 'doctor', 'config show'],
  },
  {
    name: 'the token as service.baseUrl path',
    config: (url) => ({ service: { baseUrl: `${url}/${LEAK}`, token: REAL } }),
    names: '/<redacted>',
    reportedBy: ['status', 'status --json', 'doctor', 'config show'],
  },
  {
    name: 'the token in service.baseUrl query',
    config: (url) => ({ service: { baseUrl: `${url}/?token=${LEAK}`, token: REAL } }),
    names: 'service.baseUrl',
    reportedBy: [...CONFIG_ERROR, 'doctor'],
  },
  {
    name: 'the token in a misspelt environment variable',
    config: (url) => ({ service: { baseUrl: url } }),
    env: { STATION_AGENT_SERVICE_TOKN: LEAK },
    names: 'STATION_AGENT_SERVICE_TOKN',
    reportedBy: ['config validate', 'config validate --json', 'doctor', 'config show'],
  },
  {
    name: 'the token in a key that is no secret (file)',
    config: (url) => ({ service: { baseUrl: url, token: REAL }, input: { format: LEAK } }),
    names: 'input.format',
    reportedBy: [...CONFIG_ERROR, 'doctor'],
  },
  {
    name: 'the token in a key that is no secret (environment)',
    config: (url) => ({ service: { baseUrl: url, token: REAL } }),
    env: { STATION_AGENT_LOG_LEVEL: LEAK },
    names: 'log.level',
    reportedBy: [...CONFIG_ERROR, 'doctor'],
  },
  {
    name: 'the token in upload.windows',
    config: (url) => ({ service: { baseUrl: url, token: REAL }, upload: { windows: [LEAK] } }),
    names: 'upload.windows.0',
    reportedBy: [...CONFIG_ERROR, 'doctor'],
  },
  {
    name: 'the token pasted as a key name',
    config: (url) => ({ service: { baseUrl: url, token: REAL, [LEAK]: true } }),
    names: 'service.<a name of',
    reportedBy: [...CONFIG_ERROR, 'doctor'],
  },
  {
    name: 'the token in metrics.listen',
    config: (url) => ({ service: { baseUrl: url, token: REAL }, metrics: { listen: LEAK } }),
    names: 'metrics.listen',
    reportedBy: [],
  },
  {
    // The token is right (and refused by this service: it is not REAL): it also names the folders.
    name: 'the token as the name of input.dir and of dataDir',
    config: (url) => ({ service: { baseUrl: url, token: LEAK }, input: { dir: LEAK }, dataDir: `data-${LEAK}` }),
    names: 'input.dir holds the station token',
    reportedBy: [...CONFIG_ERROR, 'doctor'],
    more: ['queue list'],
  },
  {
    // It would be pushed to the service as the station's public name.
    name: 'the token as the station name',
    config: (url) => ({ service: { baseUrl: url, token: LEAK }, station: { latitude: 52.52, longitude: 13.4, timezone: 'Europe/Berlin', settings: { name: `Garden ${LEAK}` } } }),
    names: 'station.settings.name holds the station token',
    reportedBy: [...CONFIG_ERROR, 'doctor'],
  },
  {
    name: 'the token in the webhook URL path, a webhook header and the broker URL path',
    config: (url) => ({
      service: { baseUrl: url, token: REAL },
      alerts: { webhook: { url: `http://127.0.0.1:9/api/webhook/${LEAK}`, headers: { 'X-Key': LEAK } } },
      mqtt: { enabled: true, url: `ws://127.0.0.1:9/${LEAK}` },
    }),
    names: '/<redacted>',
    reportedBy: ['config show'],
  },
  {
    // A heartbeat URL is its check's credential (healthchecks.io's uuid, Uptime Kuma's push token); `run` pings it (nobody answers on port 9) and logs the failure.
    name: 'a secret in the heartbeat URL path and query',
    config: (url) => ({ service: { baseUrl: url, token: REAL }, alerts: { heartbeat: { url: `http://127.0.0.1:9/ping/${LEAK}?k=${LEAK}`, intervalSec: 10 } } }),
    names: 'http://127.0.0.1:9/<redacted>?<redacted>',
    reportedBy: ['config show'],
  },
  {
    name: 'a heartbeat URL without its scheme',
    config: (url) => ({ service: { baseUrl: url, token: REAL }, alerts: { heartbeat: { url: `hc-ping.com/${LEAK}` } } }),
    names: 'alerts.heartbeat.url',
    reportedBy: [...CONFIG_ERROR, 'doctor'],
  },
];

describe('a token pasted into the wrong place is never printed', () => {
  let service: RunningEmulator;
  let tmp: ReturnType<typeof tempDir>;

  beforeAll(async () => {
    await buildCli();
    service = await startEmulator({ tokens: [REAL] });
    tmp = tempDir('cli-token-leaks-');
  }, 180_000);

  afterAll(async () => {
    await service?.close();
    tmp?.cleanup();
  });

  it.each([
    ['an item id', ['queue', 'show', LEAK]],
    ['an option value', ['status', '--timeout', LEAK]],
    ['an option value (--json)', ['api', 'detections', '--json', '--from', LEAK]],
    ['a command name', [LEAK]],
  ])('the token as %s: the usage error shows <redacted> (the token the config holds, or the environment)', async (_what, args) => {
    const dir = path.join(tmp.dir, 'argument');
    mkdirSync(path.join(dir, 'in'), { recursive: true });
    const config = path.join(dir, 'config.json');
    const station = { latitude: 52.52, longitude: 13.4, timezone: 'Europe/Berlin' };
    writeFileSync(config, JSON.stringify({ service: { baseUrl: service.url, token: LEAK }, station, input: { dir: 'in' }, dataDir: 'data' }), { mode: 0o600 });
    const tokenless = path.join(dir, 'tokenless.json');
    writeFileSync(tokenless, JSON.stringify({ service: { baseUrl: service.url }, station, input: { dir: 'in' }, dataDir: 'data' }), { mode: 0o600 });
    const fromFile = await runCli([...args, '--config', config]);
    const fromEnv = await runCli([...args, '--config', tokenless], { env: { STATION_AGENT_TOKEN: LEAK } });
    for (const result of [fromFile, fromEnv]) {
      const output = result.stdout + result.stderr;
      expect(result.code, output).toBe(2);
      expect(output, output).not.toContain(LEAK);
      expect(output, output).toContain('<redacted>');
    }
  });

  describe.each(CASES)('$name', (c) => {
    let config: string;
    beforeAll(() => {
      const dir = path.join(tmp.dir, c.name.replace(/\W+/g, '-'));
      mkdirSync(path.join(dir, 'in'), { recursive: true });
      mkdirSync(path.join(dir, LEAK), { recursive: true });
      const content = {
        station: { latitude: 52.52, longitude: 13.4, timezone: 'Europe/Berlin' },
        input: { dir: 'in' },
        dataDir: 'data',
        ...c.config(service.url),
      };
      content.input = { dir: 'in', ...(content.input as object) };
      config = path.join(dir, 'config.json');
      writeFileSync(config, JSON.stringify(content), { mode: 0o600 });
    });

    it.each([...ALL, ...(c.more ?? [])])('%s', async (command) => {
      const args = [...command.split(' '), '--config', config];
      const result = command === 'run' ? await runBriefly(args, c.env ?? {}) : await runCli(args, { env: c.env ?? {}, timeoutMs: 60_000 });
      const output = result.stdout + result.stderr;
      expect(output, output).not.toContain(LEAK);
      expect(output, output).not.toContain(encodeURIComponent(LEAK));
      if (c.reportedBy.includes(command)) expect(output, output).toContain(c.names);
    }, 90_000);
  });
});

/**
 * `station-agent run` until it reports itself running (or stops on its own), then SIGTERM:
 * what it printed on the way is what the journal would hold.
 */
function runBriefly(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_MAIN, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', TZ: 'UTC', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let stopping = false;
    // Running, and the start-up's first requests to the service (config sync) answered or failed.
    const settled = () => stdout.includes('station-agent running') && /station record|station settings|config sync|HTTP \d{3}|paused/i.test(stdout);
    const check = () => {
      if (!stopping && settled()) {
        stopping = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      check();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`run did not settle within 60 s\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}
