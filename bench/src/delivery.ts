import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startEmulator, type RunningEmulator } from '@station-agent/emulator';
import { createServiceClient } from '../../src/api/index.js';
import { runAudit } from '../../src/audit/audit.js';
import type { AuditReport } from '../../src/audit/report.js';
import { enqueueMany, markUploaded, openQueue, transitionWhere, type Queue } from '../../src/queue/index.js';
import { writeAgentConfig } from './agent-config.js';
import { benchWav, encodeOnce, writeBenchWav } from './audio.js';
import { createPiBox, type PiBox } from './cgroup.js';
import { cpuOf, dropWhole } from './cpu.js';
import type { BenchOptions } from './options.js';
import { CLI_MAIN, formatMemory, memoryDetail, procMemoryKb, sleep, split, startNodeIn, type Child, type MemoryKb } from './proc.js';
import { figure, type Figure } from './report.js';
import { recordingBaseName, resultCsv } from './result-files.js';
import { BENCH_TOKEN, STATION } from './service-process.js';
import { startCountingService, type CountingService } from './stored-detections.js';
import { unitEnvironment } from './unit-options.js';
import { countingProxy } from '../../test/helpers/tcp-proxy.js';
import { buildWorkload, SOUNDSCAPE_SECONDS, SPECIES, toEnqueueInput, type WorkRecording } from './workload.js';

/**
 * Verified delivery (issue 36): what the delivery audit and the heartbeat cost.
 *
 * 1. **On against off, side by side in one run.** Two daemons (`station-agent run`, the
 *    systemd unit's environment, production defaults, the clock check on), each in a
 *    Pi-sized box of its own (cgroup.ts: 0.1 of a core, 256 MiB; the box's cpuacct counts
 *    every tick, FLAC included) against a local service of its own: "off" with
 *    `audit.enabled: false` and no heartbeat, "on" with the audit (`audit.hour: 0`, so that its
 *    daily audit of yesterday runs, and its module is loaded, before the window) and the
 *    heartbeat at its shortest interval (10 s, 30 times the default 300) to a real HTTP
 *    receiver in this process. Once "on" has logged its audit: both VmRSS after `settleSec`,
 *    both CPU over `idleSec`, then the same recordings dropped into both folders at once (15 s
 *    WAV + a result CSV of 2 detections) and each box's CPU until its service stored them all.
 * 2. **One day's audit**, `runAudit` (the daemon's and the CLI's code) over a real socket to
 *    the local service, through a proxy that counts every byte each way (headers included).
 *    The day is seeded on both sides alike: the service's store holds `n` soundscapes and 3n
 *    detections for the station (copies of a real upload of each: a FLAC soundscape and one
 *    detection per species posted through the agent's client), and a real queue file holds the
 *    same items as uploaded with the service's ids. Measured: a clean day (zero findings), the
 *    last hour (what the audit after an outage reads), and the day with one detection lost (its
 *    species counts differ, so its detection listing is read).
 */
const QUOTA_CORES = 0.1;
const MEMORY_LIMIT = 256 * 1024 * 1024;
const DETECTIONS_PER_RECORDING = 2;
/** The audited day: 3 detections per recording, as docs/INSTALL.md's sizing of a day. */
const DAY_DETECTIONS_PER_RECORDING = 3;
const HEARTBEAT_SEC = 10;
/** A healthchecks.io-like secret in the ping's path: the bench also checks no agent log holds it. */
const PING_SECRET = '5d1a4f7e-9a2b-4c2d-8e4f-5a6b0b0c4f3e';

export async function runDelivery(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  const sides = await onAgainstOff(options, dir, log);
  const day = await auditOfADay(options.auditRecordings, dir, log);
  return [...sides, ...day];
}

interface Side {
  id: 'on' | 'off';
  service: CountingService;
  box: PiBox | null;
  agent: Child;
  inputDir: string;
}

