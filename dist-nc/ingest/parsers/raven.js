import { tableFormat } from './table.js';
const RAVEN = {
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
