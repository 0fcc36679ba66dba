/**
 * Derived species codes and colours. Nothing here is looked up: every value is a
 * pure function of the names, so the same catalog always gives the same values.
 */

/**
 * The 4-letter alpha (banding) code of an English bird name by the usual rules:
 * hyphens separate words and apostrophes are dropped; one word -> its first four
 * letters; two words -> two letters of each; three words -> one letter of the first
 * two and two of the last; four or more -> the first letter of the first four.
 * A shorter result is padded with X. (The official list resolves collisions by
 * hand; this rule does not.)
 */
export function alphaCode(commonName: string): string {
  const words = commonName
    .replace(/['’`.]/g, '')
    .split(/[\s-]+/)
    .map((w) => w.replace(/[^\p{L}]/gu, ''))
    .filter((w) => w.length > 0);
  let code: string;
  if (words.length === 1) code = words[0].slice(0, 4);
  else if (words.length === 2) code = words[0].slice(0, 2) + words[1].slice(0, 2);
  else if (words.length === 3) code = words[0].slice(0, 1) + words[1].slice(0, 1) + words[2].slice(0, 2);
  else code = words.slice(0, 4).map((w) => w.slice(0, 1)).join('');
  return stripAccents(code).toUpperCase().padEnd(4, 'X');
}

/** The 6-letter code of a scientific name: three letters of the genus and three of the species epithet. */
export function alpha6Code(scientificName: string): string {
  const [genus = '', epithet = ''] = scientificName.trim().split(/\s+/);
  return stripAccents(genus.slice(0, 3) + epithet.slice(0, 3))
    .toUpperCase()
    .padEnd(6, 'X');
}

function stripAccents(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '');
}

/** 32-bit FNV-1a of a string (UTF-16 code units); small, fast, and stable across runs. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A stable `#rrggbb` colour for a species: hue from a hash of the scientific name, mid saturation and lightness. */
export function speciesColor(scientificName: string): string {
  const hash = fnv1a(scientificName.trim().toLowerCase());
  const hue = hash % 360;
  const saturation = 0.55 + ((hash >>> 9) % 20) / 100;
  const lightness = 0.4 + ((hash >>> 17) % 15) / 100;
  return hslToHex(hue, saturation, lightness);
}

function hslToHex(h: number, s: number, l: number): string {
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number): string => {
    const k = (n + h / 30) % 12;
    const value = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(value * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}
