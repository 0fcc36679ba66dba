import { realFixture } from '../../helpers/paths.js';

/**
 * The real analyzer WAVs every FLAC engine is checked against: 48 kHz mono from the
 * analyzer, a 30 s analyzerpi extract, and one with RIFF metadata chunks.
 */
export const REAL_WAVS = [
  realFixture('birdnet-analyzer_ea464544_2022-03-02', 'soundscape.wav'),
  realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav'),
  realFixture('opensoundscape_8b582152', 'metadata.wav'),
];
