import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { writeAgentConfig } from './agent-config.js';
import { benchWav } from './audio.js';
import type { BenchOptions } from './options.js';
import { CLI_MAIN, sleep, startProcess, type Child } from './proc.js';
import { figure, type Figure } from './report.js';
import { recordingBaseName, resultCsv } from './result-files.js';
import { startCountingService, type CountingService } from './stored-detections.js';
import { SOUNDSCAPE_SECONDS, SPECIES } from './workload.js';
import { bytesWritten, isSync, parseTrace, straceArgs, type TracedCall } from './write-cost.js';

/**
 * What one recording costs the SD card, end to end: from the analyzer's folder to the
 * service (ingest, queue, encoding, upload, outcomes). `station-agent run` runs under
 * `strace -f -y -ttt` (write-cost.ts), which logs every write and sync call of the agent,
 * its threads and its `flac` children with the file behind it and the time. The run is
 * cut into three phases by the bench's clock:
 * - service up: `writeRecordings` recordings, one at a time (the next once the service
 *   stored the last one's detections and the agent wrote nothing for {@link QUIET_MS}: as
 *   at a station, where one comes every 15 s, no two recordings share a commit);
 * - service down: the local service stopped (connections refused), as many recordings
 *   again, each once the last one's detections are queued and the agent is quiet;
 * - the drain after the service returns (on the same port), until it stored them all.
 * Each phase's calls are summed per file and divided by the recordings of the phase
 * (the drain by those of the outage). Start-up (before the first recording) is not counted.
 *
 * Modes: results (a WAV and its result CSV), the analyzerpi stream folder (a WAV, its
 * `<wav>.json` once the agent holds the WAV, then the analyzer deletes the WAV), and the
 * same stream folder on a RAM disk (/dev/shm) where that is another filesystem, with the
 * default `input.ramDiskAudio: copy` and with `keep`.
 */
const DETECTIONS_PER_RECORDING = 3;
/** No traced write for this long: the agent is done with what it was given. */
const QUIET_MS = 500;
/** analyzerpi: the WAV is deleted this long after its JSON is written, as the analyzer does it (its own clock, not the agent's). */
const ANALYZER_DELETES_AFTER_MS = 2_000;
/**
 * A short probe interval and backoff, so that the drain starts within seconds of the
 * service's return (production: 60 s and 300 s). The failed attempts of the outage are
 * counted in "service down": more of them than production would make in as long.
 */
const UPLOAD = { probeIntervalSec: 2, backoffMaxMs: 5_000 };

export type WritesMode = 'results' | 'analyzerpi' | 'analyzerpi-ramdisk' | 'analyzerpi-ramdisk-keep';
export type WritesPhase = 'up' | 'down' | 'drain';
const PHASES: readonly WritesPhase[] = ['up', 'down', 'drain'];
const MODE_LABEL: Record<WritesMode, string> = {
  results: 'results mode',
  analyzerpi: 'analyzerpi stream folder',
  'analyzerpi-ramdisk': 'analyzerpi stream folder on a RAM disk',
  'analyzerpi-ramdisk-keep': 'analyzerpi stream folder on a RAM disk, input.ramDiskAudio keep',
};
const PHASE_LABEL: Record<WritesPhase, string> = { up: 'service up', down: 'service down', drain: 'drain after the service returns' };
const RAM_DISK = '/dev/shm';

/** One phase's writes: totals, and the counts per file kind (queue.db, queue.db-wal, audio files, folders, other). */
export interface PhaseWrites {
  recordings: number;
  seconds: number;
  fsyncs: number;
  queueBytes: number;
  audioBytes: number;
  otherBytes: number;
  byFile: Record<string, { fsyncs: number; bytes: number }>;
}

export async function runWrites(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  const n = options.writeRecordings;
  const strace = spawnSync('strace', ['-V'], { encoding: 'utf8' });
  const modes: WritesMode[] = ['results', 'analyzerpi'];
  mkdirSync(dir, { recursive: true });
  if (existsSync(RAM_DISK) && statSync(RAM_DISK).dev !== statSync(dir).dev) modes.push('analyzerpi-ramdisk', 'analyzerpi-ramdisk-keep');
  if (strace.error || strace.status !== 0) {
    log('writes: not measured: strace is not installed (apt-get install strace)');
    return modes.flatMap((mode) => figuresOf(mode, null, n, 'strace is not installed'));
  }
  // The modes run side by side, each with its own agent, service and folders: the counts
  // are of system calls, which the other modes' load does not change (only their timing).
  const traced = await Promise.all(modes.map((mode) => traceMode(mode, n, path.join(dir, mode), log)));
  return modes.flatMap((mode, k) => {
    for (const phase of PHASES) {
      const p = traced[k][phase];
      log(`writes ${mode}, ${PHASE_LABEL[phase]}: ${p.recordings} recordings in ${p.seconds.toFixed(1)} s: ${p.fsyncs} fsyncs, ${p.queueBytes} bytes to the queue database, ${p.audioBytes} audio bytes; ${JSON.stringify(p.byFile)}`);
    }
    return figuresOf(mode, traced[k], n, null);
  });
}

