/**
 * Legacy semicolon CSV of early analyzer versions, named after the audio file (`foo.wav.csv`):
 * `Start (s);End (s);Scientific name;Common name;Confidence`.
 */
import type { ParseContext, ParsedResultFile } from '../types.js';
import { parseTable, TableParser, type TableSpec } from './table.js';

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

export function parse(text: string, ctx: ParseContext): ParsedResultFile {
  return { format: 'legacy-csv', ...parseTable(text, ctx, LEGACY) };
}

/** The same parse, fed line by line (streaming ingest). */
export function createParser(ctx: ParseContext): TableParser {
  return new TableParser(ctx, LEGACY);
}
