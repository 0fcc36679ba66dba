import { copyFileSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { realFixture } from './paths.js';

/** The real analyzer output the end-to-end tests drop: a 10 s, 16 kHz WAV and its result table. */
export const REAL_RECORDING_DIR = realFixture('birdnet-analyzer_ea464544_2022-03-02');

/**
 * Drops the real recording into `inputDir` as `<name>.wav` and `<name>.BirdNET.results.csv`.
 * Neither the name nor the WAV gives a time, so the agent takes the WAV's modification time
 * minus its duration: the mtime is set so the recording starts at 2025-06-01T10:00:00Z,
 * `minute` minutes later for each further recording (each its own soundscape).
 */
export function addRealRecording(inputDir: string, name = 'soundscape', minute = 0): { wav: string; results: string } {
  const wav = path.join(inputDir, `${name}.wav`);
  copyFileSync(path.join(REAL_RECORDING_DIR, 'soundscape.wav'), wav);
  const end = new Date(Date.parse('2025-06-01T10:00:10.000Z') + minute * 60_000);
  utimesSync(wav, end, end);
  const results = path.join(inputDir, `${name}.BirdNET.results.csv`);
  copyFileSync(path.join(REAL_RECORDING_DIR, 'soundscape.BirdNET.results.csv'), results);
  return { wav, results };
}