function figuresOf(mode: WritesMode, phases: Record<WritesPhase, PhaseWrites> | null, n: number, missing: string | null): Figure[] {
  return PHASES.flatMap((phase) => {
    const p = phases?.[phase] ?? null;
    const per = (v: number | null | undefined) => (p && v != null ? v / p.recordings : null);
    const up = phase === 'up';
    const head = `writes per recording, ${MODE_LABEL[mode]}, ${PHASE_LABEL[phase]}`;
    const why = missing ? ` (${missing})` : '';
    const detail = { mode, phase, recordings: p?.recordings ?? n, detectionsPerRecording: DETECTIONS_PER_RECORDING, ...(p ? { seconds: p.seconds, byFile: p.byFile, otherBytes: p.otherBytes } : {}) };
    return [
      figure({
        id: `writes.${mode}.${phase}.fsyncs`,
        name: `${head}: fsyncs${p ? ` (${fsyncBreakdown(p)})` : why}`,
        value: per(p?.fsyncs),
        unit: 'fsyncs',
        digits: 1,
        ...(up ? { target: { op: '<=', value: 3 } } : {}),
        detail,
      }),
      figure({ id: `writes.${mode}.${phase}.queueKb`, name: `${head}: written to the queue database${why}`, value: per(p && p.queueBytes / 1000), unit: 'KB', digits: 1, ...(up ? { target: { op: '<=', value: 32 } } : {}) }),
      figure({ id: `writes.${mode}.${phase}.audioKb`, name: `${head}: audio written${why}`, value: per(p && p.audioBytes / 1000), unit: 'KB', digits: 1, ...(up ? { target: { op: '<=', value: 0 } } : {}) }),
    ];
  });
}