async function onAgainstOff(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  const receiver = await startPingReceiver();
  const env = unitEnvironment();
  const sides: Side[] = [];
  try {
    for (const id of ['off', 'on'] as const) {
      const service = await startCountingService();
      const box = createPiBox(`station-agent-bench-delivery-${id}`, QUOTA_CORES, MEMORY_LIMIT);
      const sections =
        id === 'on'
          ? { audit: { enabled: true, hour: 0 }, alerts: { heartbeat: { url: `${receiver.url}/ping/${PING_SECRET}`, intervalSec: HEARTBEAT_SEC } } }
          : { audit: { enabled: false } };
      const cfg = writeAgentConfig({ dir: path.join(dir, id), serviceUrl: service.url, productionClock: true, sections });
      const agent = startNodeIn([box], [CLI_MAIN, 'run', '--config', cfg.configPath], { env });
      sides.push({ id, service, box, agent, inputDir: cfg.inputDir });
    }
    const [off, on] = sides;
    await Promise.all(sides.map((s) => s.agent.waitForLine(/station-agent running/, 120_000)));
    // The audit component checks every minute; its first daily audit (of yesterday) loads its module.
    await on.agent.waitForLine(/delivery audit/, 180_000);
    await sleep(options.settleSec * 1000);
    const memory = sides.map((s) => {
      const m = procMemoryKb(s.agent.pid);
      if (!m) throw new Error(`delivery: the agent (${s.id}) is gone: ${s.agent.stderrTail().slice(-1000)}`);
      return m;
    });
    log(`delivery: idle VmRSS, audit and heartbeat off ${formatMemory(memory[0])}, on ${formatMemory(memory[1])}`);

    const pings0 = receiver.pings;
    const cpu0 = sides.map((s) => cpuOf(s.box, s.agent));
    const t0 = performance.now();
    await sleep(options.idleSec * 1000);
    const wall = (performance.now() - t0) / 1000;
    const idle = sides.map((s, i) => ((cpuOf(s.box, s.agent) - cpu0[i]) / wall) * 100);
    const pings = receiver.pings - pings0;
    log(`delivery: idle CPU over ${wall.toFixed(1)} s: off ${idle[0].toFixed(3)} %, on ${idle[1].toFixed(3)} % of a core (${pings} heartbeat pings)`);

    const n = options.deliveryRecordings;
    const wav = benchWav(SOUNDSCAPE_SECONDS);
    const startMs = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;
    const before = sides.map((s) => cpuOf(s.box, s.agent));
    for (let i = 0; i < n; i++) {
      const base = recordingBaseName(startMs + i * SOUNDSCAPE_SECONDS * 1000);
      for (const s of sides) {
        dropWhole(s.inputDir, `${base}.wav`, wav);
        dropWhole(s.inputDir, `${base}.BirdNET.results.csv`, resultCsv(base, DETECTIONS_PER_RECORDING, i));
      }
    }
    const perRecording = await Promise.all(
      sides.map(async (s, i) => {
        await s.service.untilStored(n * DETECTIONS_PER_RECORDING, 1_800_000, (missing) => `delivery (${s.id}): ${missing} detections not stored within 30 min: ${s.agent.stderrTail().slice(-1000)}`);
        return ((cpuOf(s.box, s.agent) - before[i]) / n) * 1000;
      }),
    );
    log(`delivery: CPU per recording (${n}), off ${perRecording[0].toFixed(1)} ms, on ${perRecording[1].toFixed(1)} ms`);
    const leaked = sides.some((s) => s.agent.stdout().includes(PING_SECRET) || s.agent.stderrTail().includes(PING_SECRET));
    if (leaked) throw new Error('delivery: an agent log holds the heartbeat URL\'s secret');
    const mb = (m: MemoryKb) => m.vmRss / 1024;
    const limits = off.box && on.box ? `${QUOTA_CORES} CPU, 256 MiB each` : 'no cgroup (v1 not writable): no quota';
    return [
      figure({ id: 'delivery.idleRssOff', name: `delivery: idle agent VmRSS, audit and heartbeat off (${split(memory[0])})`, value: mb(memory[0]), unit: 'MB', digits: 1, detail: { ...memoryDetail(memory[0]) } }),
      figure({ id: 'delivery.idleRssOn', name: `delivery: idle agent VmRSS, audit (run once) and heartbeat on (${split(memory[1])})`, value: mb(memory[1]), unit: 'MB', digits: 1, detail: { ...memoryDetail(memory[1]) } }),
      figure({ id: 'delivery.idleRssOnVsOff', name: 'delivery: idle VmRSS, on / off', value: mb(memory[1]) / mb(memory[0]), unit: 'x', target: { op: '<=', value: 1.05 } }),
      figure({ id: 'delivery.idleCpuOff', name: `delivery: idle CPU, off (${options.idleSec} s, ${limits})`, value: idle[0], unit: '% of a core', digits: 3 }),
      figure({
        id: 'delivery.idleCpuOn',
        name: `delivery: idle CPU, on (a heartbeat every ${HEARTBEAT_SEC} s: ${pings} pings in the window)`,
        value: idle[1],
        unit: '% of a core',
        digits: 3,
        target: { op: '<=', value: 1 },
        targetUnit: ' %',
        detail: { windowSec: wall, pings },
      }),
      figure({ id: 'delivery.perRecordingOff', name: `delivery: CPU per recording, off (${n} recordings, ${limits})`, value: perRecording[0], unit: 'ms', digits: 1 }),
      figure({ id: 'delivery.perRecordingOn', name: 'delivery: CPU per recording, on', value: perRecording[1], unit: 'ms', digits: 1 }),
      figure({ id: 'delivery.perRecordingOnVsOff', name: 'delivery: CPU per recording, on / off', value: perRecording[1] / perRecording[0], unit: 'x', target: { op: '<=', value: 1.1 } }),
    ];
  } finally {
    await Promise.all(sides.map((s) => s.agent.stop(30_000)));
    await Promise.all(sides.map((s) => s.service.close()));
    for (const s of sides) s.box?.remove();
    await receiver.close();
  }
}

