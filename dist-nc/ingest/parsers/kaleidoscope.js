import { tableFormat } from './table.js';
const KALEIDOSCOPE = {
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
