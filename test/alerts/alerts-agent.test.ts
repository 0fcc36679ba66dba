import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { getMeta } from '../../src/queue/index.js';
import { createAgentWorld, TOKEN, type AgentWorld } from '../helpers/agent-world.js';
import { deepMerge } from '../helpers/merge.js';
import { addRealRecording } from '../helpers/real-recording.js';
import { until } from '../helpers/until.js';

/**
 * Alerts with the real agent, the local service and a real HTTP receiver on a free
 * port: what reached the service, what did not, and what the receiver got.
 */

const SECRET = 'tk_alert-secret-5f2c9e';

interface Received {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

let world: AgentWorld | undefined;
let receiver: Server | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  receiver = undefined;
});

async function startReceiver(): Promise<{ url: string; got: Received[] }> {
  const got: Received[] = [];
  receiver = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      got.push({ headers: req.headers, body: JSON.parse(text) as Record<string, unknown> });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/station`, got };
}

function addRecording(w: AgentWorld): void {
  addRealRecording(w.inputDir, 'rec');
}


function alertConfig(url: string, secretFile: string) {
  return {
    alerts: { webhook: { url, secretFile, headers: { 'X-Station': 'garden' } }, holdSec: 0, minIntervalSec: 0, noUploadHours: 6 },
    station: { settings: { name: 'Garden' } },
  };
}

/** A daemon with alerts to a real receiver, its service failing every request, a recording queued; `clock.offset` moves its wall clock. */
async function failingServiceWithAlerts() {
  const { url, got } = await startReceiver();
  world = await createAgentWorld();
  const secretFile = path.join(world.root, 'alert-secret');
  writeFileSync(secretFile, SECRET, { mode: 0o600 });
  const config = JSON.parse(readFileSync(world.configPath, 'utf8')) as Record<string, unknown>;
  writeFileSync(world.configPath, JSON.stringify(deepMerge(config, alertConfig(url, secretFile))), { mode: 0o600 });
  world.emulator.setFaults({ error5xx: 1 });
  addRecording(world);
  const clock = { offset: 0 };
  const daemon = await world.startAgent({ now: () => Date.now() + clock.offset, alertCheckMs: 100 });
  await until('items queued', () => world!.counts().detections.pending > 0);
  return { got, daemon, clock };
}

describe('alerts (real agent, local service, real webhook receiver)', () => {
  it('token refused: uploads pause, one firing reaches the receiver with the secret header; after the token is fixed and a restart, resolved', async () => {
    const { url, got } = await startReceiver();
    world = await createAgentWorld();
    const secretFile = path.join(world.root, 'alert-secret');
    writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o600 });
    // A token the service does not know: the station's uploads are paused.
    const config = JSON.parse(readFileSync(world.configPath, 'utf8')) as Record<string, Record<string, unknown>>;
    const merged = { ...config, ...alertConfig(url, secretFile), service: { ...config.service, token: 'wrong-token-0000000000' }, station: { ...config.station, settings: { name: 'Garden' } } };
    writeFileSync(world.configPath, JSON.stringify(merged), { mode: 0o600 });
    addRecording(world);
    await world.startAgent({ alertCheckMs: 100 });

    const firing = await until('firing alert', () => got.find((r) => r.body.event === 'uploads-paused' && r.body.state === 'firing'));
    expect(firing.body).toMatchObject({ station: 'Garden', reason: 'token-rejected', priority: 8, title: 'Garden: uploads-paused alert' });
    expect(firing.body.since).toEqual(expect.any(String));
    expect(firing.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(firing.headers['x-station']).toBe('garden');
    expect(firing.headers['content-type']).toBe('application/json');
    // Nothing reached the service.
    expect(await world.allDetections()).toHaveLength(0);
    expect(await world.allSoundscapes()).toHaveLength(0);
    // The firing is remembered across a restart.
    await world.stopAgent();

    writeFileSync(world.configPath, JSON.stringify({ ...merged, service: { ...merged.service, token: TOKEN } }), { mode: 0o600 });
    const daemon = await world.startAgent({ alertCheckMs: 100 });
    await world.waitDrained();
    const resolved = await until('resolved alert', () => got.find((r) => r.body.event === 'uploads-paused' && r.body.state === 'resolved'));
    expect(resolved.body).toMatchObject({ reason: 'token-rejected', priority: 4 });
    await daemon.alerts!.idle();
    // One firing, one resolved: the restart did not fire again.
    expect(got.filter((r) => r.body.event === 'uploads-paused').map((r) => r.body.state)).toEqual(['firing', 'resolved']);
    expect(getMeta(daemon.queue, 'alerts')).toEqual({});
    expect(await world.allSoundscapes()).toHaveLength(1);
    // The secret never reaches the agent's log, nor does the webhook's path.
    const log = world.logLines.join('\n');
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain('/hooks/station');
    expect(log).toContain('alert sent');
  });

  it('nothing uploaded for alerts.noUploadHours while items wait (service failing): fires once; resolved after the backlog drains', async () => {
    const { got, daemon, clock } = await failingServiceWithAlerts();
    daemon.alerts!.check();
    expect(got.filter((r) => r.body.event === 'no-uploads')).toHaveLength(0);

    clock.offset = 7 * 3_600_000;
    const firing = await until('no-uploads firing', () => got.find((r) => r.body.event === 'no-uploads' && r.body.state === 'firing'));
    expect(String(firing.body.message)).toMatch(/nothing uploaded for 7 h while \d+ items wait/);
    expect(await world!.allDetections()).toHaveLength(0);

    world!.emulator.setFaults(null);
    await world!.waitDrained();
    await until('no-uploads resolved', () => got.find((r) => r.body.event === 'no-uploads' && r.body.state === 'resolved'));
    await daemon.alerts!.idle();
    expect(got.filter((r) => r.body.event === 'no-uploads').map((r) => r.body.state)).toEqual(['firing', 'resolved']);
  });

  it('a clock jumped years ahead is no outage: no-uploads does not fire while the expiry clock holds the jump (issue 19 class rule)', async () => {
    const { got, daemon, clock } = await failingServiceWithAlerts();
    // The wall clock at 2100 (a wrong RTC, a typo): more than a day ahead, not followed.
    clock.offset = Date.parse('2100-01-01T00:00:00Z') - Date.now();
    daemon.alerts!.check();
    await daemon.alerts!.idle();
    expect(got.filter((r) => r.body.event === 'no-uploads')).toHaveLength(0);
  });

  it('disk low: fires while free space is below disk.minFreeMb; a receiver that fails is retried without holding up uploads', async () => {
    let failures = 1;
    const got: Received[] = [];
    receiver = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString('utf8')));
      req.on('end', () => {
        if (failures-- > 0) return void res.writeHead(503).end();
        got.push({ headers: req.headers, body: JSON.parse(text) as Record<string, unknown> });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
    world = await createAgentWorld({
      config: { disk: { minFreeMb: 1_000_000 }, upload: { noSoundscapeAfterSec: 0 }, alerts: { webhook: { url }, holdSec: 0, minIntervalSec: 0 } },
    });
    addRecording(world);
    await world.startAgent({ alertCheckMs: 100 });
    // Uploads go on meanwhile (detections without audio: none could be spooled).
    await until('detections posted', async () => (await world!.allDetections()).length > 0);
    const firing = await until('disk-low firing', () => got.find((r) => r.body.event === 'disk-low'), 60_000);
    expect(firing.body).toMatchObject({ state: 'firing' });
    expect(firing.headers.authorization).toBeUndefined();
    expect(world.logLines.some((l) => l.includes('will retry'))).toBe(true);
  });

  it('a reload applies alerts.holdSec and a new station name: the held condition fires under the new name', async () => {
    const { url, got } = await startReceiver();
    world = await createAgentWorld();
    const w = world;
    const secretFile = path.join(w.root, 'alert-secret');
    writeFileSync(secretFile, SECRET, { mode: 0o600 });
    const config = JSON.parse(readFileSync(w.configPath, 'utf8')) as Record<string, Record<string, unknown>>;
    const held = deepMerge(deepMerge(config, alertConfig(url, secretFile)), { alerts: { holdSec: 86_400 }, service: { token: 'wrong-token-0000000000' } });
    writeFileSync(w.configPath, JSON.stringify(held), { mode: 0o600 });
    addRecording(w);
    const daemon = await w.startAgent({ alertCheckMs: 100 });
    // The pause is seen and held for a day: nothing is sent.
    await until('paused condition recorded', () => {
      const records = getMeta(daemon.queue, 'alerts') as Record<string, { activeSince: number | null }> | undefined;
      return Object.entries(records ?? {}).some(([key, r]) => key.startsWith('uploads-paused') && r.activeSince !== null);
    }, 20_000, () => JSON.stringify(getMeta(daemon.queue, 'alerts')) + JSON.stringify(daemon.snapshot().uploader.paused) + w.logLines.slice(-10).join('\n'));
    expect(got).toHaveLength(0);

    writeFileSync(w.configPath, JSON.stringify(deepMerge(held, { alerts: { holdSec: 0 }, station: { settings: { name: 'Orchard' } } })), { mode: 0o600 });
    await daemon.reload();
    const firing = await until('firing alert', () => got.find((r) => r.body.event === 'uploads-paused' && r.body.state === 'firing'));
    expect(firing.body).toMatchObject({ station: 'Orchard', reason: 'token-rejected' });
  });
});
