import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DetectionPayload, DetectionUpdatePayload, StatePayload } from '../../src/mqtt/topics.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { buildCli, runCli } from '../helpers/cli.js';
import { until } from '../helpers/until.js';
import { createBroker, requireMosquitto, subscribe, type Broker, type Subscriber } from '../helpers/mosquitto.js';
import { addRealRecording } from '../helpers/real-recording.js';

/** Not a word that occurs anywhere else, so any appearance is the password leaking. */
const PASSWORD = 'mqtt-Pa55word-9f3b2c71';

const run = requireMosquitto() ? describe : describe.skip;

run('station-agent run with MQTT, end to end (real files, local service, Mosquitto with a password)', () => {
  let broker: Broker;
  let world: AgentWorld;
  let sub: Subscriber;
  const base = 'station-agent/garden';

  beforeAll(async () => {
    broker = await createBroker({ user: { name: 'station', password: PASSWORD } });
    await broker.start();
    sub = await subscribe(broker.url, [`${base}/#`, 'homeassistant/#'], { username: 'station', password: PASSWORD });
    world = await createAgentWorld({
      config: {
        input: { minConfidence: 0.15 },
        // The password both in the URL and in a file: neither may leak.
        mqtt: { enabled: true, url: `mqtt://station:${PASSWORD}@127.0.0.1:${broker.port}`, username: 'station', passwordFile: 'mqtt-password', clientId: 'garden' },
      },
    });
    writeFileSync(path.join(world.root, 'mqtt-password'), `${PASSWORD}\n`, { mode: 0o600 });
    await buildCli();
  }, 180_000);

  afterAll(async () => {
    await sub?.close();
    await world?.close();
    await broker?.close();
  });

  it('publishes each detection ingested from real files, then its service ids once uploaded', async () => {
    addRealRecording(world.inputDir);
    await world.startAgent();
    const counts = await world.waitDrained();
    const n = counts.detections.uploaded;
    expect(n).toBeGreaterThan(0);

    await sub.waitFor((m) => m.filter((x) => x.topic === `${base}/detection/update`).length >= n, `${n} updates`);
    const detections = sub.messages.filter((x) => x.topic === `${base}/detection`).map((x) => JSON.parse(x.payload) as DetectionPayload);
    const updates = sub.messages.filter((x) => x.topic === `${base}/detection/update`).map((x) => JSON.parse(x.payload) as DetectionUpdatePayload);
    expect(detections).toHaveLength(n);
    expect(updates).toHaveLength(n);
    // Each update follows its detection message, and carries the service's own ids.
    const service = await world.allDetections();
    const soundscapes = await world.allSoundscapes();
    for (const u of updates) {
      expect(u.event).toBe('uploaded');
      expect(detections.some((d) => d.id === u.id)).toBe(true);
      const remote = service.find((d) => d.id === u.detectionId);
      expect(remote, `service detection ${u.detectionId}`).toBeDefined();
      expect(remote!.species.scientificName).toBe(u.scientificName);
      expect(u.soundscapeId).toBe(soundscapes[0].id);
    }
    for (const d of detections) expect(d.timestamp).toMatch(/^2025-06-01T12:00:\d\d\.000\+02:00$/);

    await sub.waitFor(
      (m) => m.some((x) => x.topic === `${base}/state` && (JSON.parse(x.payload) as StatePayload).queue.waiting === 0 && JSON.parse(x.payload).lastUploadAt),
      'a state after the drain',
    );
  });

  it('never shows the password: logs, status --json, doctor --json, config show --json', async () => {
    const env = { STATION_AGENT_CONFIG: world.configPath };
    type Report = { mqtt: { broker: string; connected: boolean; pendingDetections: number } };
    // The daemon's snapshot follows the broker session: on a loaded machine it may lag a little.
    let last: Awaited<ReturnType<typeof runCli>> | undefined;
    const status = await until(
      'status showing the broker connected and nothing pending',
      async () => {
        last = await runCli(['status', '--json', '--offline'], { env });
        const r = JSON.parse(last.stdout) as Report;
        return (last.code !== 0 || (r.mqtt.connected && r.mqtt.pendingDetections === 0)) && last;
      },
      30_000,
      () => last?.stdout ?? '',
    );
    expect(status.code).toBe(0);
    const report = JSON.parse(status.stdout) as Report;
    expect(report.mqtt).toMatchObject({ connected: true, pendingDetections: 0 });
    expect(report.mqtt.broker).toBe(`mqtt://<redacted>@127.0.0.1:${broker.port}`);

    const doctor = await runCli(['doctor', '--json', '--offline'], { env });
    const mqttCheck = (JSON.parse(doctor.stdout) as { checks: { id: string; status: string }[] }).checks.find((c) => c.id === 'mqtt');
    expect(mqttCheck?.status).toBe('pass');
    const show = await runCli(['config', 'show', '--json'], { env });
    expect(show.code).toBe(0);

    // A wrong password: the check fails, and says so without either password.
    const config = JSON.parse(readFileSync(world.configPath, 'utf8')) as { mqtt: Record<string, unknown> };
    writeFileSync(path.join(world.root, 'wrong-password'), 'wrong-Secret-77\n', { mode: 0o600 });
    writeFileSync(
      path.join(world.root, 'wrong.json'),
      JSON.stringify({ ...config, mqtt: { ...config.mqtt, passwordFile: 'wrong-password', url: `mqtt://127.0.0.1:${broker.port}` } }),
      { mode: 0o600 },
    );
    const wrong = await runCli(['doctor', '--json', '--offline', '--config', path.join(world.root, 'wrong.json')]);
    const failed = (JSON.parse(wrong.stdout) as { checks: { id: string; status: string; hint: string }[] }).checks.find((c) => c.id === 'mqtt');
    expect(failed?.status).toBe('fail');
    expect(failed?.hint).toMatch(/password/);

    for (const [what, text] of [
      ['log', world.logLines.join('\n')],
      ['status', status.stdout + status.stderr],
      ['doctor', doctor.stdout + doctor.stderr],
      ['config show', show.stdout + show.stderr],
      ['doctor with a wrong password', wrong.stdout + wrong.stderr],
    ] as const) {
      expect(text, what).not.toContain(PASSWORD);
      expect(text, what).not.toContain('wrong-Secret-77');
    }
    expect(world.logLines.some((l) => l.includes('mqtt: connected'))).toBe(true);
  }, 120_000);
});
