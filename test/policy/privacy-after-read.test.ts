import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { realFixture } from '../helpers/paths.js';
import { until } from '../helpers/until.js';
import { closedPort, policyLogLines, spoolFiles, writeResultsCsv } from './support.js';

const MAGPIE_WAV = realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav');

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function setServiceUrl(file: string, baseUrl: string, upload?: { windows: string[] }): void {
  const config = JSON.parse(readFileSync(file, 'utf8')) as { service: Record<string, unknown>; upload?: Record<string, unknown> };
  const next = { ...config, service: { ...config.service, baseUrl }, upload: { ...config.upload, windows: upload?.windows ?? [] } };
  writeFileSync(file, JSON.stringify(next, null, 2), { mode: 0o600 });
}

/** An upload window of 30 minutes some twelve hours from now (the test station's zone, Europe/Berlin, is within two hours of UTC): nothing is sent before it. */
function windowFarFromNow(): string {
  const hour = String((new Date().getUTCHours() + 12) % 24).padStart(2, '0');
  return `${hour}:00-${hour}:30`;
}

describe('privacy after the first read (issue 19 item 1)', () => {
  it('withholds a soundscape already queued when its table is rewritten with a person in it, and the log says what happened', async () => {
    world = await createAgentWorld();
    const serviceUrl = world.emulator.url;
    // Down, and outside its upload window: no try is under way when the table is rewritten
    // (a try in flight at that moment is held, not dropped: src/ingest/privacy.ts).
    setServiceUrl(world.configPath, `http://127.0.0.1:${await closedPort()}`, { windows: [windowFarFromNow()] });
    const wav = path.join(world.inputDir, '20240224_160000.wav');
    const table = path.join(world.inputDir, '20240224_160000.BirdNET.results.csv');
    copyFileSync(MAGPIE_WAV, wav);
    writeResultsCsv(table, '20240224_160000.wav', [[0, 'Pica pica', 'Eurasian Magpie', 0.9]]);

    // The service is down: the bird-only recording waits in the queue with its audio in the spool.
    const daemon = await world.startAgent();
    const queued = () => daemon.queue.stmt(`SELECT state, spool_path AS spoolPath, last_error_code AS code FROM recordings`).all() as { state: string; spoolPath: string | null; code: string | null }[];
    await until('the recording queued with its audio', () => (queued().length === 1 && queued()[0].spoolPath !== null ? true : undefined), 20_000);
    const spooled = queued()[0].spoolPath!;

    // The analyzer rewrites the table: a person was heard after all.
    writeResultsCsv(table, '20240224_160000.wav', [
      [0, 'Pica pica', 'Eurasian Magpie', 0.9],
      [6, 'Human vocal', 'Human vocal', 0.9],
    ]);
    const said = await until('the privacy line', () => policyLogLines(world!.logLines).find((l) => l.policy === 'privacy'), 20_000);
    expect(said).toMatchObject({ file: table, class: 'Human vocal', confidence: 0.9, audio: 'dropped' });
    expect(String(said.msg)).toContain('is dropped (never uploaded) and its spooled audio was deleted');
    expect(queued()).toEqual([{ state: 'dropped', spoolPath: null, code: 'ERR_PRIVACY_AUDIO' }]);
    expect(spoolFiles(world.dataDir).filter((f) => !f.startsWith('incoming'))).toEqual([]);
    expect(() => readFileSync(spooled)).toThrow();

    // The service comes back: the bird goes, without the soundscape; nothing else does.
    await world.stopAgent();
    setServiceUrl(world.configPath, serviceUrl);
    await world.startAgent();
    const counts = await world.waitDrained(30_000);
    expect(counts.detections.uploaded).toBe(1);
    expect(counts.recordings).toMatchObject({ uploaded: 0, dropped: 1 });
    expect(await world.allSoundscapes()).toEqual([]);
    const [detection] = await world.allDetections();
    expect(detection.soundscape ?? null).toBeNull();
  }, 90_000);
});