/** `queue.db-wal 5.2, queue.db 1.0, audio 0.8, folders 1.0` per recording, largest first. */
function fsyncBreakdown(p: PhaseWrites): string {
  const parts = Object.entries(p.byFile)
    .filter(([, c]) => c.fsyncs > 0)
    .sort((a, b) => b[1].fsyncs - a[1].fsyncs)
    .map(([file, c]) => `${file} ${(c.fsyncs / p.recordings).toFixed(1)}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}

async function traceMode(mode: WritesMode, n: number, root: string, log: (line: string) => void): Promise<Record<WritesPhase, PhaseWrites>> {
  mkdirSync(root, { recursive: true });
  const keep = mode === 'analyzerpi-ramdisk-keep';
  const ramDir = mode === 'analyzerpi-ramdisk' || keep ? mkdtempSync(path.join(RAM_DISK, 'station-agent-bench-')) : null;
  const labels = path.join(root, 'labels.txt');
  writeFileSync(labels, `${SPECIES.map(([scientific, common]) => `${scientific}_${common}`).join('\n')}\n`);
  let service: CountingService = await startCountingService();
  const cfg = writeAgentConfig({
    dir: root,
    serviceUrl: service.url,
    format: mode === 'results' ? 'results' : 'analyzerpi',
    labels,
    ...(ramDir ? { inputDir: ramDir } : {}),
    ...(keep ? { ramDiskAudio: 'keep' as const } : {}),
    // Files are dropped whole: the watcher's quiet period (2 s by default) would only add waiting.
    // analyzerpi keeps it: the analyzer's deletion of the WAV comes within it, as at a station.
    ...(mode === 'results' ? { stableMs: 200 } : {}),
    upload: UPLOAD,
  });
  const traceFile = path.join(root, 'strace.txt');
  const agent = startProcess('strace', [...straceArgs(traceFile), process.execPath, CLI_MAIN, 'run', '--config', cfg.configPath], {
    // libuv's io_uring would move file writes out of the system calls strace sees.
    env: { ...process.env, UV_USE_IO_URING: '0' },
  });
  const wav = benchWav(SOUNDSCAPE_SECONDS);
  const startMs = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;
  const marks: number[] = [];
  try {
    await agent.waitForLine(/station-agent running/, 120_000);
    const pid = tracedPid(agent);
    const tail = new TraceTail(traceFile);
    await tail.quiet(QUIET_MS, 15_000);
    const queued = queuedDetections(path.join(cfg.dataDir, 'queue.db'));
    try {
      const drop = (i: number) =>
        dropRecording({
          mode,
          inputDir: cfg.inputDir,
          // With keep, WAVs are linked on sight in the near spool on the RAM disk (src/ingest/spool.ts).
          spoolIncoming: keep ? path.join(cfg.inputDir, '.station-agent-spool', 'incoming') : path.join(cfg.dataDir, 'spool', 'incoming'),
          pid,
          wav,
          startMs: startMs + i * SOUNDSCAPE_SECONDS * 1000,
          index: i,
          queued: () => queued() >= (i + 1) * DETECTIONS_PER_RECORDING,
        });
      const why = (what: string) => (missing: number) => `${mode}: ${missing} detections not ${what} within 2 min: ${agent.stderrTail().slice(-1000)}`;
      marks.push(Date.now() / 1000);
      for (let i = 0; i < n; i++) {
        await drop(i);
        await service.untilStored((i + 1) * DETECTIONS_PER_RECORDING, 120_000, why('stored'));
        await tail.quiet(QUIET_MS, 10_000);
      }
      marks.push(Date.now() / 1000);
      const port = service.port;
      await service.close();
      for (let i = n; i < 2 * n; i++) {
        await drop(i);
        await waitUntil(() => queued() >= (i + 1) * DETECTIONS_PER_RECORDING, 120_000, () => `${mode}: recording ${i} not queued within 2 min: ${agent.stderrTail().slice(-1000)}`);
        // Failed attempts write now and then while the service is away (every probe
        // interval at most): quiet comes between them; the cap is for a slow encode.
        await tail.quiet(QUIET_MS, 10_000);
      }
      marks.push(Date.now() / 1000);
      service = await startCountingService(port);
      await service.untilStored(n * DETECTIONS_PER_RECORDING, 120_000, why('stored after the service returned'));
      await tail.quiet(QUIET_MS, 10_000);
      marks.push(Date.now() / 1000);
    } finally {
      queued.close();
    }
  } finally {
    await stopTraced(agent);
    await service.close();
    if (ramDir) rmSync(ramDir, { recursive: true, force: true });
  }
  const calls = parseTrace(readFileSync(traceFile, 'utf8'));
  const kind = fileKinds(cfg.dataDir);
  const result = {} as Record<WritesPhase, PhaseWrites>;
  PHASES.forEach((phase, k) => {
    const [from, to] = [marks[k], marks[k + 1]];
    result[phase] = sumPhase(
      calls.filter((c) => c.time !== null && c.time >= from && c.time < to),
      kind,
      n,
      to - from,
    );
  });
  log(`writes ${mode}: traced ${calls.length} calls (start-up before the first recording not counted)`);
  return result;
}

export function sumPhase(calls: readonly TracedCall[], kind: (file: string) => string | null, recordings: number, seconds: number): PhaseWrites {
  const out: PhaseWrites = { recordings, seconds, fsyncs: 0, queueBytes: 0, audioBytes: 0, otherBytes: 0, byFile: {} };
  for (const c of calls) {
    if (c.file === null) continue;
    const key = kind(c.file);
    if (key === null) continue;
    const entry = (out.byFile[key] ??= { fsyncs: 0, bytes: 0 });
    const bytes = bytesWritten(c);
    entry.bytes += bytes;
    if (isSync(c)) {
      entry.fsyncs++;
      out.fsyncs++;
    }
    if (key.startsWith('queue.db')) out.queueBytes += bytes;
    else if (key === 'audio files') out.audioBytes += bytes;
    else out.otherBytes += bytes;
  }
  return out;
}

/**
 * The kind of file a traced path is: the queue's files by name (queue.db, queue.db-wal,
 * queue.db-journal), `folders` (a sync of a directory: SQLite's and the spool's renames),
 * `audio files` (anything in the spool, or named like audio), or its own name. Devices
 * and /proc are not the card.
 */
export function fileKinds(dataDir: string): (file: string) => string | null {
  const spool = path.join(dataDir, 'spool') + path.sep;
  const dirs = new Map<string, boolean>();
  const isDir = (file: string) => {
    let d = dirs.get(file);
    if (d === undefined) {
      try {
        d = statSync(file).isDirectory();
      } catch {
        d = false; // gone: a file deleted after use (folders stay)
      }
      dirs.set(file, d);
    }
    return d;
  };
  return (file) => {
    if (/^\/(dev|proc|sys)\//.test(file)) return null;
    if (path.dirname(file) === dataDir && path.basename(file).startsWith('queue.db')) return path.basename(file);
    if (isDir(file)) return 'folders';
    if (file.startsWith(spool) || /\.(wav|flac|part|tmp)$/i.test(file)) return 'audio files';
    return path.basename(file);
  };
}

/** The agent: the one process strace started. */
function tracedPid(strace: Child): number {
  const children = readFileSync(`/proc/${strace.pid}/task/${strace.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  if (children.length !== 1) throw new Error(`strace (pid ${strace.pid}) has ${children.length} children, expected the agent alone`);
  return Number(children[0]);
}

/** SIGTERM to the agent (strace exits with it); strace itself killed if the agent lingers. */
async function stopTraced(strace: Child): Promise<void> {
  let pid: number | null = null;
  try {
    pid = tracedPid(strace);
  } catch {
    // already gone
  }
  if (pid !== null) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // exited meanwhile
    }
  }
  const timer = setTimeout(() => void strace.stop(1_000), 15_000);
  await strace.exited;
  clearTimeout(timer);
}

