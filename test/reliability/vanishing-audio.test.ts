import type * as fs from 'node:fs';
import { unlinkSync } from 'node:fs';
import type * as fsPromises from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { buildWav } from '../helpers/wav-writer.js';
import { sidecar, writeAtomically, type ExpectedRecording } from './support/backlog.js';
import { EXACTLY_ONCE, exactlyOnce, serviceHoldings, withQueue } from './support/exactly-once.js';
import { until } from '../helpers/until.js';

/**
 * Scenario 5 (bad input), the file that vanishes mid-read: the analyzer (or a
 * clean-up script) deletes the audio while the agent is ingesting it. A real race
 * cannot be timed in a test, so the deletion is done at the file system edge, at the
 * exact moment: the audio is unlinked just before the agent opens it to read its
 * header, or just before it links it into the spool. Unlinked before the open, the
 * detections must still be queued and uploaded (without a soundscape), with a message
 * naming the audio; unlinked after the open, the audio lives on in the open file and is
 * taken from there (the analyzerpi analyzer deletes its WAVs at any moment).
 */
// The deletion goes into the calls ingest makes: synchronous ones (system/regular-file.ts,
// ingest/spool.ts read and link with them) and the promise ones that remain.
const vanish = (file: unknown, prefix: string) => {
  if (typeof file === 'string' && path.basename(file).startsWith(prefix) && file.endsWith('.wav')) {
    try {
      unlinkSync(file);
    } catch {
      // Already gone.
    }
  }
};
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  const openSync = ((file: fs.PathLike, ...rest: unknown[]) => {
    vanish(file, 'vanish-at-read');
    return (real.openSync as (...args: unknown[]) => number)(file, ...rest);
  }) as typeof real.openSync;
  const linkSync: typeof real.linkSync = (existing, target) => {
    vanish(existing, 'vanish-at-spool');
    return real.linkSync(existing, target);
  };
  return { ...real, openSync, linkSync, default: { ...real, openSync, linkSync } };
});
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof fsPromises>();
  const open: typeof real.open = (file, ...rest) => {
    vanish(file, 'vanish-at-read');
    return real.open(file, ...rest);
  };
  const link: typeof real.link = (existing, target) => {
    vanish(existing, 'vanish-at-spool');
    return real.link(existing, target);
  };
  return { ...real, open, link, default: { ...real, open, link } };
});

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('bad input: the audio vanishes while the agent ingests it', () => {
  it('queues and uploads the detections; audio gone before its open goes without a soundscape, named; audio gone after it is taken from the open file', async () => {
    world = await createAgentWorld({ config: { upload: { noSoundscapeAfterSec: 1 } } });
    const base = Date.parse('2025-06-01T05:00:00Z');
    const recs: ExpectedRecording[] = ['vanish-at-read', 'vanish-at-spool', 'stays'].map((name, i) => ({
      base: name,
      startMs: base + i * 60_000,
      durationS: 3,
      detections: [0, 3].map((s) => ({
        timestampMs: base + i * 60_000 + s * 1000,
        scientificName: s === 0 ? 'Turdus merula' : 'Parus major',
        commonName: s === 0 ? 'Eurasian Blackbird' : 'Great Tit',
        startS: s,
        endS: s + 3,
        confidence: 0.9,
      })),
    }));
    for (const rec of recs) {
      // 6 s of audio: both rows (0-3 s, 3-6 s) lie inside it.
      writeAtomically(path.join(world.inputDir, `${rec.base}.wav`), buildWav({ frames: 6 * 16_000 }).bytes);
      writeAtomically(path.join(world.inputDir, `${rec.base}.detections.json`), sidecar(rec));
    }
    await world.startAgent();
    const counts = await until(
      'every detection uploaded',
      () => {
        const c = world!.counts();
        return c.detections.uploaded === 6 ? c : undefined;
      },
      20_000,
      () => `${JSON.stringify(world!.counts())}\n${world!.logLines.filter((l) => !l.includes('"level":20')).join('\n')}`,
    );
    expect(counts.recordings.uploaded).toBe(2);
    expect(withQueue(world.dataDir, (q) => q.integrityCheck())).toEqual({ ok: true, problems: [] });
    const held = await serviceHoldings(world.client);
    expect(exactlyOnce(recs, held, { withoutSoundscape: new Set(['vanish-at-read']) })).toEqual(EXACTLY_ONCE);

    const warnings = world.logLines.map((l) => JSON.parse(l) as { level: number; msg: string; file?: string }).filter((r) => r.level === 40);
    for (const name of ['vanish-at-read']) {
      const wav = path.join(world.inputDir, `${name}.wav`);
      expect(
        warnings.some((r) => r.file === path.join(world!.inputDir, `${name}.detections.json`) && r.msg.startsWith(`${wav}: audio deleted before it could be spooled`)),
        `a warning naming ${wav}:\n${world.logLines.join('\n')}`,
      ).toBe(true);
    }
  });
});