/** A monitor that answers every ping at once and counts them. */
async function startPingReceiver(): Promise<{ url: string; readonly pings: number; close(): Promise<void> }> {
  let pings = 0;
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      pings++;
      res.end('OK');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get pings() {
      return pings;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function auditOfADay(n: number, dir: string, log: (line: string) => void): Promise<Figure[]> {
  // Yesterday in the station's zone (UTC here): n recordings of 15 s from its midnight.
  const dayStart = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 86_400_000;
  const dayEnd = dayStart + 86_400_000 - 1;
  const workload = buildWorkload({ soundscapes: n, detections: n * DAY_DETECTIONS_PER_RECORDING, startMs: dayStart });
  const emulator = await startEmulator({ stations: [{ token: BENCH_TOKEN, name: 'Bench station', ...STATION }] });
  const q = openQueue(path.join(dir, 'audit-queue.db'));
  try {
    const t = performance.now();
    const remote = await seedService(emulator, workload, dayStart - 2 * 86_400_000, dir);
    seedQueue(q, workload, remote);
    log(`delivery: one day seeded (${n} soundscapes, ${n * DAY_DETECTIONS_PER_RECORDING} detections, at the service and in the queue) in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const measure = async (what: string, fromMs: number, toMs: number) => {
      const proxy = await countingProxy(emulator.port);
      const client = createServiceClient({ baseUrl: `http://127.0.0.1:${proxy.port}`, token: BENCH_TOKEN });
      try {
        const t0 = performance.now();
        const report = await runAudit(q, client, { fromMs, toMs, zone: STATION.timezone, repair: 'report' });
        const ms = performance.now() - t0;
        log(`delivery: audit of ${what}: ${report.cost.requests} requests, ${proxy.bytes.sent} bytes sent, ${proxy.bytes.received} received (JSON bodies ${report.cost.bytes}), ${ms.toFixed(0)} ms; findings ${JSON.stringify(report.totals)}`);
        return { report, sent: proxy.bytes.sent, received: proxy.bytes.received, ms };
      } finally {
        await client.close();
        await proxy.close();
      }
    };
    const clean = await measure('a clean day', dayStart, dayEnd);
    expectClean(clean.report, n);
    const hour = await measure('the last hour', dayEnd - 3_600_000 + 1, dayEnd);
    expectClean(hour.report, null);
    // One detection lost at the service: the day's species counts differ, its detection listing is read.
    emulator.store.detections.delete(remote.detections[0][0]);
    const lost = await measure('a day with one detection lost', dayStart, dayEnd);
    if (lost.report.totals.missing !== 1 || lost.report.findings.length !== 1) throw new Error(`delivery: the audit found ${JSON.stringify(lost.report.totals)} with one detection lost`);

    const label = `${n.toLocaleString('en-US')} soundscapes and ${(n * DAY_DETECTIONS_PER_RECORDING).toLocaleString('en-US')} detections`;
    const kb = (bytes: number) => bytes / 1000;
    const row = (id: string, what: string, m: typeof clean) => [
      figure({ id: `delivery.audit.${id}.requests`, name: `delivery audit, ${what}: requests`, value: m.report.cost.requests, unit: 'requests', digits: 0 }),
      figure({
        id: `delivery.audit.${id}.bytes`,
        name: `delivery audit, ${what}: bytes on the wire, sent + received (headers included)`,
        value: kb(m.sent + m.received),
        unit: 'KB',
        digits: 1,
        detail: { sentBytes: m.sent, receivedBytes: m.received, jsonBodyBytes: m.report.cost.bytes, wallMs: m.ms },
      }),
    ];
    return [
      ...row('cleanDay', `one clean day of ${label}`, clean),
      figure({ id: 'delivery.audit.cleanDay.bytesPerSoundscape', name: 'delivery audit, a clean day: bytes received per soundscape', value: clean.received / n, unit: 'bytes', digits: 0 }),
      ...row('lastHour', 'the last hour of that day (the audit after an outage)', hour),
      ...row('oneLost', 'that day with one detection lost (its detection listing read)', lost),
      figure({ id: 'delivery.audit.oneLost.bytesPerDetection', name: 'delivery audit, a day whose counts differ: bytes received per detection, beyond the clean day', value: (lost.received - clean.received) / (n * DAY_DETECTIONS_PER_RECORDING), unit: 'bytes', digits: 0 }),
    ];
  } finally {
    q.close();
    await emulator.close();
  }
}

function expectClean(report: AuditReport, soundscapes: number | null): void {
  const { missing, altered, foreign } = report.totals;
  if (missing + altered + foreign !== 0) throw new Error(`delivery: a clean day's audit found ${JSON.stringify(report.totals)}`);
  if (soundscapes !== null && report.days[0]?.soundscapes.acknowledged !== soundscapes) throw new Error(`delivery: the audit saw ${report.days[0]?.soundscapes.acknowledged} soundscapes, ${soundscapes} were seeded`);
}

interface RemoteIds {
  soundscapes: number[];
  detections: number[][];
  /** The FLAC's bytes as the service holds them: what the queue records as sent. */
  filesize: number;
}

/**
 * The service's side of the day: a real soundscape upload and a real detection per species
 * (through the agent's client, outside the day), then copies of their stored rows at the
 * workload's times, one transaction.
 */
async function seedService(emulator: RunningEmulator, workload: WorkRecording[], templateMs: number, dir: string): Promise<RemoteIds> {
  const wavFile = path.join(dir, 'template.wav');
  const flacFile = path.join(dir, 'template.flac');
  writeBenchWav(wavFile, SOUNDSCAPE_SECONDS);
  await encodeOnce(wavFile, flacFile);
  const client = createServiceClient({ baseUrl: emulator.url, token: BENCH_TOKEN });
  const at = new Date(templateMs).toISOString();
  const soundscape = await client.uploadSoundscape({ data: readFileSync(flacFile), timestamp: at });
  const templates = new Map<string, number>();
  for (const [scientificName, commonName] of SPECIES) {
    const d = await client.postDetection({ timestamp: at, scientificName, commonName, lat: STATION.lat, lon: STATION.lon, confidence: 0.8, soundscapeId: soundscape.id, soundscapeStartTime: 0, soundscapeEndTime: 3 });
    templates.set(scientificName, d.id);
  }
  await client.close();
  const store = emulator.store;
  const { id: _s, createdMs: _c, ...soundscapeRow } = store.soundscapes.byId(soundscape.id)!;
  const now = Date.now();
  return store.transaction(() => {
    const ids: RemoteIds = { soundscapes: [], detections: [], filesize: soundscapeRow.filesize };
    for (const r of workload) {
      const timestampMs = Date.parse(r.timestamp);
      const s = store.soundscapes.insert({ ...soundscapeRow, timestampMs, fileKey: `${soundscapeRow.stationId}/bench-${r.index}.flac` }, now);
      ids.soundscapes.push(s.id);
      ids.detections.push(
        r.detections.map((d) => {
          const { id: _d, createdMs: _dc, ...row } = store.detections.byId(templates.get(d.scientificName)!)!;
          return store.detections.insert({ ...row, timestampMs: Date.parse(d.timestamp), confidence: d.confidence, soundscapeId: s.id, soundscapeStartTime: d.startS, soundscapeEndTime: d.endS }, now).id;
        }),
      );
    }
    return ids;
  });
}

/** The queue's side: the same recordings and detections, uploaded with the service's ids (the uploader's own transitions). */
function seedQueue(q: Queue, workload: WorkRecording[], remote: RemoteIds): void {
  for (let i = 0; i < workload.length; i += 1_000) {
    enqueueMany(q, workload.slice(i, i + 1_000).map((r) => toEnqueueInput(r, `/bench/spool/bench-${r.index}.flac`, remote.filesize)));
  }
  q.write(() => {
    for (const r of transitionWhere(q, 'recording', 'sending', { from: ['pending'] })) {
      const index = Number(r.sourceKey.slice('bench-'.length));
      markUploaded(q, 'recording', r.id, remote.soundscapes[index], { sentBytes: remote.filesize });
    }
    for (const d of transitionWhere(q, 'detection', 'sending', { from: ['pending'] })) {
      const [index, j] = d.dedupeKey.slice('bench-'.length).split('|').map(Number);
      markUploaded(q, 'detection', d.id, remote.detections[index][j]);
    }
  });
}
