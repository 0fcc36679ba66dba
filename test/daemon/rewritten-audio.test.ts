import { closeSync, copyFileSync, openSync, readFileSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFlacEncoder } from '../../src/audio/flac-encoder.js';
import { openQueue } from '../../src/queue/index.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { addRealRecording, REAL_RECORDING_DIR } from '../helpers/real-recording.js';
import { until } from '../helpers/until.js';

/**
 * A hard link in the spool is the analyzer's own inode (issue 35): an analyzer that rewrites
 * a queued WAV in place (truncate and write, not a new file renamed over it) would change what
 * is uploaded. The queue keeps the WAV's size and modification time as it was queued
 * (migration 16); the encode refuses a WAV that differs, with an error naming the file, and
 * the recording's detections go without a soundscape. The daemon runs twice: first with
 * soundscapes held by an upload window (the recording queued, its audio linked, nothing
 * encoded), then, after the analyzer's file was rewritten in place, without the window.
 */

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A 30-minute upload window twelve hours from now, in the station's zone (Europe/Berlin). */
function windowFarFromNow(): string {
  const hour = Number(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', hourCycle: 'h23' }).format(new Date()));
  const h = String((hour + 12) % 24).padStart(2, '0');
  return `${h}:00-${h}:30`;
}

/** 4 KiB of other samples written over the WAV's data, in place (the file keeps its inode and size). */
function overwrite(file: string, byte: number): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, Buffer.alloc(4_096, byte), 0, 4_096, 1_000);
  } finally {
    closeSync(fd);
  }
}

function queuedRecordings(dataDir: string): { source_path: string; spool_path: string; state: string; last_error: string | null }[] {
  const q = openQueue(path.join(dataDir, 'queue.db'));
  try {
    return q.db.prepare('SELECT source_path, spool_path, state, last_error FROM recordings ORDER BY id').all() as never;
  } finally {
    q.close();
  }
}

/** The config without the upload window: soundscapes may go. */
function openWindow(configPath: string): void {
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as { upload: Record<string, unknown> };
  delete config.upload.windows;
  delete config.upload.windowsAudioOnly;
  writeFileSync(configPath, JSON.stringify(config));
}

const HELD = { input: { minConfidence: 0.15 }, upload: { windows: [windowFarFromNow()], windowsAudioOnly: true, noSoundscapeAfterSec: 86_400 } };

describe('queued audio rewritten in place by the analyzer', () => {
  it('is refused at encode time with an error naming it; its detections go without a soundscape, an untouched one goes with its own', async () => {
    world = await createAgentWorld({ config: HELD });
    const rewritten = addRealRecording(world.inputDir, 'rewritten', 0);
    const untouched = addRealRecording(world.inputDir, 'untouched', 1);
    // Other samples, so that it is another recording (a name without a time: known by its content).
    const mtime = statSync(untouched.wav).mtime;
    overwrite(untouched.wav, 0x11);
    utimesSync(untouched.wav, mtime, mtime);

    await world.startAgent();
    await until('both recordings queued', () => world!.counts().recordings.pending === 2, 30_000, () => JSON.stringify(world!.counts()));
    await world.stopAgent();
    const queued = queuedRecordings(world.dataDir);
    expect(queued.map((r) => r.state)).toEqual(['pending', 'pending']);
    // Linked, not copied: the spool's file is the analyzer's inode.
    for (const r of queued) expect(statSync(r.spool_path).ino).toBe(statSync(r.source_path).ino);
    expect(queued.map((r) => r.source_path).sort()).toEqual([rewritten.wav, untouched.wav].sort());

    // The analyzer writes other samples over the same bytes of the queued WAV (same size, new mtime).
    const before = statSync(rewritten.wav);
    overwrite(rewritten.wav, 0x55);
    expect(statSync(rewritten.wav).size).toBe(before.size);
    expect(statSync(rewritten.wav).mtimeMs).not.toBe(before.mtimeMs);

    openWindow(world.configPath);
    await world.startAgent();
    const counts = await world.waitDrained(60_000);

    expect(counts.recordings).toMatchObject({ uploaded: 1, failed: 1 });
    const soundscapes = await world.allSoundscapes();
    expect(soundscapes).toHaveLength(1);
    const detections = await world.allDetections();
    expect(detections.length).toBe(counts.detections.uploaded);
    // Every detection went: the untouched recording's with its soundscape, the rewritten one's without.
    expect(detections.filter((d) => d.soundscape?.url === soundscapes[0].url).length).toBe(detections.length / 2);
    expect(detections.filter((d) => d.soundscape == null).length).toBe(detections.length / 2);

    const failed = queuedRecordings(world.dataDir).find((r) => r.state === 'failed')!;
    expect(failed.source_path).toBe(rewritten.wav);
    expect(failed.last_error).toContain(`the audio changed after its recording was queued from ${rewritten.wav}`);
    const lines = world.logLines.map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(
      lines.some((l) => l.level >= 40 && l.msg.includes(`the audio changed after its recording was queued from ${rewritten.wav}`) && l.msg.includes('modified since it was queued')),
      world.logLines.filter((l) => !l.includes('"level":20')).join('\n'),
    ).toBe(true);
  }, 150_000);

  it('an analyzer\'s FLAC (results mode) rewritten in place with other audio is refused before it is sent', async () => {
    world = await createAgentWorld({ config: HELD });
    const encoder = createFlacEncoder();
    const flac = path.join(world.inputDir, 'flac-recording.flac');
    const other = path.join(world.root, 'other.wav');
    try {
      await encoder.encode(path.join(REAL_RECORDING_DIR, 'soundscape.wav'), flac);
      copyFileSync(path.join(REAL_RECORDING_DIR, 'soundscape.wav'), other);
      overwrite(other, 0x33);
      const end = new Date('2025-06-01T10:00:10.000Z');
      utimesSync(flac, end, end);
      copyFileSync(path.join(REAL_RECORDING_DIR, 'soundscape.BirdNET.results.csv'), path.join(world.inputDir, 'flac-recording.BirdNET.results.csv'));

      await world.startAgent();
      await until('the recording queued', () => world!.counts().recordings.pending === 1, 30_000, () => JSON.stringify(world!.counts()));
      await world.stopAgent();
      const [queued] = queuedRecordings(world.dataDir);
      expect(statSync(queued.spool_path).ino).toBe(statSync(flac).ino);

      // The analyzer writes another recording's FLAC into the same file (truncate and write: the inode stays).
      const replacement = path.join(world.root, 'other.flac');
      await encoder.encode(other, replacement);
      writeFileSync(flac, readFileSync(replacement));
      expect(statSync(queued.spool_path).ino).toBe(statSync(flac).ino);
    } finally {
      await encoder.close();
    }

    openWindow(world.configPath);
    await world.startAgent();
    const counts = await world.waitDrained(60_000);
    expect(counts.recordings).toMatchObject({ uploaded: 0, failed: 1 });
    expect(await world.allSoundscapes()).toEqual([]);
    const detections = await world.allDetections();
    expect(detections.length).toBeGreaterThan(0);
    expect(detections.every((d) => d.soundscape == null)).toBe(true);
    expect(queuedRecordings(world.dataDir)[0].last_error).toContain(`the audio changed after its recording was queued from ${flac}`);
  }, 150_000);
});
