import { describe, expect, it } from 'vitest';
import { NameMap, NameSet, nameKey } from '../../src/policy/names.js';

describe('nameKey: the one key names are compared under', () => {
  it('is NFC, trimmed, inner white space collapsed, lower case; the same key when met again, past the recent keys it keeps', () => {
    // "é" written decomposed (e + U+0301) and composed, with stray white space.
    const decomposed = '  Certhia  famili\u0065\u0301  ';
    expect(nameKey(decomposed)).toBe('certhia famili\u00e9');
    // More distinct names than the recent keys hold, then the first ones again: each key is
    // still its own name's (a stale or shared entry would give another name's key).
    const names = Array.from({ length: 3000 }, (_, i) => `Species\t${i}  Name`);
    const first = names.map(nameKey);
    expect(first[2999]).toBe('species 2999 name');
    expect(names.map(nameKey)).toEqual(first);
    expect(nameKey(decomposed)).toBe('certhia famili\u00e9');
  });

  it('matches a species by its scientific name, common name or labels line, in sets and maps alike', () => {
    const species = { scientificName: 'Pica pica', commonName: 'Eurasian Magpie' };
    expect(new NameSet(['pica  PICA']).has(species)).toBe(true);
    expect(new NameSet(['eurasian magpie']).has(species)).toBe(true);
    expect(new NameSet(['Pica pica_Eurasian Magpie']).has(species)).toBe(true);
    expect(new NameSet(['Corvus corax']).has(species)).toBe(false);
    expect(new NameMap({ 'EURASIAN MAGPIE': 0.9 }).get(species)).toBe(0.9);
  });
});
