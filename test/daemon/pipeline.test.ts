import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readFlacInfo } from '../../src/audio/flac-info.js';
import { createAgentWorld, TOKEN, type AgentWorld } from '../helpers/agent-world.js';
import { realFixture } from '../helpers/paths.js';
import { addRealRecording } from '../helpers/real-recording.js';
import { until } from '../helpers/until.js';

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Rows of the analyzer's CSV, read naively (the fixture has no quoting), as the test's own oracle. */
function csvRows(file: string): { start: number; end: number; sci: string; common: string; conf: number }[] {
  const [, ...lines] = readFileSync(file, 'utf8').split(/\r?\n/).filter(Boolean);
  return lines.map((l) => {
    const [start, end, sci, common, conf] = l.split(',');
    return { start: Number(start), end: Number(end), sci: sci, common: common, conf: Number(conf) };
  });
}

describe('station-agent run, end to end against the local service', () => {
  it('uploads a results-format recording: one soundscape (FLAC) and every detection above the threshold, once, at the right times', async () => {
    world = await createAgentWorld({ config: { input: { minConfidence: 0.15 } } });
    // No time in the name or metadata: the agent falls back to mtime - duration (10 s).
    const { results } = addRealRecording(world.inputDir);

    await world.startAgent();
    const counts = await world.waitDrained();
    const expected = csvRows(results).filter((r) => r.conf >= 0.15);
    expect(counts.detections.uploaded).toBe(expected.length);
    expect(counts.recordings.uploaded).toBe(1);

    const soundscapes = await world.allSoundscapes();
    expect(soundscapes).toHaveLength(1);
    const sc = soundscapes[0];
    expect(sc.timestamp).toBe('2025-06-01T12:00:00.000+02:00');
    expect(sc.sampleRate).toBe(16_000);
    expect(sc.duration).toBe(10);

    const detections = await world.allDetections();
    expect(detections).toHaveLength(expected.length);
    for (const row of expected) {
      const at = new Date(Date.parse('2025-06-01T10:00:00.000Z') + row.start * 1000);
      const hh = String(at.getUTCHours() + 2).padStart(2, '0');
      const mm = String(at.getUTCMinutes()).padStart(2, '0');
      const ss = String(at.getUTCSeconds()).padStart(2, '0');
      const match = detections.filter(
        (d) => d.species.scientificName === row.sci && d.timestamp === `2025-06-01T${hh}:${mm}:${ss}.000+02:00`,
      );
      expect(match, `${row.sci} at ${row.start}`).toHaveLength(1);
      const d = match[0];
      expect(d.confidence).toBeCloseTo(row.conf, 6);
      expect(d.soundscape?.startTime).toBe(row.start);
      expect(d.soundscape?.endTime).toBe(row.end);
      expect(d.soundscape?.url).toBe(sc.url);
      expect(d.lat).toBe(52.52);
    }
  });

  it('takes an analyzerpi WAV before the analyzer deletes it, pairs it with its JSON and uploads it as FLAC', async () => {
    world = await createAgentWorld({ config: { input: { format: 'analyzerpi', minConfidence: 0.7 } } });
    const name = '2024-02-24-birdnet-16:19:37.wav';
    const wav = path.join(world.inputDir, name);
    await world.startAgent();

    copyFileSync(realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav'), wav);
    // The agent takes the WAV (a hard link into its spool) before the analyzer deletes it.
    await until('the WAV in the spool', () => existsSync(path.join(world!.dataDir, 'spool', 'incoming', name)));
    writeFileSync(
      `${wav}.json`,
      JSON.stringify({
        file_name: name,
        timestamp: '2024-02-24T16:19:37+01:00',
        delay: 0,
        detections: [
          { start: 0, common_name: 'Eurasian Magpie', confidence: 0.912 },
          { start: 9, common_name: 'Eurasian Magpie', confidence: 0.9316 },
          { start: 18, common_name: 'Eurasian Magpie', confidence: 0.8857 },
          { start: 21, common_name: 'Eurasian Magpie', confidence: 0.41 },
        ],
      }),
    );
    // The analyzer deletes its WAV seconds after analysing it, uploaded or not.
    rmSync(wav);

    const counts = await world.waitDrained();
    expect(counts.detections.uploaded).toBe(3);
    expect(counts.recordings.uploaded).toBe(1);
    const [sc, ...more] = await world.allSoundscapes();
    expect(more).toHaveLength(0);
    expect(sc.timestamp).toBe('2024-02-24T16:19:37.000+01:00');
    expect(sc.duration).toBe(30);
    expect(sc.sampleRate).toBe(48_000);
    expect(sc.mode).toBe('analyzerpi');

    // The service stored a real FLAC with its STREAMINFO filled in.
    const media = await fetch(sc.url);
    expect(media.status).toBe(200);
    const audio = Buffer.from(await media.arrayBuffer());
    const stored = path.join(world.root, 'stored.flac');
    writeFileSync(stored, audio);
    const info = await readFlacInfo(stored);
    expect(info.totalSamples).toBe(30 * 48_000);
    expect(info.sampleRate).toBe(48_000);

    const detections = (await world.allDetections()).sort((a, b) => a.timestamp.localeCompare(b.timestamp));
    expect(detections.map((d) => d.timestamp)).toEqual([
      '2024-02-24T16:19:37.000+01:00',
      '2024-02-24T16:19:46.000+01:00',
      '2024-02-24T16:19:55.000+01:00',
    ]);
    for (const d of detections) {
      expect(d.species.scientificName).toBe('Pica pica');
      expect(d.soundscape?.url).toBe(sc.url);
    }
    expect(detections.map((d) => d.soundscape?.startTime)).toEqual([0, 9, 18]);
    expect(detections.map((d) => d.soundscape?.endTime)).toEqual([3, 12, 21]);

    await world.daemon!.stop();
    world.daemon = null;
    // Everything the agent logged during the run, at debug level: the token appears nowhere.
    expect(world.logLines.length).toBeGreaterThan(5);
    expect(world.logLines.filter((l) => l.includes(TOKEN))).toEqual([]);
  });

  it('reads every result format of the real fixtures; common-name-only tables resolve through the labels (also localised)', async () => {
    const real = (dir: string, file: string) => path.join(realFixture(dir), file);
    world = await createAgentWorld({
      config: {
        input: {
          minConfidence: 0.5,
          localizedLabels: realFixture('birdnet-analyzer_labels_V2.4', 'BirdNET_GLOBAL_6K_V2.4_Labels_de.txt'),
        },
      },
    });
    // Result files whose audio is not at hand: their detections go without a soundscape.
    const files: [string, string, string][] = [
      ['birdnet-analyzer_ccf4b228_2023-03-28', 'soundscape.BirdNET.selection.table.txt', 'a2023'],
      ['birdnet-analyzer_f4e56a1b_2022-07-23_locale-de', 'soundscape.BirdNET.selection.table.txt', 'de'],
      ['birdnet-analyzer_6e477a19_2022-03-17', 'soundscape.BirdNET.results.txt', 'audacity'],
      ['birdnetTools', 'test_example_1.csv', 'tools'],
    ];
    // Without audio, a recording's start comes from the result's name (never from when the
    // file was written or read): one an hour apart, so that each file is its own recording.
    let hour = 6;
    for (const [dir, file, sub] of files) {
      const target = path.join(world.inputDir, sub);
      const suffix = file.slice(file.indexOf('.BirdNET.'));
      const name = sub === 'tools' ? '14_01_20210213_210000.BirdNET.results.csv' : `ST_20250601_${String(hour++).padStart(2, '0')}0000${suffix}`;
      mkdirSync(target, { recursive: true });
      copyFileSync(real(dir, file), path.join(target, name));
    }
    await world.startAgent();
    // An empty queue says nothing until every file has been read: wait for all four first.
    const w = world;
    await until('every result file queued', () => w.logLines.filter((l) => l.includes('"msg":"recording queued"')).length >= files.length);
    const counts = await world.waitDrained();
    expect(counts.detections.failed).toBe(0);
    const detections = await world.allDetections();
    expect(detections.length).toBe(counts.detections.uploaded);
    // The German table names species in German; they arrive under their scientific names.
    const scientific = new Set(detections.map((d) => d.species.scientificName));
    expect(scientific.has('Poecile atricapillus')).toBe(true);
    // The Song Meter name gives the recording's start in the station's zone: 2021-02-13 21:00:00 Berlin.
    const owl = detections.filter((d) => d.species.scientificName === 'Strix varia').map((d) => d.timestamp).sort();
    expect(owl[0]).toBe('2021-02-13T21:00:12.000+01:00');
    for (const d of detections) expect(d.soundscape ?? null).toBeNull();
    // Exactly once: no two detections share an instant and a species.
    const keys = detections.map((d) => `${d.timestamp}|${d.species.scientificName}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

/** Whether this process has `file` open (the in-process agent's held descriptor). */
function heldOpen(file: string): boolean {
  return readdirSync('/proc/self/fd').some((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false; // closed meanwhile
    }
  });
}

describe('analyzerpi input on another filesystem than the spool', () => {
  const shm = '/dev/shm';
  const otherFs = existsSync(shm) && statSync(shm).dev !== statSync(process.env.TMPDIR ?? '/tmp').dev;

  it.skipIf(!otherFs)('holds the deleted WAV open and copies it only when its JSON wants it', async () => {
    const inputDir = mkdtempSync(path.join(shm, 'agent-input-'));
    try {
      world = await createAgentWorld({ inputDir, config: { input: { format: 'analyzerpi', minConfidence: 0.7 } } });
      await world.startAgent();
      const wanted = path.join(inputDir, '2024-02-24-birdnet-16:19:37.wav');
      const unwanted = path.join(inputDir, '2024-02-24-birdnet-16:20:07.wav');
      copyFileSync(realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav'), wanted);
      copyFileSync(realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav'), unwanted);
      // The agent (in this process) holds each WAV open before the analyzer deletes it: wait for its descriptors.
      await until('the agent holds both WAVs open', () => heldOpen(wanted) && heldOpen(unwanted));
      const json = (name: string, ts: string, confidence: number) =>
        JSON.stringify({ file_name: name, timestamp: ts, delay: 0, detections: [{ start: 0, common_name: 'Eurasian Magpie', confidence }] });
      writeFileSync(`${wanted}.json`, json(path.basename(wanted), '2024-02-24T16:19:37+01:00', 0.9));
      writeFileSync(`${unwanted}.json`, json(path.basename(unwanted), '2024-02-24T16:20:07+01:00', 0.2));
      rmSync(wanted);
      rmSync(unwanted);

      const counts = await world.waitDrained().catch((err: unknown) => {
        throw new Error(`${String(err)}\n${world!.logLines.join('\n')}`);
      });
      expect(counts.recordings.uploaded).toBe(1);
      expect(counts.detections.uploaded).toBe(1);
      const [sc] = await world.allSoundscapes();
      expect(sc.duration).toBe(30);
      // Nothing was copied for the recording nobody wanted, and nothing lingers in incoming/.
      expect(readdirSync(path.join(world.dataDir, 'spool', 'incoming'))).toEqual([]);
    } finally {
      await world?.close();
      world = undefined;
      rmSync(inputDir, { recursive: true, force: true });
    }
  });

  it.skipIf(!otherFs)('with input.ramDiskAudio keep, links each WAV on the RAM disk and writes no audio to the card', async () => {
    const inputDir = mkdtempSync(path.join(shm, 'agent-input-'));
    try {
      world = await createAgentWorld({ inputDir, config: { input: { format: 'analyzerpi', minConfidence: 0.7, ramDiskAudio: 'keep' } } });
      await world.startAgent();
      const near = path.join(inputDir, '.station-agent-spool');
      const json = (name: string, ts: string) =>
        JSON.stringify({ file_name: name, timestamp: ts, delay: 0, detections: [{ start: 0, common_name: 'Eurasian Magpie', confidence: 0.9 }] });
      const wav = path.join(inputDir, '2024-02-24-birdnet-16:19:37.wav');
      copyFileSync(realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav'), wav);
      // Taken on sight as a hard link on the RAM disk (the same file), not held open for a copy.
      const linked = path.join(near, 'incoming', path.basename(wav));
      await until('the agent links the WAV in the near spool', () => existsSync(linked) && statSync(linked).ino === statSync(wav).ino);
      writeFileSync(`${wav}.json`, json(path.basename(wav), '2024-02-24T16:19:37+01:00'));
      await until('the recording is queued', () => world!.counts().recordings.pending + world!.counts().recordings.sending + world!.counts().recordings.uploaded >= 1);
      rmSync(wav); // the analyzer cleans up
      const counts = await world.waitDrained().catch((err: unknown) => {
        throw new Error(`${String(err)}\n${world!.logLines.join('\n')}`);
      });
      expect(counts.recordings.uploaded).toBe(1);
      expect(counts.detections.uploaded).toBe(1);
      expect((await world.allSoundscapes())[0].duration).toBe(30);
      // Not a byte of audio on the card: the card's spool holds only its empty incoming/.
      expect(readdirSync(path.join(world.dataDir, 'spool'))).toEqual(['incoming']);
      expect(readdirSync(path.join(world.dataDir, 'spool', 'incoming'))).toEqual([]);
    } finally {
      await world?.close();
      world = undefined;
      rmSync(inputDir, { recursive: true, force: true });
    }
  });

  it.skipIf(!otherFs)('with input.ramDiskAudio keep, a reboot that empties the RAM disk costs the waiting soundscape, never its detections', async () => {
    const inputDir = mkdtempSync(path.join(shm, 'agent-input-'));
    try {
      // Soundscapes held back by an upload window that is closed now: the recording waits with its audio in RAM.
      const hour = Number(new Intl.DateTimeFormat('en-GB', { hour: '2-digit', hourCycle: 'h23', timeZone: 'Europe/Berlin' }).format(new Date()));
      const closed = `${String((hour + 2) % 24).padStart(2, '0')}:00-${String((hour + 3) % 24).padStart(2, '0')}:00`;
      const input = { format: 'analyzerpi', minConfidence: 0.7, ramDiskAudio: 'keep' };
      world = await createAgentWorld({ inputDir, config: { input, upload: { windows: [closed], windowsAudioOnly: true, noSoundscapeAfterSec: 86_400 } } });
      await world.startAgent();
      const wav = path.join(inputDir, '2024-02-24-birdnet-16:19:37.wav');
      copyFileSync(realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav'), wav);
      const near = path.join(inputDir, '.station-agent-spool');
      await until('the agent links the WAV in the near spool', () => existsSync(path.join(near, 'incoming', path.basename(wav))));
      writeFileSync(
        `${wav}.json`,
        JSON.stringify({ file_name: path.basename(wav), timestamp: '2024-02-24T16:19:37+01:00', delay: 0, detections: [{ start: 0, common_name: 'Eurasian Magpie', confidence: 0.9 }] }),
      );
      await until('the recording is queued with its audio on the RAM disk', () => world!.counts().recordings.pending === 1 && readdirSync(near).some((f) => f.endsWith('.wav')));
      rmSync(wav);
      await world.stopAgent();

      rmSync(near, { recursive: true, force: true }); // the reboot
      const config = JSON.parse(readFileSync(world.configPath, 'utf8')) as { upload: Record<string, unknown> };
      config.upload.windows = [];
      writeFileSync(world.configPath, JSON.stringify(config));
      await world.startAgent();
      const counts = await world.waitDrained().catch((err: unknown) => {
        throw new Error(`${String(err)}\n${world!.logLines.join('\n')}`);
      });
      expect(counts.detections.uploaded).toBe(1);
      expect(counts.recordings.uploaded).toBe(0);
      expect(await world.allSoundscapes()).toEqual([]);
      expect((await world.allDetections()).map((d) => d.soundscape ?? null)).toEqual([null]);
    } finally {
      await world?.close();
      world = undefined;
      rmSync(inputDir, { recursive: true, force: true });
    }
  });
});

