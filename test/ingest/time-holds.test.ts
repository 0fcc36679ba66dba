import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { createIngestContext } from '../../src/ingest/context.js';
import { classifyPath, type ResultClass } from '../../src/ingest/formats.js';
import { ingestRecording } from '../../src/ingest/ingest-recording.js';
import { openQueue, holdCounts } from '../../src/queue/index.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { buildCli, parseJson, runCli } from '../helpers/cli.js';
import { realFixture } from '../helpers/paths.js';
import { until } from '../helpers/until.js';

/**
 * Holds that end: items ingested while the station clock said 2000 were held as
 * "implausible-time" (their 2025 start looked years ahead). Once the daemon runs with
 * a trusted clock it judges them again and releases them; a stamp that is itself
 * wrong (2000) stays held, `status` shows it per reason, and `queue release` lets the
 * operator send it.
 */
let world: AgentWorld | undefined;
beforeAll(() => buildCli(), 180_000);
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const CSV = realFixture('birdnet-analyzer_ea464544_2022-03-02', 'soundscape.BirdNET.results.csv');
const CLOCK_AT_2000 = Date.UTC(2000, 0, 1, 12);

/** Ingests result files the way the daemon does, but with the clock the station had then. */
async function ingestWithClock(w: AgentWorld, files: string[], nowMs: number): Promise<void> {
  const { config } = await loadConfig({ path: w.configPath, env: {} });
  const queue = openQueue(path.join(w.dataDir, 'queue.db'));
  try {
    const ctx = await createIngestContext(config, queue, pino({ level: 'silent' }));
    ctx.now = () => nowMs;
    for (const file of files) expect((await ingestRecording(ctx, { resultPath: file, what: classifyPath(file) as ResultClass })).status).toBe('queued');
  } finally {
    queue.close();
  }
}


/** The agent's last log lines, for a failure message. */
const logTail = () => world?.logLines.slice(-20).join('\n') ?? '';

describe('items held for an implausible time', () => {
  it('are released by the daemon once the clock makes them plausible; a wrong stamp stays held, shows in status, and queue release sends it', async () => {
    world = await createAgentWorld();
    const w = world;
    const card = path.join(w.root, 'sdcard');
    mkdirSync(card);
    const good = path.join(card, 'ST_20250601_100000.BirdNET.results.csv');
    const wrong = path.join(card, 'ST_20000101_000000.BirdNET.results.csv');
    copyFileSync(CSV, good);
    copyFileSync(CSV, wrong);
    await ingestWithClock(w, [good, wrong], CLOCK_AT_2000);
    const perFile = w.counts().detections.pending / 2;
    {
      const q = openQueue(path.join(w.dataDir, 'queue.db'));
      expect(holdCounts(q).detection).toEqual({ 'implausible-time': perFile * 2 });
      q.close();
    }

    const daemon = await w.startAgent();
    await until('the plausible items uploaded', () => w.counts().detections.uploaded === perFile, 30_000, logTail);
    expect(holdCounts(daemon.queue).detection).toEqual({ 'implausible-time': perFile });
    expect(w.logLines.some((l) => l.includes('plausible by the clock now: released'))).toBe(true);

    const json = parseJson(await runCli(['status', '--json', '--offline', '--config', w.configPath]));
    expect(json.queue.held).toEqual({ soundscapes: {}, detections: { 'implausible-time': perFile } });
    const text = await runCli(['status', '--offline', '--config', w.configPath]);
    expect(text.stdout).toContain(`held (implausible-time): 0 soundscapes, ${perFile} detections`);
    const listed = parseJson(await runCli(['queue', 'list', '--held', 'implausible-time', '--json', '--config', w.configPath]));
    expect(listed.items).toHaveLength(perFile);
    expect(listed.items.every((i: { timestamp: string }) => i.timestamp.startsWith('2000-01-01'))).toBe(true);

    // Ingesting the file again cannot help, and says why and what can.
    const forced = await runCli(['ingest', '--force', '--json', wrong, '--config', w.configPath]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(parseJson(forced).skipped).toEqual([
      { file: wrong, reason: expect.stringMatching(/^already queued, held: implausible-time \(.*queue release ends the hold\)$/) },
    ]);

    // The operator decides: send them with the time they have.
    const released = await runCli(['queue', 'release', '--held', 'implausible-time', '--json', '--config', w.configPath]);
    expect(released.code, released.stderr).toBe(0);
    expect(parseJson(released).released).toHaveLength(perFile);
    await until('the released items settled', () => {
      const c = w.counts().detections;
      return c.pending === 0 && c.sending === 0 && c.unknown === 0;
    }, 30_000, logTail);
    expect(holdCounts(daemon.queue).detection).toEqual({});
    expect(w.counts().detections.uploaded + w.counts().detections.failed).toBe(perFile * 2);

    // Releasing what is not held is refused, naming the item.
    const again = await runCli(['queue', 'release', listed.items[0].id, '--config', w.configPath]);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain(`refused ${listed.items[0].id as string}: it is`);
  }, 120_000);
});
