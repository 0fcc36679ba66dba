import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgentWorld, REAL_LABELS, type AgentWorld } from '../helpers/agent-world.js';
import { buildCli, parseJson, runCli, writeCliConfig } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';
import { editDistance } from '../../src/config/edit-distance.js';
import { parseLabelLines } from '../../src/ingest/labels.js';
import { nameKey } from '../../src/policy/names.js';

/** What an owner wrote: two names the labels do not know, and three they do. */
const NAMES = {
  privacy: { humanClasses: ['Human', 'Human vocal'] },
  filters: { include: ['Turdus merla', 'Pica pica', 'Eurasian Blackbird'] },
};
const WARNINGS = [
  'privacy.humanClasses: "Human" is no species or class of the labels file (input.labels), so it matches no row; did you mean "Human vocal"?',
  'filters.include: "Turdus merla" is no species or class of the labels file (input.labels), so it matches no row; did you mean "Turdus merula"?',
];

describe('misspelt class and species names in the config (issue 19 item 3)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let world: AgentWorld | undefined;
  beforeAll(async () => {
    await buildCli();
    tmp = tempDir('name-check-');
  }, 180_000);
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });
  afterAll(() => tmp?.cleanup());

  const config = (name: string, labels: boolean) =>
    writeCliConfig(path.join(tmp.dir, name, 'config.json'), {
      baseUrl: 'http://127.0.0.1:9',
      token: 'station-token-0123456789abcdef',
      dataDir: path.join(tmp.dir, name, 'data'),
      inputDir: path.join(tmp.dir, name, 'input'),
      extra: { ...NAMES, input: { dir: path.join(tmp.dir, name, 'input'), ...(labels ? { labels: REAL_LABELS } : {}) } },
    });

  it('config validate names each unknown name and its key, with the close match; nothing without a labels file', async () => {
    const json = parseJson<{ valid: boolean; warnings: string[] }>(await runCli(['config', 'validate', '--json', '--config', config('validate', true)]));
    expect(json.valid).toBe(true);
    expect(json.warnings.filter((w) => w.includes('is no species or class'))).toEqual(WARNINGS);
    const text = await runCli(['config', 'validate', '--config', config('validate', true)]);
    for (const w of WARNINGS) expect(text.stderr + text.stdout).toContain(w);
    const without = parseJson<{ warnings: string[] }>(await runCli(['config', 'validate', '--json', '--config', config('no-labels', false)]));
    expect(without.warnings.filter((w) => w.includes('is no species or class'))).toEqual([]);
  }, 60_000);

  it('config validate with 300 misspelt names: each named with a close suggestion, from an index rather than a scan per name (issue 35, N2)', async () => {
    // Every 20th common name of the real labels with two neighbouring letters swapped.
    const misspelt = parseLabelLines(readFileSync(REAL_LABELS, 'utf8'))
      .filter((_, i) => i % 20 === 0)
      .slice(0, 300)
      .map(({ commonName: n }) => {
        const at = Math.floor(n.length / 2);
        return n.slice(0, at - 1) + n[at] + n[at - 1] + n.slice(at + 1);
      })
      .filter((n, i, all) => all.indexOf(n) === i);
    const file = writeCliConfig(path.join(tmp.dir, 'many', 'config.json'), {
      baseUrl: 'http://127.0.0.1:9',
      token: 'station-token-0123456789abcdef',
      dataDir: path.join(tmp.dir, 'many', 'data'),
      inputDir: path.join(tmp.dir, 'many', 'input'),
      extra: { filters: { exclude: misspelt }, input: { dir: path.join(tmp.dir, 'many', 'input'), labels: REAL_LABELS } },
    });
    // A scan of every label per name took about a second each: 300 names ran past this test's limit.
    const json = parseJson<{ valid: boolean; warnings: string[] }>(await runCli(['config', 'validate', '--json', '--config', file]));
    const said = json.warnings.filter((w) => w.startsWith('filters.exclude: '));
    const known = new Set(parseLabelLines(readFileSync(REAL_LABELS, 'utf8')).flatMap((e) => [nameKey(e.commonName), nameKey(e.scientificName)]));
    const expected = misspelt.filter((n) => !known.has(nameKey(n)));
    expect(expected.length).toBeGreaterThan(250);
    expect(said).toHaveLength(expected.length);
    for (const [i, w] of said.entries()) {
      const m = /^filters\.exclude: "(.*)" is no species .*; did you mean "(.*)"\?$/.exec(w);
      expect(m, w).not.toBeNull();
      expect(m![1]).toBe(expected[i]);
      expect(editDistance(nameKey(m![1]), nameKey(m![2])), w).toBeLessThanOrEqual(1);
    }
  }, 60_000);

  it('doctor warns in its labels check', async () => {
    const result = await runCli(['doctor', '--json', '--config', config('doctor', true)]);
    const report = parseJson<{ checks: { id: string; status: string; detail: string }[] }>(result);
    const labels = report.checks.find((c) => c.id === 'labels')!;
    expect(labels.status).toBe('warn');
    for (const w of WARNINGS) expect(labels.detail).toContain(w);
  }, 60_000);

  it('the daemon says each once when it starts', async () => {
    world = await createAgentWorld({ config: NAMES });
    await world.startAgent();
    const lines = world.logLines.map((l) => JSON.parse(l) as { level: number; msg: string; key?: string; name?: string; suggestion?: string });
    const said = lines.filter((l) => l.msg.includes('is no species or class'));
    expect(said.map((l) => l.msg)).toEqual(WARNINGS);
    expect(said.map((l) => [l.level, l.key, l.name, l.suggestion])).toEqual([
      [40, 'privacy.humanClasses', 'Human', 'Human vocal'],
      [40, 'filters.include', 'Turdus merla', 'Turdus merula'],
    ]);
  }, 60_000);
});
