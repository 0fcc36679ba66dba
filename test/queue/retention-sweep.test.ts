import { copyFileSync, existsSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listItems, openQueue } from '../../src/queue/index.js';
import { recountStates } from '../../src/queue/state-counts.js';
import { until } from '../helpers/until.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { realFixture } from '../helpers/paths.js';

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function drop(w: AgentWorld, name = 'soundscape', endIso = '2025-06-01T10:00:10.000Z'): string {
  const wav = path.join(w.inputDir, `${name}.wav`);
  copyFileSync(realFixture('birdnet-analyzer_ea464544_2022-03-02', 'soundscape.wav'), wav);
  const end = new Date(endIso);
  utimesSync(wav, end, end);
  writeFileSync(path.join(w.inputDir, `${name}.BirdNET.results.csv`), 'Start (s),End (s),Scientific name,Common name,Confidence\n0,3.0,Pica pica,Eurasian Magpie,0.9\n');
  return wav;
}

const spoolAudio = (w: AgentWorld) => readdirSync(path.join(w.dataDir, 'spool')).filter((f) => /\.(wav|flac)$/.test(f));

describe('after upload', () => {
  it('removes the spool copy, keeps the analyzer file by default', async () => {
    world = await createAgentWorld();
    const wav = drop(world);
    const daemon = await world.startAgent();
    await world.waitDrained();
    expect(spoolAudio(world)).toHaveLength(1);
    await daemon.housekeeping();
    expect(spoolAudio(world)).toEqual([]);
    const [rec] = listItems(daemon.queue, { kind: 'recording', limit: 5 }).items;
    expect(rec.state).toBe('uploaded');
    expect(rec.kind === 'recording' && rec.spoolPath).toBeNull();
    expect(existsSync(wav)).toBe(true);
  });

  it('keeps spool copies for retention.keepUploadedDays', async () => {
    world = await createAgentWorld({ config: { retention: { keepUploadedDays: 1 } } });
    drop(world);
    const daemon = await world.startAgent();
    await world.waitDrained();
    await daemon.housekeeping();
    expect(spoolAudio(world)).toHaveLength(1);
  });

  it('moves the analyzer file only when the user opted in (input.afterUpload: move)', async () => {
    const moveTo = path.join('/tmp', `moved-${process.pid}-${Date.now()}`);
    world = await createAgentWorld({ config: { input: { afterUpload: 'move', moveTo } } });
    const wav = drop(world);
    const daemon = await world.startAgent();
    await world.waitDrained();
    await daemon.housekeeping();
    expect(existsSync(wav)).toBe(false);
    expect(existsSync(path.join(moveTo, 'soundscape.wav'))).toBe(true);
    rmSync(moveTo, { recursive: true, force: true });
  });
});

