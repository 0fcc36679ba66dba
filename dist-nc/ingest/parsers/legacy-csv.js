import { tableFormat } from './table.js';
const LEGACY = {
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
