import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '@station-agent/emulator';
import { CLI_MAIN, buildCli, runCli, type CliResult } from '../helpers/cli.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';

/**
 * Every secret the agent holds, each set where it belongs (the token, the webhook's URL
 * and secret file, the heartbeat's URL, a broker password in mqtt.url and in
 * mqtt.passwordFile), with the parts that use them at work: the CLI and the daemon run as
 * processes, the webhook and heartbeat reach a receiver that refuses them (500, echoing
 * what it was sent), the broker is not there. Nothing any command prints (log lines,
 * `--json`, errors) holds a secret's value, literal or URL-encoded: the one secret
 * registry (src/wire/redact.ts) hides them all. The token-in-the-wrong-place cases are
 * token-leaks.test.ts.
 */

const TOKEN = 'secret-leaks-token-6c2e91';
const SECRETS = {
  token: TOKEN,
  webhookId: 'ha-webhook-id-3f7a0c55',
  webhookSecret: 'webhook-Secret-d81b4e',
  heartbeatUuid: 'hb-uuid-0e4f9a27b3',
  heartbeatKey: 'hb-key-71c5d0',
  urlPassword: 'url-Pa55-b2e8c4',
  filePassword: 'file-Pa55-5a9d13',
};

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

describe('no secret set where it belongs is ever printed', () => {
  let service: RunningEmulator;
  let receiver: Server;
  let receiverUrl: string;
  const seen: Seen[] = [];
  let tmp: ReturnType<typeof tempDir>;
  /** mqtt.passwordFile there, or missing (the broker's settings cannot be read). */
  const configs: Record<'complete' | 'no password file', string> = { complete: '', 'no password file': '' };

  beforeAll(async () => {
    await buildCli();
    service = await startEmulator({ tokens: [TOKEN] });
    receiver = createServer((req, res) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      req.resume();
      // A hostile receiver: it refuses, and says back what it was sent.
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: `refused ${req.url} ${req.headers.authorization ?? ''}` }));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    tmp = tempDir('cli-secret-leaks-');
    for (const name of Object.keys(configs) as (keyof typeof configs)[]) {
      const dir = path.join(tmp.dir, name.replace(/\W+/g, '-'));
      mkdirSync(path.join(dir, 'in'), { recursive: true });
      writeFileSync(path.join(dir, 'webhook-secret'), `${SECRETS.webhookSecret}\n`, { mode: 0o600 });
      if (name === 'complete') writeFileSync(path.join(dir, 'mqtt-password'), `${SECRETS.filePassword}\n`, { mode: 0o600 });
      const config = {
        service: { baseUrl: service.url, token: TOKEN, timeoutMs: 5_000 },
        station: { latitude: 52.52, longitude: 13.4, timezone: 'Europe/Berlin' },
        input: { dir: 'in' },
        dataDir: 'data',
        alerts: {
          webhook: { url: `${receiverUrl}/api/webhook/${SECRETS.webhookId}`, secretFile: 'webhook-secret' },
          heartbeat: { url: `${receiverUrl}/ping/${SECRETS.heartbeatUuid}?k=${SECRETS.heartbeatKey}`, intervalSec: 10 },
        },
        // Nobody listens on port 9: every connect fails, and says so.
        mqtt: { enabled: true, url: `mqtt://station:${SECRETS.urlPassword}@127.0.0.1:9`, username: 'station', passwordFile: 'mqtt-password' },
      };
      configs[name] = path.join(dir, 'config.json');
      writeFileSync(configs[name], JSON.stringify(config), { mode: 0o600 });
    }
  }, 180_000);

  afterAll(async () => {
    await service?.close();
    await new Promise((resolve) => receiver?.close(resolve));
    tmp?.cleanup();
  });

  const COMMANDS = [
    'config validate',
    'config validate --json',
    'config show',
    'config show --json',
    'status',
    'status --json',
    'doctor',
    'doctor --json',
    'doctor --test-alert',
    'doctor --test-alert --json',
    'run',
  ];

  describe.each(Object.keys(configs) as (keyof typeof configs)[])('mqtt.passwordFile: %s', (name) => {
    it.each(COMMANDS)('%s', async (command) => {
      const before = seen.length;
      const args = [...command.split(' '), '--config', configs[name]];
      const result = command === 'run' ? await runUntilTried(args) : await runCli(args, { timeoutMs: 60_000 });
      const output = result.stdout + result.stderr;
      for (const [what, value] of Object.entries(SECRETS)) {
        expect(output, `${what} in: ${output}`).not.toContain(value);
        expect(output, `${what} in: ${output}`).not.toContain(encodeURIComponent(value));
      }
      // Not vacuous: what was sent carried the secrets, and the output speaks of what failed.
      const sent = seen.slice(before);
      if (command.includes('--test-alert') || command === 'run') {
        const webhook = sent.find((s) => s.url === `/api/webhook/${SECRETS.webhookId}`);
        if (command !== 'run') expect(webhook?.headers.authorization, JSON.stringify(sent)).toBe(`Bearer ${SECRETS.webhookSecret}`);
        expect(output).toMatch(command === 'run' ? /heartbeat http:\/\/127\.0\.0\.1:\d+\/<redacted>\?<redacted>: HTTP 500/ : /HTTP 500/);
      }
      if (command === 'run') {
        expect(sent.some((s) => s.url.startsWith(`/ping/${SECRETS.heartbeatUuid}`)), JSON.stringify(sent)).toBe(true);
        expect(output).toMatch(/mqtt: /);
      }
      if (command.startsWith('doctor')) expect(output).toMatch(/MQTT broker|"mqtt"/);
    }, 90_000);
  });
});

/**
 * `station-agent run` until the heartbeat's first ping and the broker's first connect
 * both failed (or 60 s), then SIGTERM: what it printed is what the journal would hold.
 */
function runUntilTried(args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_MAIN, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', TZ: 'UTC' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let stopping = false;
    const tried = () => /heartbeat [^"]*HTTP 500/.test(stdout) && /"msg":"mqtt: /.test(stdout);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!stopping && tried()) {
        stopping = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`run did not try the heartbeat and the broker within 60 s\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}
