import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { createIngestContext } from '../../src/ingest/context.js';
import { Pairing, type InputFile } from '../../src/ingest/pairing.js';
import { InputWatcher } from '../../src/ingest/watcher.js';
import { openQueue, queueCounts, type Queue } from '../../src/queue/index.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { until } from '../helpers/until.js';
import { writeResultsCsv } from '../policy/support.js';

let world: AgentWorld | undefined;
let queue: Queue | undefined;
let watcher: InputWatcher<InputFile> | undefined;
afterEach(async () => {
  await watcher?.close();
  queue?.close();
  await world?.close();
  world = watcher = queue = undefined;
});

const FILES = 400;
const BOUND = 25;

describe('a backlog of tiny result tables dropped at once (issue 19 item 14)', () => {
  it('is held in memory up to a fixed bound: files followed by the watcher and waiting in the pairing together', async () => {
    world = await createAgentWorld();
    // Result tables without audio, each its own recording (the name carries the time).
    const dir = path.join(world.inputDir, 'dump');
    mkdirSync(dir);
    for (let i = 0; i < FILES; i++) {
      const hhmmss = [Math.floor(i / 3600), Math.floor(i / 60) % 60, i % 60].map((n) => String(n).padStart(2, '0')).join('');
      const name = `ST_20250601_${hhmmss}`;
      writeResultsCsv(path.join(dir, `${name}.BirdNET.results.csv`), `${name}.wav`, [[0, 'Pica pica', 'Eurasian Magpie', 0.9]]);
    }
    const { config } = await loadConfig({ path: world.configPath, env: {} });
    queue = openQueue(path.join(world.dataDir, 'queue.db'));
    const ctx = await createIngestContext(config, queue, pino({ level: 'silent' }));
    let most = 0;
    let done = 0;
    const held = () => {
      most = Math.max(most, watcher!.pendingCount + pairing.backlog);
    };
    const pairing = new Pairing({
      ctx,
      mode: 'results',
      jsonTimeoutMs: 60_000,
      recheck: (file, delayMs) => watcher!.recheck(file, delayMs),
      onOutcome: () => {
        held();
        done++;
      },
    });
    watcher = new InputWatcher<InputFile>({
      dir: world.inputDir,
      stableMs: 20,
      rescanIntervalMs: 0,
      maxPending: BOUND,
      classify: pairing.classify,
      isDone: pairing.isDone,
      onAppear: () => held(),
      onStable: (file, st, what) => {
        const handled = pairing.onStable(file, st, what);
        held();
        return handled;
      },
    });
    writeFileSync(path.join(world.inputDir, '.keep'), '');
    await watcher.start();
    await until(`all ${FILES} tables ingested`, () => (done >= FILES ? true : undefined), 120_000, () => `done ${done}, most held ${most}`);
    await pairing.idle();
    expect(queueCounts(queue).detections.pending).toBe(FILES);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(BOUND);
  }, 180_000);
});
