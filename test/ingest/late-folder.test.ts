import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { addRealRecording } from '../helpers/real-recording.js';

/**
 * Issue 35: an input folder that appears after the daemon started (a card's folder made late,
 * the demo's own folder) was watched only from the next rescan (300 s by default), and an
 * analyzerpi stream folder's WAVs live seconds. Now its nearest existing parent is watched
 * until it is there. The rescan here is the default's 300 s: the recording is in long before.
 */
let world: AgentWorld | undefined;
let base: string | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
  if (base) rmSync(base, { recursive: true, force: true });
  base = undefined;
});

describe('an input folder that appears after the start', () => {
  it('is watched at once, two levels below the nearest existing folder', async () => {
    base = mkdtempSync(path.join(os.tmpdir(), 'late-folder-'));
    const inputDir = path.join(base, 'card', 'birds', 'stream');
    world = await createAgentWorld({ inputDir, config: { input: { rescanIntervalSec: 300 } } });
    rmSync(path.join(base, 'card'), { recursive: true });
    await world.startAgent();
    expect(world.logLines.some((l) => l.includes(`input.dir ${inputDir} does not exist (yet)`))).toBe(true);

    mkdirSync(path.join(base, 'card'));
    // Made one level at a time, as a mount script or an analyzer's first start might.
    mkdirSync(path.join(base, 'card', 'birds'));
    mkdirSync(inputDir);
    addRealRecording(inputDir);
    const counts = await world.waitDrained(60_000);
    expect(counts.recordings.uploaded).toBe(1);
    expect((await world.allSoundscapes()).length).toBe(1);
  }, 120_000);

});
