import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import { afterEach, describe, expect, it } from 'vitest';
import { readWavInfo } from '../../src/audio/wav.js';
import { DEMO_LABELS_FILE, writeSampleFolder } from '../src/sample-data.js';
import { DEMO_MIN_CONFIDENCE, SAMPLE_SPECIES, expectedAtService, planSamples, type SampleFormat } from '../src/sample-plan.js';
import { DEFAULT_LABELS_FILE } from '@station-agent/emulator';
import { classifyPath, parseResultFile } from '../../src/ingest/formats.js';
import { Labels, parseLabelLines } from '../../src/ingest/labels.js';
import { recordingStartFromName } from '../../src/ingest/recording-time.js';
import { tempDir } from '../../test/helpers/paths.js';

const NOON_BERLIN = DateTime.fromISO('2025-06-14T12:00:00', { zone: 'Europe/Berlin' }).toMillis();

/** What classifyPath calls each format's result file. */
const RESULT_KIND: Record<SampleFormat, string> = { analyzerpi: 'analyzerpi-json', raven: 'raven', csv: 'csv', sidecar: 'sidecar' };

describe('demo sample folder', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  async function writeFolder(zone: string, now = NOON_BERLIN) {
    const { dir, cleanup } = tempDir('demo-samples-');
    cleanups.push(cleanup);
    const plan = planSamples({ now, zone });
    const files = await writeSampleFolder(dir, plan);
    return { dir, plan, files };
  }

  it('writes audio and a result file per recording in four real formats, named so that ingest pairs them', async () => {
    const { dir, plan, files } = await writeFolder('Europe/Berlin');
    expect(files).toHaveLength(6);
    expect(new Set(files.map((f) => f.format))).toEqual(new Set(['analyzerpi', 'raven', 'csv', 'sidecar']));
    for (const f of files) {
      const audio = classifyPath(path.join(dir, f.audioFile));
      const result = classifyPath(path.join(dir, f.resultFile));
      expect(audio).toMatchObject({ kind: 'audio', ext: 'wav' });
      if (f.format === 'analyzerpi') expect(result).toMatchObject({ kind: 'analyzerpi-json', audioFileName: f.audioFile });
      else expect(result).toMatchObject({ kind: 'result', format: RESULT_KIND[f.format] });
      expect(classifyPath(path.join(dir, f.resultFile))).toMatchObject({ baseName: (classifyPath(path.join(dir, f.audioFile)) as { baseName: string }).baseName });
    }
    expect(plan.recordings.map((r) => r.format)).toEqual(files.map((f) => f.format));
  });

  it('writes result files the parsers read back as the planned detections, with the demo labels', async () => {
    const { dir, plan, files } = await writeFolder('Europe/Berlin');
    const labels = await Labels.load(DEMO_LABELS_FILE);
    for (const [i, f] of files.entries()) {
      const file = path.join(dir, f.resultFile);
      const parsed = parseResultFile(file, readFileSync(file, 'utf8'), { labels });
      expect(parsed.errors, f.resultFile).toEqual([]);
      expect(parsed.format).toBe(RESULT_KIND[f.format]);
      expect(parsed.detections.map((d) => [d.scientificName, d.commonName, d.startSec, d.endSec, d.confidence])).toEqual(
        plan.recordings[i].detections.map((d) => [d.species.scientificName, d.species.commonName, d.startSec, d.endSec, d.confidence]),
      );
    }
  });

  it.each(['Europe/Berlin', 'Asia/Kolkata', 'America/St_Johns', 'UTC'])('gives each recording its planned start in %s, from the result file or the name', async (zone) => {
    const { dir, files } = await writeFolder(zone, Date.parse('2025-01-20T15:00:00Z'));
    for (const f of files) {
      const file = path.join(dir, f.resultFile);
      const parsed = parseResultFile(file, readFileSync(file, 'utf8'), { labels: await Labels.load(DEMO_LABELS_FILE) });
      const start = parsed.recordingStart ? Date.parse(parsed.recordingStart) : recordingStartFromName(f.audioFile, zone)?.getTime();
      expect(start, f.audioFile).toBe(f.startMs);
    }
    // The name alone gives the start too, for every format (the analyzerpi's and the ISO-like names in local time).
    for (const f of files) expect(recordingStartFromName(f.audioFile, zone)?.getTime(), f.audioFile).toBe(f.startMs);
  });

  it('synthesises complete 15 s mono 48 kHz 16-bit WAV files with sound where the detections are', async () => {
    const { dir, plan, files } = await writeFolder('UTC');
    for (const [i, f] of files.entries()) {
      const info = await readWavInfo(path.join(dir, f.audioFile));
      expect(info).toMatchObject({ complete: true, sampleRate: 48_000, channels: 1, bitsPerSample: 16 });
      expect(info.durationSec).toBe(15);
      // Louder inside a detection's segment than in a segment without one.
      const pcm = new Int16Array(readFileSync(path.join(dir, f.audioFile)).buffer.slice(44));
      const rms = (fromSec: number) => {
        let sum = 0;
        for (let s = fromSec * 48_000; s < (fromSec + 3) * 48_000; s++) sum += pcm[s] ** 2;
        return Math.sqrt(sum / (3 * 48_000));
      };
      const busy = new Set(plan.recordings[i].detections.map((d) => d.startSec));
      const quiet = [0, 3, 6, 9, 12].find((s) => !busy.has(s))!;
      for (const s of busy) expect(rms(s), `${f.audioFile} at ${s} s`).toBeGreaterThan(10 * rms(quiet));
    }
  });

  it('uses only species of the emulator catalog, all listed in the demo labels', () => {
    const catalog = new Set(readFileSync(DEFAULT_LABELS_FILE, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')).map((l) => l.split('_').slice(0, 2).join('_')));
    const labels = parseLabelLines(readFileSync(DEMO_LABELS_FILE, 'utf8'));
    for (const s of Object.values(SAMPLE_SPECIES)) {
      expect(catalog.has(`${s.scientificName}_${s.commonName}`), s.scientificName).toBe(true);
      expect(labels).toContainEqual({ scientificName: s.scientificName, commonName: s.commonName });
    }
  });

  it('plans recordings of today, before now, whatever the hour', () => {
    for (const local of ['2025-06-14T12:00:00', '2025-06-14T00:20:00', '2025-06-14T23:59:00']) {
      const now = DateTime.fromISO(local, { zone: 'Europe/Berlin' }).toMillis();
      const plan = planSamples({ now, zone: 'Europe/Berlin' });
      const day = DateTime.fromMillis(now, { zone: 'Europe/Berlin' }).toISODate();
      const starts = plan.recordings.map((r) => r.startMs);
      expect(new Set(starts).size).toBe(starts.length);
      for (const start of starts) {
        expect(start % 1000).toBe(0);
        expect(start + plan.durationSec * 1000).toBeLessThan(now);
        expect(DateTime.fromMillis(start, { zone: 'Europe/Berlin' }).toISODate(), local).toBe(day);
      }
    }
  });

  it('expects every species with its detections at or above the threshold', () => {
    const expected = expectedAtService(planSamples({ now: NOON_BERLIN, zone: 'UTC' }), DEMO_MIN_CONFIDENCE);
    expect(expected).toMatchObject({ detections: 15, below: 3, soundscapes: 6, durationSec: 90 });
    expect(expected.species.map((s) => [s.commonName, s.detections])).toEqual([
      ['Eurasian Blackbird', 3],
      ['Eurasian Wren', 3],
      ['European Robin', 3],
      ['Common Chaffinch', 2],
      ['Eurasian Blue Tit', 2],
      ['Great Tit', 2],
    ]);
  });
});
