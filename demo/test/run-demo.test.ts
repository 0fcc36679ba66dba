import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoError } from '../src/errors.js';
import { runDemo } from '../src/run-demo.js';

/** The demo in-process: its self-check, and what it does when stopped or stalled. */
describe('runDemo', () => {
  function folderOf(lines: string[]): string {
    const line = lines.find((l) => l.startsWith('writing '));
    const m = line ? / to (\S+)\/analyzer-output$/.exec(line) : null;
    if (!m) throw new Error(`no sample folder in:\n${lines.join('\n')}`);
    return m[1];
  }

  it('uploads the samples and finds every detection at its time at the service', async () => {
    const said: string[] = [];
    const result = await runDemo({ say: (l) => said.push(l) });
    expect(result.service.detectionItems).toHaveLength(15);
    for (const d of result.service.detectionItems) expect(d.soundscape).not.toBeNull();
    expect(result.service.soundscapes).toMatchObject({ count: 6, totalDurationSec: 90 });
    expect(result.keptDir).toBeNull();
    expect(existsSync(folderOf(said))).toBe(false);
    expect(JSON.stringify(result)).not.toMatch(/token/i);
  }, 60_000);

  it('stops everything and removes its folder when interrupted', async () => {
    const said: string[] = [];
    const interrupted = runDemo({ say: (l) => said.push(l), signal: AbortSignal.abort() });
    await expect(interrupted).rejects.toBeInstanceOf(DemoError);
    await expect(interrupted).rejects.toMatchObject({ interrupted: true, code: 'ERR_DEMO' });
    expect(existsSync(folderOf(said))).toBe(false);
    expect(said.some((l) => l.startsWith('kept '))).toBe(false);
  }, 60_000);

  it('says what the queue holds when it does not drain in time, and keeps the folder with the agent log', async () => {
    const said: string[] = [];
    const stalled = runDemo({ say: (l) => said.push(l), timeoutMs: 0 });
    await expect(stalled).rejects.toThrow(/the queue did not drain within 0 s: expected 6 soundscapes and 15 detections uploaded, the queue holds soundscapes: /);
    const dir = folderOf(said);
    try {
      expect(said.at(-1)).toBe(`kept ${dir} (samples, queue, config, agent.log)`);
      expect(readFileSync(path.join(dir, 'agent.log'), 'utf8')).toContain('station-agent stopped');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