interface Drop {
  mode: WritesMode;
  inputDir: string;
  spoolIncoming: string;
  pid: number;
  wav: Buffer;
  startMs: number;
  index: number;
  /** True once this recording's detections are in the queue. */
  queued: () => boolean;
}

/**
 * One recording into the analyzer's folder, as the analyzer writes it. Results: the WAV,
 * then its result CSV, each renamed in whole. analyzerpi: the WAV; once the agent holds it
 * (a hard link in `spool/incoming`, or the file open), its JSON; then the WAV deleted, as
 * the analyzer does seconds after analysing it.
 */
async function dropRecording(d: Drop): Promise<void> {
  if (d.mode === 'results') {
    const base = recordingBaseName(d.startMs);
    dropWhole(d.inputDir, `${base}.wav`, d.wav);
    dropWhole(d.inputDir, `${base}.BirdNET.results.csv`, resultCsv(base, DETECTIONS_PER_RECORDING, d.index));
    return;
  }
  const iso = new Date(d.startMs).toISOString();
  const name = `${iso.slice(0, 10)}-birdnet-${iso.slice(11, 19)}.wav`;
  const wavPath = path.join(d.inputDir, name);
  dropWhole(d.inputDir, name, d.wav);
  await waitUntil(() => existsSync(path.join(d.spoolIncoming, name)) || holdsOpen(d.pid, wavPath), 60_000, () => `the agent did not take ${wavPath} within 60 s`);
  const detections = Array.from({ length: DETECTIONS_PER_RECORDING }, (_, k) => ({
    start: k * 3,
    common_name: SPECIES[(d.index + k) % SPECIES.length][1],
    confidence: Number((0.5 + ((d.index * 7 + k * 13) % 50) / 100).toFixed(4)),
  }));
  dropWhole(d.inputDir, `${name}.json`, JSON.stringify({ file_name: `${name}.json`, timestamp: `${iso.slice(0, 19)}+00:00`, delay: 0, detections }));
  // The analyzer deletes the WAV seconds after its JSON, whether the agent took it in yet or not.
  await sleep(ANALYZER_DELETES_AFTER_MS);
  rmSync(wavPath);
  await waitUntil(d.queued, 120_000, () => `the detections of ${name}.json were not queued within 2 min`);
}

/** Written beside, then renamed into place: the watcher sees whole files only. */
function dropWhole(folder: string, name: string, content: string | Buffer): void {
  const tmp = path.join(folder, `.${name}.part`);
  writeFileSync(tmp, content);
  renameSync(tmp, path.join(folder, name));
}

function holdsOpen(pid: number, file: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === file;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/** Detections in the agent's queue, read from the bench's own read-only connection (its reads are not traced). */
function queuedDetections(queueFile: string): (() => number) & { close(): void } {
  let db: Database.Database | null = null;
  const count = () => {
    if (!db) {
      if (!existsSync(queueFile)) return 0;
      db = new Database(queueFile, { readonly: true, fileMustExist: true });
    }
    return (db.prepare('SELECT count(*) AS n FROM detections').get() as { n: number }).n;
  };
  return Object.assign(count, { close: () => db?.close() });
}

async function waitUntil(check: () => boolean, timeoutMs: number, why: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(why());
    await sleep(20);
  }
}

/**
 * Follows the trace file while strace writes it (line by line): `quiet` resolves once no
 * write or sync on a file has been logged for `ms` (or after `capMs`).
 */
class TraceTail {
  private offset = 0;
  private partial = '';
  private lastActivity = Date.now();

  constructor(private readonly file: string) {}

  private poll(): void {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch {
      return;
    }
    try {
      const buf = Buffer.alloc(1 << 20);
      for (;;) {
        const got = readSync(fd, buf, 0, buf.length, this.offset);
        if (got <= 0) break;
        this.offset += got;
        const lines = (this.partial + buf.subarray(0, got).toString('utf8')).split('\n');
        this.partial = lines.pop() ?? '';
        if (lines.some((l) => /\(\d+<\/(?!dev\/|proc\/|sys\/)/.test(l))) this.lastActivity = Date.now();
      }
    } finally {
      closeSync(fd);
    }
  }

  async quiet(ms: number, capMs: number): Promise<void> {
    const cap = Date.now() + capMs;
    for (;;) {
      this.poll();
      if (Date.now() - this.lastActivity >= ms || Date.now() >= cap) return;
      await sleep(50);
    }
  }
}
