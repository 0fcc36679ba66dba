/**
 * Raven selection table, `<base>.BirdNET.selection.table.txt`: tab-separated with a header.
 * Column order changed between analyzer versions (Species Code before or after Common Name;
 * Begin Path and File Offset at the end or Begin Path early; a Scientific Name column only in
 * newer versions), so columns are mapped by name. Tables up to v2.4 carry only the common name
 * (localised with `--locale`): the scientific name comes from the labels.
 *
 * A table whose only row is the dummy `nocall` row (species code and common name `nocall`,
 * written so that tables can be combined) has zero detections.
 */
import { tableFormat, type TableSpec } from './table.js';

const RAVEN: TableSpec = {
  what: 'Raven selection table',
  delimiterName: 'tab',
  delimiter: '\t',
  aliases: {
    start: ['Begin Time (s)'],
    end: ['End Time (s)'],
    fileOffset: ['File Offset (s)'],
    commonName: ['Common Name'],
    scientificName: ['Scientific Name'],
    speciesCode: ['Species Code'],
    confidence: ['Confidence'],
    file: ['Begin Path', 'Begin File'],
  },
  required: ['start', 'end', 'confidence'],
  requiredOneOf: [['commonName', 'scientificName']],
};

export const { parse, createParser } = tableFormat('raven', RAVEN, { skipNocall: true });
