import { DateTime } from 'luxon';
import { afterEach, describe, expect, it } from 'vitest';
import { getMeta, type Queue } from '../../src/queue/index.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { addRealRecording } from '../helpers/real-recording.js';
import { until } from '../helpers/until.js';

/**
 * Upload windows and the daily data budget, with the real agent against the local
 * service. The daemon's wall clock (the link policy's) is injected and moved; the
 * queue's own times stay real.
 */

const ZONE = 'Europe/Berlin';

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/**
 * A recording of the real analyzer output, `minute` minutes apart so each is its own
 * soundscape. The name is dated (UTC): copies of one undated file are one recording (its
 * content is its identity), a dated name makes each its own.
 */
function addRecording(w: AgentWorld, _label: string, minute: number): void {
  addRealRecording(w.inputDir, `20250601_10${String(minute).padStart(2, '0')}00`, minute);
}


/** One pending recording whose spool file is its WAV (not encoded while it waits: nothing written for it). */
function spooledWav(queue: Queue): boolean {
  return (queue.stmt("SELECT count(*) AS n FROM recordings WHERE audio_format = 'wav' AND state = 'pending'").get() as { n: number }).n === 1;
}

/** A window that starts two hours after the current local hour: closed now, open after `opensIn` ms. */
function closedWindow(): { window: string; opensIn: number } {
  const now = DateTime.now().setZone(ZONE);
  const start = now.startOf('hour').plus({ hours: 2 });
  const end = start.plus({ hours: 1 });
  return { window: `${start.toFormat('HH:mm')}-${end.toFormat('HH:mm')}`, opensIn: start.toMillis() - now.toMillis() + 60_000 };
}

