/**
 * CSV results, `<base>.BirdNET.results.csv`, comma-separated with a header. Variants seen:
 * - `Start (s),End (s),Scientific name,Common name,Confidence[,File]` (v1.3+ / v2.x)
 * - `Start (s),End (s),Scientific name,;Common name,Confidence` (2022-03-02: stray `;`)
 * - the `--rtype r` table `filepath,start,end,scientific_name,common_name,confidence,lat,lon,...`
 *   that one version saved under this suffix; its rows are sorted by the string form of the
 *   start time, which does not matter here (rows are kept in file order).
 * Quoted fields follow RFC 4180, so a localised name like `"Grey Heron, Common"` stays whole.
 */
import { tableFormat, type TableSpec } from './table.js';

const CSV: TableSpec = {
  what: 'CSV results',
  delimiterName: 'comma',
  delimiter: ',',
  aliases: {
    start: ['Start (s)', 'start'],
    end: ['End (s)', 'end'],
    scientificName: ['Scientific name', 'scientific_name'],
    commonName: ['Common name', 'common_name'],
    confidence: ['Confidence'],
    file: ['File', 'filepath'],
  },
  required: ['start', 'end', 'confidence'],
  requiredOneOf: [['scientificName', 'commonName']],
};

export const { parse, createParser } = tableFormat('csv', CSV);
