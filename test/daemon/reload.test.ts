import { readFileSync, writeFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentWorld, TOKEN, type AgentWorld } from '../helpers/agent-world.js';
import { addRealRecording } from '../helpers/real-recording.js';
import { until } from '../helpers/until.js';

/**
 * A reload applies what can change at runtime (docs/OPERATOR.md, "Reload"), through a
 * real daemon against the local service: the config file is edited, the daemon is told
 * to reload (as SIGHUP does; the file watcher may reload too), and its behaviour changes.
 * Keys that need a restart are named in one log line, without their values.
 */
let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A window two hours after the station's current hour: closed now. */
function closedWindow(): string {
  const start = DateTime.now().setZone('Europe/Berlin').startOf('hour').plus({ hours: 2 });
  return `${start.toFormat('HH:mm')}-${start.plus({ hours: 1 }).toFormat('HH:mm')}`;
}

function editConfig(w: AgentWorld, edit: (config: Record<string, Record<string, unknown>>) => void): void {
  const config = JSON.parse(readFileSync(w.configPath, 'utf8')) as Record<string, Record<string, unknown>>;
  edit(config);
  writeFileSync(w.configPath, JSON.stringify(config, null, 2), { mode: 0o600 });
}

const tail = () => world?.logLines.slice(-20).join('\n') ?? '';

describe('reload applies the keys that can change at runtime', () => {
  it('a closed upload window removed from the config: the held items go without a restart', async () => {
    world = await createAgentWorld({ config: { upload: { windows: [closedWindow()] } } });
    const w = world;
    addRealRecording(w.inputDir, 'rec', 0);
    const daemon = await w.startAgent();
    await until('detections queued', () => w.counts().detections.pending > 0, 30_000, tail);
    expect(daemon.snapshot().link?.windowOpen).toBe(false);
    expect(daemon.link.verdict().uploads).toBe(false);

    editConfig(w, (c) => (c.upload.windows = []));
    await daemon.reload();
    expect(daemon.snapshot().link).toMatchObject({ windows: [], windowOpen: true });
    const counts = await w.waitDrained(30_000);
    expect(counts.recordings.uploaded).toBe(1);
    expect(counts.detections.uploaded).toBeGreaterThan(0);
  });

  it('upload.noSoundscapeAfterSec lowered: detections waiting for a held soundscape go without it', async () => {
    world = await createAgentWorld({ config: { upload: { windows: [closedWindow()], windowsAudioOnly: true, noSoundscapeAfterSec: 86_400 } } });
    const w = world;
    addRealRecording(w.inputDir, 'rec', 0);
    const daemon = await w.startAgent();
    // Queued with its WAV, which waits for the window (it is encoded only when it may go).
    await until('recording queued', () => (daemon.queue.stmt("SELECT count(*) AS n FROM recordings WHERE audio_format = 'wav' AND state = 'pending'").get() as { n: number }).n === 1, 30_000, tail);
    await daemon.ingestIdle();
    expect(w.counts().detections.uploaded).toBe(0);

    editConfig(w, (c) => (c.upload.noSoundscapeAfterSec = 0));
    await daemon.reload();
    await until('detections posted without their soundscape', () => w.counts().detections.pending === 0 && w.counts().detections.uploaded > 0, 30_000, tail);
    expect(w.counts().recordings.uploaded).toBe(0);
    for (const d of await w.allDetections()) expect(d.soundscape ?? null).toBeNull();
  });

  it('a species filter lifted in the config: the next recording posts its detections', async () => {
    world = await createAgentWorld({ config: { filters: { include: ['Nonexistent Warbler'] } } });
    const w = world;
    addRealRecording(w.inputDir, 'first', 0);
    const daemon = await w.startAgent();
    await until('first recording read', () => w.logLines.some((l) => l.includes('first.BirdNET.results.csv')), 30_000, tail);
    await daemon.ingestIdle();
    expect(w.counts().detections.pending + w.counts().detections.uploaded).toBe(0);

    editConfig(w, (c) => (c.filters = { include: [] }));
    await daemon.reload();
    addRealRecording(w.inputDir, 'second', 1);
    const counts = await w.waitDrained(30_000);
    expect(counts.detections.uploaded).toBeGreaterThan(0);
    expect((await w.allDetections()).length).toBe(counts.detections.uploaded);
  });

  it('names the changed keys that need a restart in one line, never their values, and applies log.level', async () => {
    world = await createAgentWorld();
    const w = world;
    const daemon = await w.startAgent();
    editConfig(w, (c) => {
      c.input.stableMs = 4321;
      c.upload.concurrency = 3;
      c.log = { level: 'warn' };
    });
    await daemon.reload();
    const lines = w.logLines.filter((l) => l.includes('apply only after a restart'));
    expect(lines.length).toBeGreaterThan(0);
    const line = lines[0];
    expect(line).toContain('input.stableMs');
    expect(line).toContain('upload.concurrency');
    expect(line).not.toContain('log.level');
    expect(line).not.toContain('4321');
    expect(daemon.log.level).toBe('warn');
    expect(w.logLines.join('\n')).not.toContain(TOKEN);
  });
});
