import { readFileSync } from 'node:fs';
import { Labels } from '../../src/ingest/labels.js';
import { realFixture } from '../helpers/paths.js';

export const EN_LABELS = realFixture('birdnet-analyzer_labels_V2.4', 'BirdNET_GLOBAL_6K_V2.4_Labels.txt');
export const DE_LABELS = realFixture('birdnet-analyzer_labels_V2.4', 'BirdNET_GLOBAL_6K_V2.4_Labels_de.txt');

let en: Labels | undefined;
let enDe: Labels | undefined;

/** The real English V2.4 labels (read once per test file). */
export function englishLabels(): Labels {
  en ??= Labels.fromText({ name: EN_LABELS, text: readFileSync(EN_LABELS, 'utf8') });
  return en;
}

/** The real English labels as primary plus the German ones as localised file. */
export function englishWithGermanLabels(): Labels {
  enDe ??= Labels.fromText(
    { name: EN_LABELS, text: readFileSync(EN_LABELS, 'utf8') },
    { name: DE_LABELS, text: readFileSync(DE_LABELS, 'utf8') },
  );
  return enDe;
}

/** Reads a real fixture as UTF-8 text. */
export function realText(...parts: string[]): string {
  return readFileSync(realFixture(...parts), 'utf8');
}
