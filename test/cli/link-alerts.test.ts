import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '@station-agent/emulator';
import { buildCli, parseJson, runCli, writeCliConfig } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';
import { openTestQueue, setMeta } from './seed.js';

/** `status` shows the link policies; `doctor --test-alert` sends a real test notification. */

const TOKEN = 'link-cli-token-2b7d41';
const SECRET = 'gotify-app-key-9c1f';

describe('station-agent status and doctor: links and alerts', () => {
  let service: RunningEmulator;
  let receiver: Server;
  let receiverUrl: string;
  const got: { headers: IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
  let tmp: ReturnType<typeof tempDir>;

  beforeAll(async () => {
    await buildCli();
    service = await startEmulator({ tokens: [TOKEN] });
    receiver = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString('utf8')));
      req.on('end', () => {
        got.push({ headers: req.headers, body: JSON.parse(text) as Record<string, unknown> });
        // A receiver that refuses what is sent to /refused.
        res.writeHead(req.url?.startsWith('/refused') ? 500 : 200).end('{}');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/message`;
    tmp = tempDir('cli-link-');
  }, 180_000);

  afterAll(async () => {
    await service?.close();
    await new Promise<void>((r) => receiver.close(() => r()));
    tmp?.cleanup();
  });

  it('status shows the window, the budget left today and the cap, as text and --json', async () => {
    const dataDir = path.join(tmp.dir, 'data-status');
    const config = writeCliConfig(path.join(tmp.dir, 'status.json'), {
      baseUrl: service.url,
      token: TOKEN,
      dataDir,
      inputDir: path.join(tmp.dir, 'input'),
      extra: { upload: { windows: ['00:00-24:00'], windowsAudioOnly: true, audioBytesPerDay: 1_000_000, audioBytesPerSec: 65_536 } },
    });
    const q = openTestQueue(dataDir);
    const today = new Date().toLocaleDateString('sv-SE', { timeZone: 'Europe/Berlin' });
    setMeta(q, 'audioBudget', { day: today, bytes: 400_000 });
    q.close();

    const json = parseJson(await runCli(['status', '--json', '--offline', '--config', config]));
    expect(json.link).toMatchObject({
      windows: ['00:00-24:00'],
      windowsAudioOnly: true,
      windowOpen: true,
      windowChangesAt: null,
      budget: { limit: 1_000_000, usedToday: 400_000, left: 600_000 },
      capBytesPerSec: 65_536,
      rateBytesPerSec: null,
    });
    const text = await runCli(['status', '--offline', '--config', config]);
    expect(text.stdout).toMatch(/Link: +window open \(00:00-24:00, audio only\)/);
    expect(text.stdout).toMatch(/budget 586 KiB of 977 KiB left today|budget .* left today/);
    expect(text.stdout).toMatch(/cap 64(\.0)? KiB\/s/);
  });

  it('doctor --test-alert posts one test notification with the secret header; the secret is not printed', async () => {
    const secretFile = path.join(tmp.dir, 'gotify-key');
    writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o600 });
    const config = writeCliConfig(path.join(tmp.dir, 'alert.json'), {
      baseUrl: service.url,
      token: TOKEN,
      dataDir: path.join(tmp.dir, 'data-alert'),
      inputDir: path.join(tmp.dir, 'input'),
      extra: { alerts: { webhook: { url: receiverUrl, secretFile, secretHeader: 'X-Gotify-Key', secretPrefix: '' } } },
    });
    const before = got.length;
    const quiet = await runCli(['doctor', '--json', '--offline', '--config', config]);
    const quietCheck = parseJson(quiet).checks.find((c: { id: string }) => c.id === 'alert');
    expect(quietCheck).toMatchObject({ status: 'skip' });
    expect(got.length).toBe(before);

    const result = await runCli(['doctor', '--json', '--offline', '--test-alert', '--config', config]);
    const check = parseJson(result).checks.find((c: { id: string }) => c.id === 'alert');
    expect(check).toMatchObject({ status: 'pass' });
    expect(got.length).toBe(before + 1);
    const sent = got[got.length - 1];
    expect(sent.headers['x-gotify-key']).toBe(SECRET);
    expect(sent.body).toMatchObject({ event: 'test', state: 'firing', test: true, priority: 2, message: expect.stringContaining('test notification') });
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    expect(result.stdout + result.stderr).not.toContain('/message');
  });

  it('doctor --test-alert fails when the receiver refuses, with the code ERR_ALERT_RECEIVER, naming the receiver by its origin', async () => {
    const origin = new URL(receiverUrl).origin;
    const config = writeCliConfig(path.join(tmp.dir, 'refused.json'), {
      baseUrl: service.url,
      token: TOKEN,
      dataDir: path.join(tmp.dir, 'data-refused'),
      inputDir: path.join(tmp.dir, 'input'),
      extra: { alerts: { webhook: { url: `${origin}/refused/hook-id-4e8a` } } },
    });
    const before = got.length;
    const result = await runCli(['doctor', '--json', '--offline', '--test-alert', '--config', config]);
    const check = parseJson(result).checks.find((c: { id: string }) => c.id === 'alert');
    expect(got.length).toBe(before + 1);
    expect(check).toMatchObject({ status: 'fail', detail: `alert webhook ${origin}/<redacted>: HTTP 500`, data: { code: 'ERR_ALERT_RECEIVER' } });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).not.toContain('hook-id-4e8a');
  });

  it('doctor --test-alert fails when no webhook is set, and names the key', async () => {
    const config = writeCliConfig(path.join(tmp.dir, 'none.json'), { baseUrl: service.url, token: TOKEN, dataDir: path.join(tmp.dir, 'data-none'), inputDir: path.join(tmp.dir, 'input') });
    const result = await runCli(['doctor', '--json', '--offline', '--test-alert', '--config', config]);
    const check = parseJson(result).checks.find((c: { id: string }) => c.id === 'alert');
    expect(check).toMatchObject({ status: 'fail', detail: 'alerts.webhook.url is not set' });
    expect(result.code).toBe(1);
  });
});
