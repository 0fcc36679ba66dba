/**
 * Kaleidoscope CSV, `<base>.BirdNET.results.kaleidoscope.csv`:
 * `INDIR,FOLDER,IN FILE,OFFSET,DURATION,scientific_name,common_name,confidence,lat,lon,week,overlap,sensitivity`.
 * OFFSET is the start in seconds and DURATION the length, so end = OFFSET + DURATION.
 */
import type { ParseContext, ParsedResultFile } from '../types.js';
import { parseTable, TableParser, type TableSpec } from './table.js';

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

export function parse(text: string, ctx: ParseContext): ParsedResultFile {
  return { format: 'kaleidoscope', ...parseTable(text, ctx, KALEIDOSCOPE) };
}

/** The same parse, fed line by line (streaming ingest). */
export function createParser(ctx: ParseContext): TableParser {
  return new TableParser(ctx, KALEIDOSCOPE);
}
