import { copyFileSync, existsSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listItems } from '../../src/queue/index.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { realFixture } from '../helpers/paths.js';

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function drop(w: AgentWorld): string {
  const wav = path.join(w.inputDir, 'soundscape.wav');
  copyFileSync(realFixture('birdnet-analyzer_ea464544_2022-03-02', 'soundscape.wav'), wav);
  const end = new Date('2025-06-01T10:00:10.000Z');
  utimesSync(wav, end, end);
  writeFileSync(path.join(w.inputDir, 'soundscape.BirdNET.results.csv'), 'Start (s),End (s),Scientific name,Common name,Confidence\n0,3.0,Pica pica,Eurasian Magpie,0.9\n');
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