describe('upload windows and data budget (real agent, local service)', () => {
  it('audio-only window closed: detections go without their soundscape after upload.noSoundscapeAfterSec; the soundscape follows when the window opens', async () => {
    const { window, opensIn } = closedWindow();
    world = await createAgentWorld({
      config: { upload: { windows: [window], windowsAudioOnly: true, noSoundscapeAfterSec: 0 }, input: { minConfidence: 0.15 } },
    });
    let offset = 0;
    addRecording(world, 'rec', 0);
    const daemon = await world.startAgent({ now: () => Date.now() + offset });

    // Detections reach the service without a soundscape; no soundscape does.
    const posted = await until('detections posted', () => {
      const c = world!.counts();
      return c.detections.pending + c.detections.sending + c.detections.unknown === 0 && c.detections.uploaded > 0 ? c : undefined;
    });
    // The soundscape waits for the window, its WAV as it came: encoded only when it may go.
    await until('recording queued', () => spooledWav(daemon.queue) || undefined);
    expect(posted.recordings.uploaded).toBe(0);
    expect(await world.allSoundscapes()).toHaveLength(0);
    const detections = await world.allDetections();
    expect(detections).toHaveLength(posted.detections.uploaded);
    for (const d of detections) expect(d.soundscape ?? null).toBeNull();
    expect(daemon.snapshot().link).toMatchObject({ windowOpen: false, windows: [window], windowsAudioOnly: true });

    // The window opens: the soundscape goes; its detections are not posted again (they stay unlinked: the documented trade-off).
    offset = opensIn;
    daemon.uploader.notify();
    await until('soundscape uploaded', async () => ((await world!.allSoundscapes()).length === 1 ? true : undefined));
    expect(await world.allDetections()).toHaveLength(detections.length);
  });

  it('audio-only window closed and a long upload.noSoundscapeAfterSec: detections wait with their soundscape and go linked to it once the window opens', async () => {
    const { window, opensIn } = closedWindow();
    world = await createAgentWorld({
      config: { upload: { windows: [window], windowsAudioOnly: true, noSoundscapeAfterSec: 86_400 }, input: { minConfidence: 0.15 } },
    });
    let offset = 0;
    addRecording(world, 'rec', 0);
    const daemon = await world.startAgent({ now: () => Date.now() + offset });
    // Queued with its WAV: only the window holds it (and its detections).
    await until('recording queued', () => spooledWav(daemon.queue) || undefined);
    await daemon.ingestIdle();
    expect(await world.allSoundscapes()).toHaveLength(0);
    expect(await world.allDetections()).toHaveLength(0);

    offset = opensIn;
    daemon.uploader.notify();
    const c = await world.waitDrained();
    expect(await world.allSoundscapes()).toHaveLength(1);
    const detections = await world.allDetections();
    expect(detections).toHaveLength(c.detections.uploaded);
    // Retrieval responses carry the soundscape reference (its times), not its id: one soundscape exists.
    for (const d of detections) expect(d.soundscape?.startTime).toEqual(expect.any(Number));
  });

  it('window closed (all uploads): nothing reaches the service until it opens', async () => {
    const { window, opensIn } = closedWindow();
    world = await createAgentWorld({ config: { upload: { windows: [window] }, input: { minConfidence: 0.15 } } });
    let offset = 0;
    addRecording(world, 'rec', 0);
    const daemon = await world.startAgent({ now: () => Date.now() + offset });
    await until('recording queued', () => spooledWav(daemon.queue) || undefined);
    await daemon.ingestIdle();
    expect(await world.allDetections()).toHaveLength(0);
    expect(await world.allSoundscapes()).toHaveLength(0);
    offset = opensIn;
    daemon.uploader.notify();
    await world.waitDrained();
    expect(await world.allSoundscapes()).toHaveLength(1);
  });

  it('daily budget: once spent, soundscapes wait for the next local day, across a restart; detections keep flowing', async () => {
    world = await createAgentWorld({
      config: { upload: { concurrency: 1, audioBytesPerDay: 1, noSoundscapeAfterSec: 0 }, input: { minConfidence: 0.15 } },
    });
    let offset = 0;
    const clock = { now: () => Date.now() + offset };
    addRecording(world, 'a', 0);
    addRecording(world, 'b', 1);
    addRecording(world, 'c', 2);
    await world.startAgent(clock);
    // One soundscape spends the budget; the others wait, their detections go without them.
    await until('detections posted', () => {
      const c = world!.counts();
      return c.detections.pending + c.detections.sending + c.detections.unknown === 0 && c.detections.uploaded > 0 ? c : undefined;
    });
    await until('first soundscape', async () => ((await world!.allSoundscapes()).length === 1 ? true : undefined));
    const budget = getMeta(world.daemon!.queue, 'audioBudget');
    expect(budget?.bytes).toBeGreaterThan(0);
    expect(world.daemon!.snapshot().link?.budget?.left).toBe(0);

    // The count survives a restart: still nothing more today.
    await world.stopAgent();
    const daemon = await world.startAgent(clock);
    expect(daemon.link.budget.usedToday()).toBe(budget!.bytes);
    expect(daemon.link.verdict().audio).toBe(false);
    expect(await world.allSoundscapes()).toHaveLength(1);

    // The next local day: a fresh budget, one more soundscape.
    const nextDay = DateTime.now().setZone(ZONE).startOf('day').plus({ days: 1, seconds: 1 }).toMillis();
    offset = nextDay - Date.now();
    daemon.uploader.notify();
    await until('second soundscape', async () => ((await world!.allSoundscapes()).length === 2 ? true : undefined));
  });

  it('detections whose soundscape waits for the budget go when upload.noSoundscapeAfterSec ends, not at the next idle wake', async () => {
    // The idle wake an hour away: only the detections' own due time can bring them out.
    world = await createAgentWorld({
      config: { upload: { concurrency: 1, audioBytesPerDay: 1, noSoundscapeAfterSec: 3, probeIntervalSec: 3_600 }, input: { minConfidence: 0.15 } },
    });
    addRecording(world, 'a', 0);
    const daemon = await world.startAgent();
    // The first soundscape spends the budget; its detections follow it.
    const first = await world.waitDrained();
    expect(await world.allSoundscapes()).toHaveLength(1);
    expect(daemon.link.verdict().audio).toBe(false);

    // A second recording: its soundscape waits for tomorrow, its detections for noSoundscapeAfterSec.
    addRecording(world, 'b', 1);
    await until('b queued', () => (world!.counts().detections.pending > 0 ? true : undefined));
    const posted = await until(
      'b\'s detections posted without their soundscape',
      () => {
        const c = world!.counts();
        return c.detections.pending + c.detections.sending + c.detections.unknown === 0 && c.detections.uploaded > first.detections.uploaded ? c : undefined;
      },
      40_000,
    );
    expect(posted.recordings.pending).toBe(1);
    expect(await world.allSoundscapes()).toHaveLength(1);
    expect(await world.allDetections()).toHaveLength(posted.detections.uploaded);
  }, 60_000);

  it('daily budget: a run with the clock a day behind neither resets the day nor loses what it spent', async () => {
    world = await createAgentWorld({
      config: { upload: { concurrency: 1, audioBytesPerDay: 1, noSoundscapeAfterSec: 0 }, input: { minConfidence: 0.15 } },
    });
    addRecording(world, 'a', 0);
    const first = await world.startAgent();
    const drained = await world.waitDrained();
    expect(await world.allSoundscapes()).toHaveLength(1);
    const spent = first.link.budget.usedToday();
    expect(spent).toBeGreaterThan(0);
    await world.stopAgent();

    // A restart with the clock a day behind: the budget spent today still holds.
    const behind = await world.startAgent({ now: () => Date.now() - 86_400_000 });
    addRecording(world, 'b', 1);
    await until('b\'s detections posted', () => {
      const c = world!.counts();
      return c.detections.pending + c.detections.sending + c.detections.unknown === 0 && c.detections.uploaded > drained.detections.uploaded ? c : undefined;
    });
    expect(await world.allSoundscapes()).toHaveLength(1);
    expect(behind.link.budget.usedToday()).toBe(spent);
    await world.stopAgent();

    // The right clock again: still today's count, still spent.
    const again = await world.startAgent();
    expect(again.link.budget.usedToday()).toBe(spent);
    expect(again.link.verdict().audio).toBe(false);
    expect(getMeta(again.queue, 'audioBudget')).toEqual({ day: DateTime.now().setZone(ZONE).toISODate(), bytes: spent });
  }, 60_000);
});
