import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { getMeta } from '../../src/queue/index.js';
import { AuditComponent } from '../../src/daemon/audit.js';
import { HeartbeatComponent } from '../../src/daemon/heartbeat.js';
import { createAgentWorld, TOKEN, type AgentWorld } from '../helpers/agent-world.js';
import { addRealRecording } from '../helpers/real-recording.js';
import { until } from '../helpers/until.js';

let world: AgentWorld | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await world?.close();
  await receiver?.close();
  world = undefined;
  receiver = undefined;
});

const RECORDINGS = 4;
const addRecordings = (w: AgentWorld, from = 0) => {
  for (let i = from; i < from + RECORDINGS; i++) addRealRecording(w.inputDir, `20250601_10${String(i).padStart(2, '0')}00`, i);
};

describe('the daemon audits delivery', () => {
  it('audits yesterday once a day from audit.hour: every lost detection found and sent again once; the next tick does not audit again', async () => {
    world = await createAgentWorld({ config: { retention: { keepUploadedDays: 3 }, audit: { hour: 3 } } });
    world.emulator.setFaults('lose-detection=0.3');
    addRecordings(world);
    // 2025-06-02 04:00 in Berlin: past audit.hour, and the recordings' day is yesterday.
    const daemon = await world.startAgent({ now: () => Date.parse('2025-06-02T02:00:00Z'), auditCheckMs: 3_600_000 });
    await until('every recording uploaded', () => (world!.counts().recordings.uploaded === RECORDINGS ? true : undefined), 30_000);
    await world.waitDrained(30_000);
    const lost = world.emulator.lies().map((l) => l.id);
    expect(lost.length).toBeGreaterThan(0);
    world.emulator.setFaults(null);

    await daemon.component(AuditComponent).tick();
    const audit = getMeta(daemon.queue, 'audit')!;
    expect(audit).toMatchObject({ trigger: 'daily', missing: lost.length, altered: 0, foreign: 0, requeued: lost.length, dailyDate: '2025-06-02', runs: 1 });
    expect(audit.findings.map((f) => f.remoteId).sort()).toEqual([...lost].sort());
    await world.waitDrained(30_000);
    expect((await world.allDetections()).length).toBe(world.counts().detections.uploaded);

    await daemon.component(AuditComponent).tick();
    expect(getMeta(daemon.queue, 'audit')!.runs).toBe(1);
    const text = world.logLines.join('\n');
    expect(text).toContain(`delivery audit: ${lost.length} missing, 0 altered, 0 foreign at the service`);
    expect(text).not.toContain(TOKEN);
  });

  it('audits the last hour after an outage (uploads failing, then one succeeding): what it lost is found and sent again once; no outage, no audit', async () => {
    // audit.hour 23: the daily audit is not due at 12:30 (Berlin), only the outage's.
    world = await createAgentWorld({ config: { retention: { keepUploadedDays: 3 }, audit: { hour: 23 } } });
    world.emulator.setFaults('5xx=1');
    addRecordings(world);
    // The clock runs from 2025-06-01 12:30 in Berlin: the recordings (heard from 12:00, the result files' times) lie in the last hour.
    const offset = Date.parse('2025-06-01T10:30:00Z') - Date.now();
    const daemon = await world.startAgent({ now: () => Date.now() + offset, auditCheckMs: 3_600_000 });
    const audit = daemon.component(AuditComponent);
    let retries = 0;
    daemon.context.bus.on('outcome', ({ outcome }) => {
      if (outcome === 'retry') retries++;
    });
    await until('uploads failing', () => (retries > 0 ? true : undefined), 30_000);
    // Nothing uploaded yet, no outage over: a tick audits nothing.
    await audit.tick();
    expect(getMeta(daemon.queue, 'audit')).toBeUndefined();

    // The service is back, and loses some detections it accepts.
    world.emulator.setFaults('lose-detection=0.4');
    await until('every recording uploaded', () => (world!.counts().recordings.uploaded === RECORDINGS ? true : undefined), 60_000);
    await world.waitDrained(30_000);
    const lost = world.emulator.lies().map((l) => l.id).sort();
    expect(lost.length).toBeGreaterThan(0);
    world.emulator.setFaults(null);

    await audit.tick();
    const after = getMeta(daemon.queue, 'audit')!;
    expect(after).toMatchObject({ trigger: 'outage', missing: lost.length, altered: 0, foreign: 0, requeued: lost.length, runs: 1, dailyDate: null });
    // The last hour of the daemon's clock.
    expect(Date.parse(after.to) - Date.parse(after.from)).toBe(3_600_000);
    expect(Date.parse(after.to)).toBeGreaterThanOrEqual(Date.parse('2025-06-01T10:30:00Z'));
    expect(after.findings.map((f) => f.remoteId).sort()).toEqual(lost);
    await world.waitDrained(30_000);
    expect((await world.allDetections()).length).toBe(world.counts().detections.uploaded);

    // No new outage: the next tick audits nothing.
    await audit.tick();
    expect(getMeta(daemon.queue, 'audit')!.runs).toBe(1);
    expect(world.logLines.join('\n')).toContain(`delivery audit: ${lost.length} missing, 0 altered, 0 foreign at the service`);
  });
});

