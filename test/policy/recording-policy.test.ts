import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/validate.js';
import { Labels } from '../../src/ingest/labels.js';
import type { ParsedDetection } from '../../src/ingest/types.js';
import { createStationPolicy } from '../../src/policy/recording-policy.js';
import { REAL_LABELS } from '../helpers/agent-world.js';

function policy(extra: Record<string, unknown> = {}) {
  const config = parseConfig(
    { service: { baseUrl: 'http://localhost:1' }, station: { latitude: 0, longitude: 0 }, input: { dir: '/in', minConfidence: 0.5 }, ...extra },
    'test',
  );
  return createStationPolicy(config);
}

let line = 0;
function row(scientificName: string, commonName: string, confidence: number): ParsedDetection {
  line++;
  return { startSec: line * 3, endSec: line * 3 + 3, scientificName, commonName, confidence, line };
}

describe('station policy decisions', () => {
  it('the default lists name every non-bird and human class of the real labels file as it writes them', async () => {
    const labels = await Labels.load(REAL_LABELS);
    const p = policy();
    for (const name of ['Dog', 'Engine', 'Environmental', 'Fireworks', 'Gun', 'Noise', 'Power tools', 'Siren', 'Human vocal', 'Human non-vocal', 'Human whistle']) {
      const species = labels.byScientificName(name);
      expect(species, name).toBeDefined();
      const d = p.decide([{ ...row(species!.scientificName, species!.commonName, 0.9) }]);
      expect(d.post, name).toEqual([]);
      expect(d.counts.nonBird, name).toEqual({ [species!.commonName]: 1 });
    }
  });

  it('withholds the soundscape for any human row at or above privacy.humanMinConfidence, whatever input.minConfidence, unless turned off', () => {
    const rows = [row('Pica pica', 'Eurasian Magpie', 0.9), row('Human vocal', 'Human vocal', 0.03), row('Human non-vocal', 'Human non-vocal', 0.05)];
    const d = policy().decide(rows);
    expect(d.withheld).toEqual({ reason: 'human', className: 'Human non-vocal', confidence: 0.05, line: rows[2].line });
    expect(d.post.map((r) => r.scientificName)).toEqual(['Pica pica']);
    expect(d.counts.humanSoundscapesWithheld).toBe(1);
    expect(policy({ privacy: { humanMinConfidence: 0.06 } }).decide(rows).withheld).toBeNull();
    const off = policy({ privacy: { withholdHumanRecordings: false } }).decide([...rows, row('Human vocal', 'Human vocal', 0.9)]);
    expect(off.withheld).toBeNull();
    // Human rows are never posted, even when an operator takes them off the non-bird list.
    expect(off.post.map((r) => r.scientificName)).toEqual(['Pica pica']);
    expect(policy({ privacy: { audio: 'never' } }).decide([rows[0]]).withheld).toEqual({ reason: 'audio-never' });
  });

  it('matches configured names by scientific name, common name or labels line, case-insensitively; exclude wins over include', () => {
    const rows = [
      row('Pica pica', 'Eurasian Magpie', 0.9),
      row('Turdus merula', 'Eurasian Blackbird', 0.9),
      row('Passer domesticus', 'House Sparrow', 0.9),
      row('Dog', 'Dog', 0.9),
    ];
    const d = policy({ filters: { include: ['PICA PICA', 'eurasian blackbird', 'House Sparrow'], exclude: ['Turdus merula_Eurasian Blackbird'], nonBirdClasses: ['noise'] } }).decide(rows);
    // Dog is not on the non-bird list any more, but not included either.
    expect(d.post.map((r) => r.scientificName)).toEqual(['Pica pica', 'Passer domesticus']);
    expect(d.counts.excluded).toBe(2);
    expect(d.counts.nonBird).toEqual({});
    // An operator's own non-bird list replaces the default.
    expect(policy({ filters: { nonBirdClasses: ['noise'] } }).decide(rows).post.map((r) => r.scientificName)).toContain('Dog');
  });

  it('applies a per-species threshold instead of input.minConfidence, higher or lower', () => {
    const rows = [row('Pica pica', 'Eurasian Magpie', 0.9), row('Pica pica', 'Eurasian Magpie', 0.96), row('Turdus merula', 'Eurasian Blackbird', 0.3), row('Parus major', 'Great Tit', 0.3)];
    const d = policy({ filters: { speciesMinConfidence: { 'eurasian magpie': 0.95, 'Turdus merula': 0.2 } } }).decide(rows);
    expect(d.post.map((r) => r.confidence)).toEqual([0.96, 0.3]);
    expect(d.post.map((r) => r.scientificName)).toEqual(['Pica pica', 'Turdus merula']);
    expect(d.counts.belowSpeciesMinConfidence).toBe(1);
    expect(d.below).toBe(2);
  });
});
