import { tableFormat } from './table.js';
const CSV = {
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
