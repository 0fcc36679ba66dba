/**
 * Kaleidoscope CSV, `<base>.BirdNET.results.kaleidoscope.csv`:
 * `INDIR,FOLDER,IN FILE,OFFSET,DURATION,scientific_name,common_name,confidence,lat,lon,week,overlap,sensitivity`.
 * OFFSET is the start in seconds and DURATION the length, so end = OFFSET + DURATION.
 */
import { tableFormat, type TableSpec } from './table.js';

const KALEIDOSCOPE: TableSpec = {
  what: 'Kaleidoscope CSV',
  delimiterName: 'comma',
  delimiter: ',',
  aliases: {
    start: ['OFFSET'],
    duration: ['DURATION'],
    scientificName: ['scientific_name'],
    commonName: ['common_name'],
    confidence: ['confidence'],
    file: ['IN FILE'],
  },
  required: ['start', 'duration', 'confidence'],
  requiredOneOf: [['scientificName', 'commonName']],
};

export const { parse, createParser } = tableFormat('kaleidoscope', KALEIDOSCOPE);
