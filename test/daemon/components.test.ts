import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { REPO_ROOT } from '../helpers/paths.js';

/** docs/ARCHITECTURE.md's component table, in start order, against a real daemon's list. */
function documented(): string[] {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## The daemon as components'));
  const table = section.slice(section.indexOf('| # | component |'));
  const names: string[] = [];
  for (const line of table.split('\n').slice(2)) {
    const m = /^\| (\d+) \| ([^|]+) \|/.exec(line);
    if (!m) break;
    expect(Number(m[1])).toBe(names.length + 1);
    names.push(m[2].trim().toLowerCase());
  }
  return names;
}

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('the daemon components', () => {
  it('start in the order docs/ARCHITECTURE.md lists them (metrics with metrics.listen, alerts and MQTT always as components)', async () => {
    world = await createAgentWorld({ config: { metrics: { listen: '127.0.0.1:0' } } });
    const daemon = await world.startAgent();
    expect(daemon.components).toEqual(documented());
  });

  it('are wired by a startDaemon short enough to read in one screen (under 120 lines)', () => {
    const source = readFileSync(path.join(REPO_ROOT, 'src/daemon/index.ts'), 'utf8').split('\n');
    const first = source.findIndex((l) => l.startsWith('export async function startDaemon('));
    const last = source.findIndex((l, i) => i > first && l === '}');
    expect(first).toBeGreaterThan(-1);
    expect(last - first + 1).toBeLessThan(120);
  });
});