describe('queue.retainDays', () => {
  it('retires settled rows older than it from the queue database, and nothing newer; nothing is posted again', async () => {
    world = await createAgentWorld({ config: { queue: { retainDays: 30 } } });
    drop(world, 'old');
    let daemon = await world.startAgent();
    await world.waitDrained();
    await daemon.housekeeping();
    await world.stopAgent();
    // That recording settled 31 days ago (the queue's own times; the clock stays where it is).
    const DAY = 86_400_000;
    const aged = openQueue(path.join(world.dataDir, 'queue.db'));
    for (const table of ['recordings', 'detections']) aged.db.prepare(`UPDATE ${table} SET created_at = created_at - ?, updated_at = updated_at - ?`).run(31 * DAY, 31 * DAY);
    aged.close();

    daemon = await world.startAgent();
    drop(world, 'new', '2025-06-01T10:05:10.000Z');
    const newUploaded = () =>
      daemon.queue.db
        .prepare(`SELECT COUNT(*) FROM detections JOIN recordings r ON r.id = recording_id WHERE r.source_path LIKE '%new.wav' AND detections.state = 'uploaded' AND r.state = 'uploaded'`)
        .pluck()
        .get() === 1;
    await until('the new recording uploaded', newUploaded, 20_000, () => JSON.stringify(world!.counts()));
    await daemon.housekeeping();
    const rows = (table: string) => daemon.queue.db.prepare(`SELECT source_path FROM ${table === 'recordings' ? 'recordings' : 'detections JOIN recordings ON recordings.id = detections.recording_id'}`).pluck().all() as string[];
    expect(rows('recordings').map((p) => path.basename(p))).toEqual(['new.wav']);
    expect(rows('detections').map((p) => path.basename(p))).toEqual(['new.wav']);
    // The kept counts follow (status reads them), and the old file is not ingested again.
    expect(world.counts()).toMatchObject({ recordings: { uploaded: 1 }, detections: { uploaded: 1 } });
    expect(recountStates(daemon.queue)).toBe(false);
    await daemon.ingestIdle();
    expect(await world.allSoundscapes()).toHaveLength(2);
    expect(await world.allDetections()).toHaveLength(2);
    expect(world.logLines.some((l) => l.includes('retired from the queue database'))).toBe(true);
  });

  it('forgets the files read before it that are gone from input.dir, never while the folder is away; keeps those still there; nothing is posted twice', async () => {
    world = await createAgentWorld({ config: { queue: { retainDays: 30 } } });
    const w = world;
    // Dated names: copies of one undated WAV would be one recording.
    const [GONE, KEPT] = ['20250601_100000', '20250601_100100'];
    drop(w, GONE);
    drop(w, KEPT, '2025-06-01T10:01:10.000Z');
    await w.startAgent();
    await w.waitDrained();
    await w.stopAgent();
    // Both read and settled 31 days ago (the queue's own times); then one recording's files are deleted.
    const DAY = 86_400_000;
    const file = path.join(w.dataDir, 'queue.db');
    const aged = openQueue(file);
    for (const table of ['recordings', 'detections']) aged.db.prepare(`UPDATE ${table} SET created_at = created_at - ?, updated_at = updated_at - ?`).run(31 * DAY, 31 * DAY);
    aged.db.prepare('UPDATE ingested_files SET at = at - ?').run(31 * DAY);
    aged.close();
    for (const f of [`${GONE}.wav`, `${GONE}.BirdNET.results.csv`]) rmSync(path.join(w.inputDir, f));
    const rows = (daemon: { queue: { db: { prepare(sql: string): { pluck(): { all(): unknown[] } } } } }) =>
      (daemon.queue.db.prepare('SELECT path FROM ingested_files ORDER BY path').pluck().all() as string[]).map((p) => path.basename(p));

    // The input folder away (a card unmounted): its files look gone, and nothing is forgotten.
    renameSync(w.inputDir, `${w.inputDir}.away`);
    let daemon = await w.startAgent();
    await daemon.housekeeping();
    expect(rows(daemon)).toEqual([`${GONE}.BirdNET.results.csv`, `${KEPT}.BirdNET.results.csv`]);
    // The queue's rows of both are retired: from here on only ingested_files keeps kept's files from being posted again.
    expect(daemon.queue.db.prepare('SELECT COUNT(*) FROM recordings').pluck().get()).toBe(0);
    await w.stopAgent();

    renameSync(`${w.inputDir}.away`, w.inputDir);
    daemon = await w.startAgent();
    await daemon.housekeeping();
    expect(rows(daemon)).toEqual([`${KEPT}.BirdNET.results.csv`]);
    expect(w.logLines.some((l) => l.includes('gone from input.dir forgotten'))).toBe(true);
    await w.stopAgent();

    // A start walks the whole folder: the file still there is skipped, not read and posted again
    // (a new recording, dropped after the start, is through once that walk is).
    daemon = await w.startAgent();
    drop(w, '20250601_100200', '2025-06-01T10:02:10.000Z');
    await until('the new recording uploaded', () => (w.counts().recordings.uploaded === 1 ? true : undefined), 20_000, () => JSON.stringify(w.counts()));
    await daemon.ingestIdle();
    await w.waitDrained();
    expect(daemon.queue.db.prepare('SELECT source_path FROM recordings').pluck().all().map((p) => path.basename(p as string))).toEqual(['20250601_100200.wav']);
    expect(await w.allSoundscapes()).toHaveLength(3);
    expect(await w.allDetections()).toHaveLength(3);
  });
});
