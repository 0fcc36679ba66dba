import { statSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config/index.js';
import {
  claimDetections,
  claimRecordings,
  clearSpoolPath,
  enqueueRecording,
  markFileDone,
  markUploaded,
  openQueue,
  queueCounts,
  type EnqueueInput,
  type Queue,
} from '../../src/queue/index.js';
import { RetentionSweeper } from '../../src/queue/retention-sweep.js';
import { writeAgentConfig } from './agent-config.js';
import type { BenchOptions } from './options.js';
import { figure, leastSquaresSlope, type Figure } from './report.js';

/**
 * The queue's size over days of a station's life (issue 35: "docs/INSTALL.md states the
 * queue's size after a day, a month and a year, measured"). A busy analyzerpi station: a
 * 15 s recording every 15 s (5,760 a day) with 3 detections each, through the queue's own
 * operations as the daemon runs them: each recording enqueued with its detections (its FLAC in
 * the spool) and its result file recorded as read (`ingested_files`, as ingest marks an
 * analyzerpi JSON), claimed, marked uploaded with the service's ids, its spool copy gone
 * (the retention sweep's `clearSpoolPath`), its detections claimed and uploaded; then, once a
 * simulated day, the daemon's own housekeeping sweep (`RetentionSweeper`, its clock the
 * simulated one): settled rows older than `queue.retainDays` (the config's default) retired,
 * and the rows of result files read before it and gone from the input folder forgotten (the
 * analyzer's files are not on disk here: a station whose old result files are removed; a file
 * kept in the folder keeps its row, docs/ARCHITECTURE.md "How long the queue keeps what").
 * The file is measured after a checkpoint (what the WAL held is in the file, the WAL empty).
 *
 * The target: the file stops growing once it holds `retainDays` of history, so its slope
 * over the last week of the run (well past `retainDays`) is at most 1% of a day's rows (the
 * pages SQLite reuses are of rows of the same shape; a slope is what a leak of rows or
 * pages would show).
 */
const RECORDINGS_PER_DAY = 5_760;
const DETECTIONS_PER_RECORDING = 3;
/** An analyzerpi JSON of 3 detections, as `ingested_files` records its size. */
const RESULT_BYTES = 1_400;
/** Recordings per write transaction: the enqueue side (the daemon commits one recording each; the file's size does not depend on it). */
const BATCH = 480;
const DAY_MS = 86_400_000;
/** Days at the end of the run the slope is taken over. */
const SLOPE_DAYS = 7;
const SPECIES = [
  ['Turdus merula', 'Eurasian Blackbird'],
  ['Erithacus rubecula', 'European Robin'],
  ['Parus major', 'Great Tit'],
  ['Fringilla coelebs', 'Common Chaffinch'],
  ['Cyanistes caeruleus', 'Eurasian Blue Tit'],
  ['Columba palumbus', 'Common Wood-Pigeon'],
] as const;

export async function runQueueGrowth(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  const cfg = writeAgentConfig({ dir, serviceUrl: 'http://127.0.0.1:9' });
  const { config } = await loadConfig({ path: cfg.configPath, env: {} });
  const { retainDays } = config.queue;
  const days = options.growthDays;
  const file = path.join(cfg.dataDir, 'queue.db');
  const q = openQueue(file);
  let now = 0;
  // The input folder the daemon would hold: its files' absence is trusted (queue/forget-gone-files.ts).
  const input = statSync(cfg.inputDir, { bigint: true });
  const sweeper = new RetentionSweeper(q, config, pino({ level: 'warn' }), () => now, undefined, () => ({ dev: input.dev, ino: input.ino }));
  const sizes: number[] = [];
  const t0 = performance.now();
  const start = Date.UTC(2026, 0, 1);
  let remoteId = 3_000_000_000; // the service's ids exceed 2^31
  try {
    for (let day = 0; day < days; day++) {
      for (let first = 0; first < RECORDINGS_PER_DAY; first += BATCH) {
        const at = start + day * DAY_MS + first * 15_000;
        q.write(() => {
          for (let i = first; i < first + BATCH; i++) {
            const rec = recording(start + day * DAY_MS + i * 15_000, cfg.inputDir, cfg.dataDir);
            enqueueRecording(q, rec, { now: at });
            // The analyzerpi's result for x.wav is x.wav.json.
            markFileDone(q, `${rec.recording?.sourcePath}.json`, RESULT_BYTES, at, 'queued', null, at);
          }
        });
        const done = at + BATCH * 15_000 - 1;
        q.write(() => {
          for (const r of claimRecordings(q, { limit: BATCH, order: 'oldest', now: done })) {
            markUploaded(q, 'recording', r.id, remoteId++, { now: done, sentBytes: 250_000 });
            clearSpoolPath(q, r.id);
          }
        });
        q.write(() => {
          for (const d of claimDetections(q, { limit: BATCH * DETECTIONS_PER_RECORDING, order: 'oldest', now: done })) markUploaded(q, 'detection', d.id, remoteId++, { now: done });
        });
      }
      now = start + (day + 1) * DAY_MS;
      await sweeper.sweep();
      sizes.push(measure(q, file));
    }
  } finally {
    q.close();
  }
  const secs = (performance.now() - t0) / 1000;
  // Every item went through to `uploaded`: else the sizes are of a queue no station has.
  const left = openQueue(file);
  let files = 0;
  try {
    const c = queueCounts(left);
    const unsettled = Object.entries({ ...c.recordings, ...c.detections }).filter(([state, n]) => state !== 'uploaded' && n > 0);
    if (unsettled.length) throw new Error(`items not uploaded in the simulated days: ${JSON.stringify(c)}`);
    // The sweep forgot the result files read before retainDays: else the sizes miss the rows a station keeps, or keep forever.
    files = left.db.prepare('SELECT COUNT(*) FROM ingested_files').pluck().get() as number;
    const most = Math.min(days, retainDays + 1) * RECORDINGS_PER_DAY;
    if (files > most) throw new Error(`ingested_files holds ${files} rows after ${days} days, more than ${retainDays + 1} days of files (${most})`);
  } finally {
    left.close();
  }
  const mb = (b: number) => b / 1e6;
  const at = (d: number) => (sizes.length >= d ? mb(sizes[d - 1]) : null);
  const past = sizes.slice(retainDays + 1).map(mb);
  // The last week: a few days past retainDays the file still grows a little (about 1 MB a
  // day for six days here, as freed pages fall into place), then not at all.
  const lastWeek = sizes.length >= retainDays + 1 + SLOPE_DAYS ? sizes.slice(-SLOPE_DAYS).map(mb) : [];
  const slope = lastWeek.length ? leastSquaresSlope(lastWeek.map((_, k) => k), lastWeek) : null;
  // A day's rows: what the file holds per day of history, from the day before the first retirement.
  const perDay = sizes.length >= retainDays ? mb(sizes[retainDays - 1]) / retainDays : null;
  log(
    `growth: ${days} days of ${RECORDINGS_PER_DAY} recordings (${DETECTIONS_PER_RECORDING} detections each) in ${secs.toFixed(0)} s; ` +
      `queue.db after a day ${fmt(at(1))} MB, a week ${fmt(at(7))} MB, ${retainDays} days ${fmt(at(retainDays))} MB, ` +
      `days ${retainDays + 2} to ${days} ${past.length ? `${fmt(Math.min(...past))} to ${fmt(Math.max(...past))}` : 'n/a'} MB; ` +
      `ingested_files ${files} rows at the end`,
  );
  const name = (what: string) => `queue growth: queue.db ${what} (${RECORDINGS_PER_DAY.toLocaleString('en-US')} recordings a day, ${DETECTIONS_PER_RECORDING} detections each, queue.retainDays ${retainDays})`;
  const pastDays = past.length ? `from day ${retainDays + 2} to ${days}` : `past day ${retainDays + 1} (not reached in ${days} days)`;
  return [
    figure({ id: 'growth.day', name: name('after a day'), value: at(1), unit: 'MB', digits: 1 }),
    figure({ id: 'growth.week', name: name('after a week'), value: at(7), unit: 'MB', digits: 1 }),
    figure({ id: 'growth.month', name: name(`after ${retainDays} days`), value: at(retainDays), unit: 'MB', digits: 1 }),
    figure({
      id: 'growth.plateau',
      name: name(`at its largest ${pastDays}: a year's file, which holds the same ${retainDays} days`),
      value: past.length ? Math.max(...past) : null,
      unit: 'MB',
      digits: 1,
    }),
    figure({
      id: 'growth.slope',
      name: `queue growth: queue.db's growth per day over the last ${SLOPE_DAYS} days${lastWeek.length ? ` (${days - SLOPE_DAYS + 1} to ${days})` : ` (needs ${retainDays + 1 + SLOPE_DAYS} days)`}, least squares (target: 1% of a day's rows)`,
      value: slope,
      unit: 'MB per day',
      digits: 3,
      target: perDay === null ? undefined : { op: '<=', value: perDay / 100 },
      detail: { days, retainDays, sizesBytes: sizes, seconds: secs },
    }),
  ];
}

/** One analyzerpi recording of 15 s with its detections, named as the analyzer names them. */
function recording(startMs: number, inputDir: string, dataDir: string): EnqueueInput {
  const iso = new Date(startMs).toISOString();
  const local = iso.slice(0, 19).replace('T', '-');
  const base = `${local.slice(0, 10)}-birdnet-${local.slice(11)}`;
  const sourceKey = `${base}|${iso}`;
  const timestamp = `${iso.slice(0, 23)}+00:00`;
  return {
    recording: {
      sourceKey,
      sourcePath: path.join(inputDir, `${base}.wav`),
      // As the spool holds it once encoded (the uploader claims FLAC only).
      spoolPath: path.join(dataDir, 'spool', `${base}.flac`),
      audioFormat: 'flac',
      timestamp,
      timeSource: 'filename',
      durationS: 15,
      sampleRate: 48_000,
      filesize: 760_000,
    },
    detections: Array.from({ length: DETECTIONS_PER_RECORDING }, (_, j) => {
      const [scientificName, commonName] = SPECIES[(startMs / 15_000 + j) % SPECIES.length];
      return {
        dedupeKey: `${sourceKey}|${j * 3}|${scientificName}`,
        timestamp: `${new Date(startMs + j * 3_000).toISOString().slice(0, 23)}+00:00`,
        startS: j * 3,
        endS: j * 3 + 3,
        scientificName,
        commonName,
        confidence: 0.7 + j / 100,
        lat: 52.52,
        lon: 13.4,
      };
    }),
  };
}

function measure(q: Queue, file: string): number {
  q.db.pragma('wal_checkpoint(TRUNCATE)');
  return statSync(file).size;
}

const fmt = (v: number | null) => (v === null ? 'n/a' : v.toFixed(1));
