import { spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { onNewConnection, postDetection, uploadSoundscape, type BaselineTarget } from './baseline-uploaders.js';
import type { WorkDetection, WorkRecording } from './workload.js';

/**
 * The analyzerpi distribution's inline uploader, as a baseline for CPU per recording
 * (`node bench/dist/bench/src/analyzerpi-uploader.js '<json>'`): for each recording, in
 * order, encode the WAV to FLAC with native libFLAC (the `flac` program), post it, post
 * its detections, delete the FLAC. Sequential, nothing durable, no retries: what fails
 * is lost. Prints `ready` once loaded, starts on a line on stdin (so that its start-up
 * is not counted, as the uploader lives inside the analyzer), prints `done <n>`.
 */
export interface AnalyzerpiUploaderArgs {
  url: string;
  token: string;
  /** WAV + `<base>.BirdNET.results.csv` pairs, by base path (no extension). */
  recordings: string[];
  workDir: string;
}

function encode(wav: string, flac: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('flac', ['--silent', '--force', '-5', '-o', flac, wav], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`flac exited ${code} on ${wav}`))));
  });
}

/** The bench's own CSV (result-files.ts), read as the analyzer hands its rows over in memory. */
function detectionsOf(csv: string, startIso: string): WorkDetection[] {
  const start = Date.parse(startIso);
  return readFileSync(csv, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const [s, e, scientificName, commonName, confidence] = line.split(',');
      return { timestamp: new Date(start + Number(s) * 1000).toISOString(), startS: Number(s), endS: Number(e), scientificName, commonName, confidence: Number(confidence) };
    });
}

/** `20240501_060000` -> ISO (UTC). */
function startOf(base: string): string {
  const m = /(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})$/.exec(base);
  if (!m) throw new Error(`no start time in ${base}`);
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.000Z`;
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2]) as AnalyzerpiUploaderArgs;
  process.stdout.write('ready\n');
  const lines = createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => lines.once('line', () => resolve()));
  lines.close();
  let uploaded = 0;
  for (const [index, base] of args.recordings.entries()) {
    const flac = path.join(args.workDir, `${path.basename(base)}.flac`);
    await encode(`${base}.wav`, flac);
    const timestamp = startOf(base);
    const target: BaselineTarget = { url: args.url, token: args.token, flac };
    const recording: WorkRecording = { index, timestamp, detections: detectionsOf(`${base}.BirdNET.results.csv`, timestamp) };
    // A new connection per request, as a plain HTTP call per post does.
    const { size } = statSync(flac);
    const id = await onNewConnection((d) => uploadSoundscape(d, target, recording, size));
    for (const det of recording.detections) await onNewConnection((d) => postDetection(d, target, det, id));
    rmSync(flac);
    uploaded++;
  }
  process.stdout.write(`done ${uploaded}\n`);
  // Stay until told to go, so that the parent reads this process's CPU time while it lives.
  process.stdin.resume();
}

main().catch((err: unknown) => {
  process.stderr.write(`analyzerpi uploader failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
