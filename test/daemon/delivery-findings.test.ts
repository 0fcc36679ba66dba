import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuditComponent } from '../../src/daemon/audit.js';
import type { StatePayload } from '../../src/mqtt/topics.js';
import type { StatusReport } from '../../src/status/report.js';
import { createAgentWorld, TOKEN, type AgentWorld } from '../helpers/agent-world.js';
import { buildCli, parseJson, runCli } from '../helpers/cli.js';
import { createBroker, requireMosquitto, subscribe, type Broker, type Subscriber } from '../helpers/mosquitto.js';
import { addRealRecording } from '../helpers/real-recording.js';
import { until } from '../helpers/until.js';
import { parseSamples, valueOf } from '../metrics/prometheus-text.js';

/**
 * Where the daemon's delivery audit says what it found (issue 36, "Findings appear in
 * status, in metrics, as a delivery-mismatch alert through the webhook and MQTT"): the real
 * daemon uploads real recordings to the real local service, which loses some detections;
 * its daily audit finds them, and each outlet is read as its user reads it: `status --json`
 * as a process, `/metrics` over HTTP, the webhook at a real HTTP receiver, the state topic
 * and Home Assistant discovery from a real Mosquitto broker. None holds the token.
 */
const run = requireMosquitto() ? describe : describe.skip;

let world: AgentWorld | undefined;
let broker: Broker | undefined;
let sub: Subscriber | undefined;
let receiver: Server | undefined;
afterEach(async () => {
  await sub?.close();
  await world?.close();
  await broker?.close();
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  world = broker = sub = receiver = undefined;
});

beforeAll(async () => {
  await buildCli();
}, 180_000);

async function startReceiver(): Promise<{ url: string; got: Record<string, unknown>[]; raw: string[] }> {
  const got: Record<string, unknown>[] = [];
  const raw: string[] = [];
  receiver = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      raw.push(text);
      got.push(JSON.parse(text) as Record<string, unknown>);
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/station`, got, raw };
}

function metricsUrl(w: AgentWorld): string {
  for (const line of w.logLines) {
    const entry = JSON.parse(line) as { msg?: string; url?: string };
    if (entry.msg?.startsWith('metrics endpoint listening') && entry.url) return entry.url;
  }
  throw new Error('the daemon logged no metrics endpoint');
}

const RECORDINGS = 4;

run('the delivery audit\'s findings, where operators read them', () => {
  it('status --json, /metrics, the webhook and MQTT all say what the daily audit found, and never the token', async () => {
    const hook = await startReceiver();
    broker = await createBroker();
    await broker.start();
    const base = 'station-agent/garden';
    sub = await subscribe(broker.url, [`${base}/state`, 'homeassistant/binary_sensor/garden/#']);
    world = await createAgentWorld({
      config: {
        retention: { keepUploadedDays: 3 },
        audit: { hour: 3 },
        metrics: { listen: '127.0.0.1:0' },
        alerts: { webhook: { url: hook.url }, holdSec: 0, minIntervalSec: 0 },
        mqtt: { enabled: true, url: broker.url, clientId: 'garden' },
        station: { settings: { name: 'Garden' } },
      },
    });
    world.emulator.setFaults('lose-detection=0.3');
    for (let i = 0; i < RECORDINGS; i++) addRealRecording(world.inputDir, `20250601_10${String(i).padStart(2, '0')}00`, i);
    // 2025-06-02 04:00 in Berlin and on: past audit.hour, the recordings' day is yesterday.
    const offset = Date.parse('2025-06-02T02:00:00Z') - Date.now();
    const daemon = await world.startAgent({ now: () => Date.now() + offset, alertCheckMs: 100, auditCheckMs: 3_600_000 });
    await until('every recording uploaded', () => (world!.counts().recordings.uploaded === RECORDINGS ? true : undefined), 30_000);
    await world.waitDrained(30_000);
    const lost = world.emulator.lies().map((l) => l.id).sort();
    expect(lost.length).toBeGreaterThan(0);
    world.emulator.setFaults(null);

    // Before the audit: no mismatch anywhere.
    expect(hook.got.filter((b) => b.event === 'delivery-mismatch')).toEqual([]);
    await sub.waitFor((m) => m.some((x) => x.topic === `${base}/state`), 'a state');
    const stateBefore = JSON.parse(sub.messages.filter((x) => x.topic === `${base}/state`).at(-1)!.payload) as StatePayload;
    expect(stateBefore).toMatchObject({ deliveryMismatch: false, delivery: null });

    await daemon.component(AuditComponent).tick();

    // The webhook: one firing delivery-mismatch notice with the counts.
    const firing = await until('the delivery-mismatch alert', () => hook.got.find((b) => b.event === 'delivery-mismatch' && b.state === 'firing'), 30_000);
    expect(firing).toMatchObject({ station: 'Garden', reason: null });
    expect(String(firing.message)).toContain(`${lost.length} missing, 0 altered, 0 foreign`);

    // MQTT: the state says so, and Home Assistant has a problem sensor reading it.
    await sub.waitFor((m) => m.some((x) => x.topic === `${base}/state` && (JSON.parse(x.payload) as StatePayload).deliveryMismatch), 'a state with the mismatch');
    const state = JSON.parse(sub.messages.filter((x) => x.topic === `${base}/state`).at(-1)!.payload) as StatePayload;
    expect(state.delivery).toMatchObject({ missing: lost.length, altered: 0, foreign: 0, requeued: lost.length, from: '2025-05-31T22:00:00.000Z', to: '2025-06-01T21:59:59.999Z' });
    const sensor = sub.messages.find((x) => x.topic === 'homeassistant/binary_sensor/garden/delivery_mismatch/config');
    expect(JSON.parse(sensor!.payload)).toMatchObject({ device_class: 'problem', state_topic: `${base}/state` });

    // Metrics: the findings by kind, the audit's time and cost.
    const samples = parseSamples(await (await fetch(`${metricsUrl(world)}/metrics`)).text());
    expect(valueOf(samples, 'station_agent_audit_findings', { finding: 'missing' })).toBe(lost.length);
    expect(valueOf(samples, 'station_agent_audit_findings', { finding: 'altered' })).toBe(0);
    expect(valueOf(samples, 'station_agent_audit_findings', { finding: 'foreign' })).toBe(0);
    expect(valueOf(samples, 'station_agent_audit_runs_total')).toBe(1);
    expect(valueOf(samples, 'station_agent_audit_requests_total')).toBeGreaterThanOrEqual(3);
    expect(valueOf(samples, 'station_agent_audit_bytes_total')).toBeGreaterThan(0);
    expect(valueOf(samples, 'station_agent_audit_last_timestamp_seconds')).toBeGreaterThan(Date.parse('2025-06-02T02:00:00Z') / 1000);

    // status --json, as a process beside the running daemon.
    const status = await runCli(['status', '--json', '--offline', '--config', world.configPath], { timeoutMs: 30_000 });
    const report = parseJson<StatusReport>(status);
    expect(report.delivery).toMatchObject({ trigger: 'daily', missing: lost.length, altered: 0, foreign: 0, requeued: lost.length });
    expect(report.delivery!.findings.map((f) => f.remoteId).sort()).toEqual(lost);
    expect(report.delivery!.findings.every((f) => f.kind === 'detection' && f.finding === 'missing' && /^d\d+$/.test(f.item ?? ''))).toBe(true);

    const everything = [status.stdout, status.stderr, ...hook.raw, ...sub.messages.map((m) => m.payload), world.logLines.join('\n')].join('\n');
    expect(everything).not.toContain(TOKEN);
  });
});
