/**
 * Legacy semicolon CSV of early analyzer versions, named after the audio file (`foo.wav.csv`):
 * `Start (s);End (s);Scientific name;Common name;Confidence`.
 */
import { tableFormat, type TableSpec } from './table.js';

const LEGACY: TableSpec = {
  what: 'legacy results',
  delimiterName: 'semicolon',
  delimiter: ';',
  aliases: {
    start: ['Start (s)'],
    end: ['End (s)'],
    scientificName: ['Scientific name'],
    commonName: ['Common name'],
    confidence: ['Confidence'],
  },
  required: ['start', 'end', 'confidence'],
  requiredOneOf: [['scientificName', 'commonName']],
};

export const { parse, createParser } = tableFormat('legacy-csv', LEGACY);
