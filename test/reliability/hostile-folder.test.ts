import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServiceClient, type ServiceClient } from '../../src/api/index.js';
import type { RunningEmulator } from '@station-agent/emulator';
import { TOKEN } from '../helpers/agent-world.js';
import { buildCli, parseJson, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';
import { logRecords, startAgentProcess, type AgentProcess } from './support/agent-process.js';
import { wavBytes, writeAtomically } from './support/backlog.js';
import { serviceHoldings, waiting, withQueue, queueCounts } from './support/exactly-once.js';
import { until } from '../helpers/until.js';
import { startService, writeAgentConfig } from './support/world.js';

/**
 * A hostile input folder, with `station-agent run` as a process against the local
 * service: symlinks (a loop, links out of the folder), FIFOs and a folder named like
 * audio. The agent takes each regular file inside its folder once, refuses the rest
 * with a warning naming it, never blocks, and goes on with the good files. A data
 * folder inside the input folder is refused before anything starts.
 */
const { dir: root, cleanup } = tempDir('reliability-hostile-');
let service: RunningEmulator;
let client: ServiceClient;
let agent: AgentProcess | undefined;
let counter = 0;

beforeAll(async () => {
  await buildCli();
}, 180_000);

// A service of its own per test: what it holds is what that test's agent sent.
beforeEach(async () => {
  service = await startService();
  client = createServiceClient({ baseUrl: service.url, token: TOKEN });
});

afterEach(async () => {
  await agent?.kill('SIGKILL');
  agent = undefined;
  await client?.close();
  await service?.close();
});

afterAll(() => cleanup());

/** A fresh station: its own folders and config. */
function station(extra: Record<string, unknown> = {}) {
  const dir = path.join(root, `station-${++counter}`);
  const inputDir = path.join(dir, 'input');
  const dataDir = path.join(dir, 'data');
  mkdirSync(inputDir, { recursive: true });
  const configPath = writeAgentConfig(path.join(dir, 'config.json'), { baseUrl: service.url, inputDir, dataDir, extra });
  return { dir, inputDir, dataDir, configPath };
}

/** A Raven selection table (the BirdNET-Analyzer's `.BirdNET.selection.table.txt`) with one row per [start, common name]. */
function selectionTable(rows: [start: number, commonName: string][]): string {
  const header = 'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tCommon Name\tSpecies Code\tConfidence';
  return [header, ...rows.map(([start, name], i) => `${i + 1}\tSpectrogram 1\t1\t${start}\t${start + 3}\t150\t15000\t${name}\tx\t0.9`)].join('\n') + '\n';
}

function analyzerpiJson(wavName: string, timestamp: string, commonName: string): string {
  return JSON.stringify({ file_name: `${wavName}.json`, timestamp, delay: 15, detections: [{ start: 0.0, common_name: commonName, confidence: 0.91 }] });
}

const mkfifo = (file: string) => execFileSync('mkfifo', [file]);

/** Waits until the service holds `detections` detections and the agent's queue has nothing left to send. */
async function drained(dataDir: string, detections: number, extra: () => boolean = () => true): Promise<void> {
  await until(
    `${detections} detections on the service, nothing waiting`,
    async () => {
      const held = await serviceHoldings(client);
      if (held.detections.length < detections || !extra()) return undefined;
      const w = withQueue(dataDir, (q) => waiting(queueCounts(q)));
      return w.detections === 0 && w.recordings === 0 ? true : undefined;
    },
    60_000,
    () => agent!.lines.slice(-30).join('\n'),
  );
}

const warnings = () => logRecords(agent!.lines).filter((r) => r.level === 'warn').map((r) => String(r.msg));
const warned = (re: RegExp) => warnings().some((m) => re.test(m));

describe('hostile input folder (station-agent run as a process)', () => {
  it('follows no symlink: a loop uploads a file once, links out of the folder are refused, a linked input.dir itself works', async () => {
    const s = station({ input: { format: 'results' } });
    // input.dir is a link to the analyzer's real folder (as analyzerpi setups do).
    const real = path.join(s.dir, 'analyzer-output');
    const outside = path.join(s.dir, 'outside');
    mkdirSync(real);
    mkdirSync(outside);
    execFileSync('rm', ['-r', s.inputDir]);
    symlinkSync(real, s.inputDir);

    // A result without audio: followed through the loop, it would be taken again under each
    // path it is seen under (loop/, loop/loop/, ...), which ingested_files would show.
    writeAtomically(path.join(real, 'plain_20250601_050000.BirdNET.selection.table.txt'), selectionTable([[0, 'Eurasian Blackbird']]));
    writeAtomically(path.join(real, 'good_20250601_060000.wav'), wavBytes(6));
    writeAtomically(path.join(real, 'good_20250601_060000.BirdNET.selection.table.txt'), selectionTable([[0, 'Great Tit'], [3, 'Eurasian Magpie']]));
    // Its own result, but its audio is a link to a WAV outside the folder.
    writeFileSync(path.join(outside, 'private.wav'), wavBytes(6));
    symlinkSync(path.join(outside, 'private.wav'), path.join(real, 'away_20250601_061000.wav'));
    writeAtomically(path.join(real, 'away_20250601_061000.BirdNET.selection.table.txt'), selectionTable([[0, 'European Robin']]));
    // A result file that is a link to one outside.
    writeFileSync(path.join(outside, 'private.BirdNET.selection.table.txt'), selectionTable([[0, 'Common Chaffinch']]));
    symlinkSync(path.join(outside, 'private.BirdNET.selection.table.txt'), path.join(real, 'linked_20250601_062000.BirdNET.selection.table.txt'));
    symlinkSync('.', path.join(real, 'loop'));

    agent = startAgentProcess(s.configPath);
    await drained(s.dataDir, 4, () => warned(/skipped .*\/loop: a symbolic link/) && warned(/linked_20250601_062000.*a symbolic link/));

    const held = await serviceHoldings(client);
    expect(held.detections.map((d) => d.species.scientificName).sort()).toEqual(['Erithacus rubecula', 'Parus major', 'Pica pica', 'Turdus merula']);
    expect(held.soundscapes).toHaveLength(1);
    const robin = held.detections.find((d) => d.species.scientificName === 'Erithacus rubecula')!;
    expect(robin.soundscape ?? null).toBeNull();
    expect(warnings().some((m) => m.includes('away_20250601_061000.wav') && /symbolic link/.test(m))).toBe(true);
    // Every file was taken under its path through the configured (linked) input.dir.
    const files = withQueue(s.dataDir, (q) => q.db.prepare('SELECT path FROM ingested_files').pluck().all() as string[]);
    expect(files.sort()).toEqual(
      ['away_20250601_061000', 'good_20250601_060000', 'plain_20250601_050000'].map((b) => path.join(s.inputDir, `${b}.BirdNET.selection.table.txt`)),
    );
  }, 120_000);

  it('results layout: FIFOs and a folder named like audio are skipped with a warning, never block, and the good files are uploaded', async () => {
    const s = station({ input: { format: 'results' } });
    const inDir = s.inputDir;
    writeAtomically(path.join(inDir, 'good_20250601_060000.wav'), wavBytes(6));
    writeAtomically(path.join(inDir, 'good_20250601_060000.BirdNET.selection.table.txt'), selectionTable([[0, 'Great Tit']]));
    mkfifo(path.join(inDir, 'pipe_20250601_061000.wav'));
    writeAtomically(path.join(inDir, 'pipe_20250601_061000.BirdNET.selection.table.txt'), selectionTable([[0, 'European Robin']]));
    mkfifo(path.join(inDir, 'piped_20250601_062000.BirdNET.selection.table.txt'));
    mkdirSync(path.join(inDir, 'folder_20250601_063000.wav'));
    writeAtomically(path.join(inDir, 'folder_20250601_063000.BirdNET.selection.table.txt'), selectionTable([[0, 'Eurasian Magpie']]));

    agent = startAgentProcess(s.configPath);
    await drained(s.dataDir, 3, () => warned(/piped_20250601_062000.*FIFO/));
    const held = await serviceHoldings(client);
    expect(held.detections.map((d) => d.species.scientificName).sort()).toEqual(['Erithacus rubecula', 'Parus major', 'Pica pica']);
    expect(held.soundscapes).toHaveLength(1);
    expect(warned(/pipe_20250601_061000\.wav: not a regular file \(a FIFO/)).toBe(true);
    expect(warned(/folder_20250601_063000\.wav: not a regular file \(a folder\)/)).toBe(true);

    // A backfill of the same folder does not hang either, and names the FIFO.
    const dry = await runCli(['ingest', '--dry-run', '--config', s.configPath, inDir], { timeoutMs: 30_000 });
    expect(dry.code, dry.stderr).toBe(0);
    expect(`${dry.stdout}${dry.stderr}`).toMatch(/piped_20250601_062000\.BirdNET\.selection\.table\.txt: a FIFO/);
  }, 120_000);

  it('analyzerpi layout: a FIFO named like a WAV is skipped with a warning, never blocks, and its JSON and the other recordings go on', async () => {
    const s = station({ input: { format: 'analyzerpi' } });
    const inDir = s.inputDir;
    const pipe = '2025-06-01-birdnet-06:10:00.wav';
    mkfifo(path.join(inDir, pipe));
    const good = '2025-06-01-birdnet-06:00:00.wav';
    writeAtomically(path.join(inDir, good), wavBytes(6));
    writeAtomically(path.join(inDir, `${good}.json`), analyzerpiJson(good, '2025-06-01T06:00:00+02:00', 'Great Tit'));
    writeAtomically(path.join(inDir, `${pipe}.json`), analyzerpiJson(pipe, '2025-06-01T06:10:00+02:00', 'European Robin'));

    agent = startAgentProcess(s.configPath);
    await drained(s.dataDir, 2);
    const held = await serviceHoldings(client);
    expect(held.detections.map((d) => d.species.scientificName).sort()).toEqual(['Erithacus rubecula', 'Parus major']);
    expect(held.soundscapes).toHaveLength(1);
    expect(warned(new RegExp(`${pipe.replace(/\./g, '\\.')}: a FIFO \\(named pipe\\), not a regular file`))).toBe(true);

    const dry = await runCli(['ingest', '--dry-run', '--config', s.configPath, inDir], { timeoutMs: 30_000 });
    expect(dry.code, dry.stderr).toBe(0);
  }, 120_000);
});

describe('dataDir and input.dir must be apart', () => {
  it('config validate and run exit 3 naming both keys, doctor fails its config check', async () => {
    const s = station();
    const inside = writeAgentConfig(path.join(s.dir, 'inside.json'), {
      baseUrl: service.url,
      inputDir: s.inputDir,
      // Through `..`, so only a resolved comparison sees it.
      dataDir: path.join(s.dir, 'data', '..', 'input', 'agent'),
    });
    const validate = await runCli(['config', 'validate', '--config', inside]);
    expect(validate.code).toBe(3);
    expect(validate.stderr).toMatch(/dataDir must not be inside input\.dir: dataDir .* and input\.dir /);

    const run = await runCli(['run', '--config', inside], { timeoutMs: 30_000 });
    expect(run.code).toBe(3);
    expect(run.stdout + run.stderr).toMatch(/dataDir must not be inside input\.dir/);

    const doctor = parseJson(await runCli(['doctor', '--offline', '--json', '--config', inside], { timeoutMs: 30_000 }));
    expect(doctor.ok).toBe(false);
    expect(doctor.checks).toEqual([expect.objectContaining({ id: 'config', status: 'fail', detail: expect.stringMatching(/dataDir must not be inside input\.dir/) })]);
  }, 120_000);
});
