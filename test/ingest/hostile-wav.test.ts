import { utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { until } from '../helpers/until.js';
import { buildWav } from '../helpers/wav-writer.js';
import { writeResultsCsv } from '../policy/support.js';

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Three recorders that never finalised their WAV header, and what a lenient reader takes of each. */
const HOSTILE = [
  { name: '20250601_050000', declaredDataBytes: 0, frames: 4 * 16_000, says: 'a data size of 0' },
  { name: '20250601_050100', declaredDataBytes: 0xffffffff, frames: 5 * 16_000, says: 'a data size of 0xFFFFFFFF' },
  { name: '20250601_050200', declaredDataBytes: 50_000_000, frames: 6 * 16_000, says: 'a data size of 50000000 bytes, more than' },
];

describe('hostile WAV headers (issue 19 item 14)', () => {
  it('uploads the audio a lenient reader recovers (whole frames up to the end of the file) and says what was recovered', async () => {
    world = await createAgentWorld();
    const anHourAgo = new Date(Date.now() - 3_600_000);
    for (const h of HOSTILE) {
      const wav = path.join(world.inputDir, `${h.name}.wav`);
      // One stray byte after the last frame: not a whole frame, left out.
      const { bytes } = buildWav({ frames: h.frames, declaredDataBytes: h.declaredDataBytes });
      writeFileSync(wav, Buffer.concat([bytes, Buffer.from([0x7f])]));
      // Written an hour ago and never touched since: not a recording still being written.
      utimesSync(wav, anHourAgo, anHourAgo);
      writeResultsCsv(path.join(world.inputDir, `${h.name}.BirdNET.results.csv`), `${h.name}.wav`, [[0, 'Pica pica', 'Eurasian Magpie', 0.9]]);
    }
    await world.startAgent();
    await until('three soundscapes uploaded', () => (world!.counts().recordings.uploaded === 3 ? true : undefined), 30_000, () => world!.logLines.slice(-30).join('\n'));
    const counts = await world.waitDrained();
    expect(counts.recordings.failed + counts.detections.failed).toBe(0);
    const soundscapes = (await world.allSoundscapes()).sort((a, b) => a.timestamp.localeCompare(b.timestamp));
    expect(soundscapes.map((s) => Number(s.duration))).toEqual(HOSTILE.map((h) => h.frames / 16_000));
    expect(soundscapes.map((s) => s.sampleRate)).toEqual([16_000, 16_000, 16_000]);
    for (const d of await world.allDetections()) expect(d.soundscape ?? null).not.toBeNull();

    const warnings = world.logLines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((r) => r.level === 40);
    for (const h of HOSTILE) {
      const wav = path.join(world.inputDir, `${h.name}.wav`);
      expect(
        warnings.some((w) => w.msg.startsWith(`${wav}: the WAV header was never finalised (${h.says}`) && w.msg.includes(`took the ${h.frames * 2} bytes of whole frames`)),
        `a warning saying what was recovered of ${wav}`,
      ).toBe(true);
    }
  }, 90_000);
});
