import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { holdingProxy, type HoldingProxy } from '../helpers/holding-proxy.js';
import { realFixture } from '../helpers/paths.js';
import { until } from '../helpers/until.js';

/**
 * Issue 35: a 201 whose soundscape id is a word, beyond 2^53 or negative marked `failed` a
 * soundscape the service had stored, so a later `queue retry` posted it again. Such an
 * answer is an unknown outcome: looked up at the service and adopted, never failed.
 */
let world: AgentWorld | undefined;
let proxy: HoldingProxy | undefined;
afterEach(async () => {
  await world?.close();
  await proxy?.close();
  world = undefined;
  proxy = undefined;
});

describe('a 201 with an odd soundscape id', () => {
  for (const [what, raw] of [
    ['a word', '"abc"'],
    ['beyond 2^53', '9007199254740993'],
    ['negative', '-7'],
  ] as const) {
    it(`${what}: the outcome is unknown, the lookup finds the stored soundscape, nothing fails and nothing is posted twice`, async () => {
      world = await createAgentWorld();
      proxy = await holdingProxy(
        world.emulator.url,
        (req) => req.method === 'POST' && (req.url ?? '').includes('soundscapes'),
        {
          hold: false,
          rewrite: (body) => {
            const json = JSON.parse(body) as { soundscape: { id: unknown } };
            json.soundscape.id = '__ODD__';
            return JSON.stringify(json).replace('"__ODD__"', raw);
          },
        },
      );
      const cfg = JSON.parse(readFileSync(world.configPath, 'utf8')) as { service: { baseUrl: string } };
      cfg.service.baseUrl = proxy.url;
      writeFileSync(world.configPath, JSON.stringify(cfg), { mode: 0o600 });
      const daemon = await world.startAgent();
      copyFileSync(realFixture('birdnet-analyzer_ea464544_2022-03-02', 'soundscape.wav'), path.join(world.inputDir, 'rec.wav'));
      writeFileSync(path.join(world.inputDir, 'rec.BirdNET.results.csv'), 'Start (s),End (s),Scientific name,Common name,Confidence\n0,3,Pica pica,Eurasian Magpie,0.9\n');
      await proxy.holding;
      await until('the recording and its detection uploaded', () => {
        const c = world!.counts();
        return c.recordings.uploaded === 1 && c.detections.uploaded === 1;
      }, 30_000, () => world!.logLines.slice(-20).join('\n'));
      // Never failed on the way: the answer made it unknown, the lookup uploaded.
      expect(daemon.queue.stmt('SELECT state, last_error_code FROM recordings').all()).toEqual([{ state: 'uploaded', last_error_code: expect.anything() }]);
      expect(world.logLines.some((l) => l.includes('which is no id the agent can keep'))).toBe(true);
      expect(await world.allSoundscapes()).toHaveLength(1);
      expect(await world.allDetections()).toHaveLength(1);
    }, 60_000);
  }
});