interface Receiver {
  url: string;
  pings: { method: string; path: string; body: string }[];
  /** Requests being held (stuck) right now. */
  held: number;
  /** While true, requests are held unanswered (a stuck monitor). */
  stuck: boolean;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const sockets = new Set<Socket>();
  const r: Receiver = { url: '', pings: [], held: 0, stuck: false, close: async () => {} };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      r.pings.push({ method: req.method ?? '', path: req.url ?? '', body: Buffer.concat(chunks).toString() });
      if (!r.stuck) return res.end('OK');
      r.held++;
      req.socket.on('close', () => r.held--);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  r.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return r;
}

const SECRET = '0b0c4f3e-5d1a-4f7e-9a2b-1c2d3e4f5a6b';

describe('the heartbeat against a real HTTP receiver', () => {
  it('pings while healthy, /fail with a one-line reason while not, and never logs the URL', async () => {
    receiver = await startReceiver();
    world = await createAgentWorld({ config: { alerts: { heartbeat: { url: `${receiver.url}/ping/${SECRET}`, intervalSec: 10 } } } });
    const daemon = await world.startAgent();
    await until('the first ping', () => receiver!.pings[0], 20_000);
    expect(receiver.pings[0]).toMatchObject({ method: 'GET', path: `/ping/${SECRET}` });

    const heartbeat = daemon.component(HeartbeatComponent);
    addRecordings(world);
    await world.waitDrained(30_000);
    // A disk below disk.minFreeMb is unhealthy: the disk monitor says so (its section of the state), then a ping.
    const before = receiver.pings.length;
    const state = daemon.context.state;
    const original = state.get.bind(state);
    (state as { get: typeof state.get }).get = ((section: Parameters<typeof state.get>[0]) =>
      section === 'disk' ? { freeBytes: 1_000_000, spoolBytes: 0, low: true } : original(section)) as typeof state.get;
    await heartbeat.beat();
    const fail = receiver.pings[before];
    expect(fail).toMatchObject({ method: 'POST', path: `/ping/${SECRET}/fail` });
    expect(fail.body).toMatch(/^free disk space .* below disk\.minFreeMb/);
    expect(fail.body).not.toContain('\n');
    (state as { get: typeof state.get }).get = original;
    await heartbeat.beat();
    expect(receiver.pings.at(-1)).toMatchObject({ method: 'GET', path: `/ping/${SECRET}` });
    expect(world.logLines.join('\n')).not.toContain(SECRET);
  });

  it('a stuck receiver does not slow uploads, and is given up on at the ping deadline', async () => {
    receiver = await startReceiver();
    receiver.stuck = true;
    world = await createAgentWorld({ config: { alerts: { heartbeat: { url: `${receiver.url}/ping/${SECRET}`, intervalSec: 10 } } } });
    await world.startAgent();
    await until('the first ping held', () => receiver!.pings[0], 20_000);
    addRecordings(world);
    // A recording goes to the service while the monitor still holds the ping: nothing waits for it.
    await until('a recording uploaded', () => (world!.counts().recordings.uploaded > 0 ? true : undefined), 30_000);
    expect(receiver.held).toBe(1);
    await world.waitDrained(30_000);
    const givenUp = await until('the stuck ping given up on', () => world!.logLines.find((l) => l.includes('heartbeat') && l.includes('within')), 30_000);
    expect(JSON.parse(givenUp)).toMatchObject({ level: 40, code: 'ERR_ALERT_RECEIVER', msg: `heartbeat ${receiver.url}/<redacted>: no complete answer within 10000 ms (the next ping in 10 s)` });
    expect(world.logLines.join('\n')).not.toContain(SECRET);
  });
});
