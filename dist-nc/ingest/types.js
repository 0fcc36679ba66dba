export const RESULT_FORMATS = [
    'raven',
    'csv',
    'audacity',
    'kaleidoscope',
    'legacy-csv',
    'sidecar',
    'analyzerpi-json',
];
