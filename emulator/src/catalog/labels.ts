import { readFileSync } from 'node:fs';
import { CLASSIFICATIONS, type Classification } from '../../../src/wire/types.js';
import type { NewSpecies } from '../store/index.js';
import { inferClassification } from './classification.js';
import { alpha6Code, alphaCode, speciesColor } from './codes.js';
import { EmulatorOptionError } from '../errors.js';

/**
 * Labels that the analyzer reports but that are not species (the service has no
 * species record for them, so a detection of one is answered `species must exist`).
 */
const NOT_SPECIES = new Set([
  'Dog',
  'Engine',
  'Environmental',
  'Fireworks',
  'Gun',
  'Human non-vocal',
  'Human vocal',
  'Human whistle',
  'Noise',
  'Power tools',
  'Siren',
]);

export interface LabelEntry {
  scientificName: string;
  commonName: string;
  /** From an optional third field (`Genus species_Common name_bat`), else undefined. */
  classification?: Classification;
}

/**
 * Parses an analyzer labels file: one `Scientific name_Common name` per line. A
 * byte-order mark, CRLF line ends, blank lines and `#` comment lines are tolerated.
 * The emulator's own catalog may add a third field with the classification.
 * Labels that are not species (noise classes, single words) are skipped.
 */
export function parseLabels(text: string, source: string): LabelEntry[] {
  const entries: LabelEntry[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const fields = line.split('_').map((f) => f.trim());
    const [scientificName = '', commonName = '', third] = fields;
    if (scientificName === '' || commonName === '' || fields.length > 3) {
      throw new EmulatorOptionError(
        `${source}:${index + 1}: expected "Scientific name_Common name", got ${JSON.stringify(line)}`,
      );
    }
    let classification: Classification | undefined;
    if (third !== undefined) {
      if (!(CLASSIFICATIONS as readonly string[]).includes(third)) {
        throw new EmulatorOptionError(
          `${source}:${index + 1}: unknown classification ${JSON.stringify(third)} (one of ${CLASSIFICATIONS.join(', ')})`,
        );
      }
      classification = third as Classification;
    }
    if (NOT_SPECIES.has(scientificName) || !/\s/.test(scientificName)) return;
    entries.push({ scientificName: scientificName.replace(/\s+/g, ' '), commonName, classification });
  });
  return entries;
}

/** The species records of a labels file, with derived classification, colour and codes. */
export function catalogFromLabels(entries: readonly LabelEntry[]): NewSpecies[] {
  return entries.map((entry) => {
    const classification = entry.classification ?? inferClassification(entry.scientificName);
    const avian = classification === 'avian';
    return {
      scientificName: entry.scientificName,
      commonName: entry.commonName,
      classification,
      color: speciesColor(entry.scientificName),
      alpha: avian ? alphaCode(entry.commonName) : null,
      alpha6: avian ? alpha6Code(entry.scientificName) : null,
    };
  });
}

export function readLabelsFile(file: string): NewSpecies[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new EmulatorOptionError(`cannot read labels file ${file}: ${(err as Error).message}`, { cause: err });
  }
  return catalogFromLabels(parseLabels(text, file));
}
