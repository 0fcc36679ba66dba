import { spawn } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pino from 'pino';
import { loadConfig } from '../../src/config/index.js';
import { ConfigStore } from '../../src/daemon/config-store.js';
import { createStationContext } from '../../src/daemon/context.js';
import { IngestComponent } from '../../src/daemon/ingest.js';
import { createIngestContext } from '../../src/ingest/context.js';
import { markFileDone } from '../../src/queue/ingested-files.js';
import { openQueue } from '../../src/queue/index.js';
import { acquireDaemonLock } from '../../src/system/daemon-lock.js';
import { writeAgentConfig } from './agent-config.js';
import { benchWav } from './audio.js';
import type { BenchOptions } from './options.js';
import { figure, type Figure } from './report.js';
import { recordingBaseName, resultCsv } from './result-files.js';

/** Files of earlier recordings left in the folder (`input.afterUpload: keep`, the default): about ten hours of them. */
const KEPT_FILES = 5_000;
const SOUNDSCAPE_SECONDS = 15;

/**
 * Ingest's own CPU per recording, from a file appearing in the input folder to the
 * recording and its detections committed in the queue: the daemon's ingest component
 * (watcher, pairing, parsing, the spool's link, the one transaction with its
 * `ingested_files` mark) in this process, the recordings (a 15 s WAV and a result table
 * of 2 rows, each written beside as a hidden `.part` and renamed into place) written by
 * a child process whose CPU is not counted, one at a time, each waited for until queued.
 *
 * Twice: with a nearly empty folder, and with 5,000 files of earlier recordings kept in
 * it (already ingested). The watcher before this figure (chokidar) listed and lstatted
 * the whole folder on every event in it: 10 ms against 140 ms per recording.
 */
export async function runIngestWatch(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  // A first run, not counted, compiles the code the two measured runs share.
  await measure({ ...options, recordings: Math.min(options.recordings, 5) }, path.join(dir, 'watch-warm-up'), 0);
  const empty = await measure(options, path.join(dir, 'watch-empty'), 0);
  const kept = await measure(options, path.join(dir, 'watch-kept'), KEPT_FILES);
  log(
    `ingest path: ${options.recordings} recordings one by one: ${empty.msPerRecording.toFixed(2)} ms of CPU per recording in an empty folder, ` +
      `${kept.msPerRecording.toFixed(2)} ms with ${KEPT_FILES} files kept (${(kept.msPerRecording / empty.msPerRecording).toFixed(2)}x)`,
  );
  const detail = { recordings: options.recordings, stableMs: options.stableMs };
  return [
    figure({ id: 'ingest.pathCpuEmpty', name: 'ingest path: CPU per recording, file appearing to commit (empty folder)', value: empty.msPerRecording, unit: 'ms', digits: 2, detail: { ...detail, ...empty } }),
    figure({ id: 'ingest.pathCpuKept', name: `ingest path: CPU per recording, file appearing to commit (${KEPT_FILES.toLocaleString('en-US')} files kept in the folder)`, value: kept.msPerRecording, unit: 'ms', digits: 2, detail: { ...detail, ...kept } }),
    figure({
      id: 'ingest.pathCpuKeptRatio',
      name: `ingest path: CPU per recording with ${KEPT_FILES.toLocaleString('en-US')} files kept / empty folder`,
      value: kept.msPerRecording / empty.msPerRecording,
      unit: 'x',
      // The cost of a new file does not grow with the folder (chokidar's was 14x).
      target: { op: '<=', value: 1.5 },
    }),
  ];
}

async function measure(options: BenchOptions, dir: string, keptFiles: number): Promise<{ msPerRecording: number; userMs: number; systemMs: number; wallSec: number }> {
  const cfg = writeAgentConfig({ dir, serviceUrl: 'http://127.0.0.1:9', stableMs: options.stableMs, format: 'results' });
  const { config } = await loadConfig({ path: cfg.configPath, env: {} });
  const lock = await acquireDaemonLock(cfg.dataDir, dir);
  const queue = openQueue(path.join(cfg.dataDir, 'queue.db'));
  const log = pino({ level: 'silent' });
  const prepared = { ingest: await createIngestContext(config, queue, log), webhook: null, lock };
  const ctx = createStationContext({ config: new ConfigStore(config, cfg.configPath, {}, log), queue, log, prepared });
  const { bus } = ctx;
  let queued = 0;
  let onQueued: (() => void) | null = null;
  bus.on('queued', () => {
    queued++;
    onQueued?.();
  });
  const startMs = Math.floor((Date.now() - 86_400_000) / 1000) * 1000;
  queue.write(() => {
    for (let i = 0; i < keptFiles / 2; i++) {
      const base = recordingBaseName(startMs - (i + 1) * SOUNDSCAPE_SECONDS * 1000);
      writeFileSync(path.join(cfg.inputDir, `${base}.wav`), 'RIFF');
      const csv = path.join(cfg.inputDir, `${base}.BirdNET.results.csv`);
      writeFileSync(csv, resultCsv(base, 2, i));
      const st = statSync(csv);
      markFileDone(queue, csv, st.size, st.mtimeMs, 'queued');
    }
  });
  const ingest = new IngestComponent(ctx);
  const wavFile = path.join(dir, 'recording.wav');
  mkdirSync(dir, { recursive: true });
  writeFileSync(wavFile, benchWav(SOUNDSCAPE_SECONDS));
  const writer = spawn(process.execPath, ['-e', WRITER, cfg.inputDir, wavFile], { stdio: ['pipe', 'pipe', 'inherit'] });
  const acks = createInterface({ input: writer.stdout });
  let acked: (() => void) | null = null;
  acks.on('line', () => acked?.());
  try {
    await ingest.start();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < options.recordings; i++) {
      const base = recordingBaseName(startMs + i * SOUNDSCAPE_SECONDS * 1000);
      await new Promise<void>((resolve) => {
        acked = resolve;
        writer.stdin.write(`${JSON.stringify([base, resultCsv(base, 2, i)])}\n`);
      });
      // Waited on the event, not polled: a timer in this process would count as ingest's CPU.
      if (queued < i + 1) await new Promise<void>((resolve) => (onQueued = resolve));
    }
    const used = process.cpuUsage(cpu0);
    const wallSec = (performance.now() - t0) / 1000;
    const n = options.recordings;
    return { msPerRecording: (used.user + used.system) / 1000 / n, userMs: used.user / 1000 / n, systemMs: used.system / 1000 / n, wallSec };
  } finally {
    writer.stdin.end();
    await ingest.stop();
    queue.close();
    lock.release();
  }
}

/** The analyzer's side: each line `[base, csv]` writes the WAV and the table beside, hidden, then renames them into place. */
const WRITER = `
const fs = require('fs'), path = require('path');
const [dir, wavFile] = process.argv.slice(1);
const wav = fs.readFileSync(wavFile);
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const [base, csv] = JSON.parse(line);
  for (const [name, content] of [[base + '.wav', wav], [base + '.BirdNET.results.csv', csv]]) {
    const part = path.join(dir, '.' + name + '.part');
    fs.writeFileSync(part, content);
    fs.renameSync(part, path.join(dir, name));
  }
  process.stdout.write('ok\\n');
});`;
