import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { errorMessage } from '../../src/errors.js';
import { runBacklog } from './backlog.js';
import { runBandwidth } from './bandwidth.js';
import { runCpu } from './cpu.js';
import { runDelivery } from './delivery.js';
import { runDrain } from './drain.js';
import { runFlac } from './flac.js';
import { runIdle } from './idle.js';
import { runIngest } from './ingest.js';
import { runLatency } from './latency.js';
import { runNames } from './name-check.js';
import { machineInfo } from './machine.js';
import { parseBenchOptions, type BenchOptions, type Section } from './options.js';
import { REPO_ROOT } from './proc.js';
import { runQueueGrowth } from './queue-growth.js';
import { runQueueScale } from './queue-scale.js';
import { runWrites } from './recording-writes.js';
import { runSoak } from './soak.js';
import { renderTable, type Figure } from './report.js';

/** The version of the agent measured (the bench's own copy of src/version.ts would look beside bench/dist/). */
const VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * `npm run bench`: measures the agent on this machine and prints a table (figure,
 * measured, target, pass/fail), or with `--json` one JSON document. Progress goes
 * to standard error. Every figure of one run comes from the same machine in the
 * same minutes, so ratios (agent against its baselines) hold on a noisy machine.
 * Exits 1 when a section could not be measured, never because a target was missed.
 */
type SectionRunner = (options: BenchOptions, dir: string, log: (line: string) => void) => Promise<Figure[]>;

const RUNNERS: Record<Section, SectionRunner> = {
  drain: runDrain,
  ingest: runIngest,
  latency: runLatency,
  flac: runFlac,
  cpu: runCpu,
  idle: runIdle,
  queue: runQueueScale,
  bandwidth: runBandwidth,
  backlog: runBacklog,
  writes: runWrites,
  names: runNames,
  delivery: runDelivery,
  growth: runQueueGrowth,
  soak: runSoak,
};

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseBenchOptions(process.argv.slice(2));
  } catch (err) {
    const code = (err as { exitCode?: number }).exitCode;
    return code === 0 ? 0 : 2;
  }
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'station-agent-bench-'));
  const log = (line: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
  const started = Date.now();
  const machine = machineInfo(tmp);
  log(`machine: ${machine.nproc} CPUs (${machine.cpuModel}), ${machine.memoryMb} MB, node ${machine.node}, fsync ${machine.fsyncMs} ms, load ${machine.loadAverage}; temporary folder ${tmp}`);
  const figures: Figure[] = [];
  const errors: { section: Section; message: string }[] = [];
  try {
    for (const section of options.sections) {
      const t = Date.now();
      try {
        figures.push(...(await RUNNERS[section](options, path.join(tmp, section), log)));
      } catch (err) {
        errors.push({ section, message: errorMessage(err) });
        log(`${section}: not measured: ${errorMessage(err)}`);
      }
      log(`${section}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
    }
  } finally {
    if (!options.keep) rmSync(tmp, { recursive: true, force: true });
  }
  const command = ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' ');
  const doc = {
    tool: 'station-agent bench',
    version: VERSION,
    command,
    startedAt: new Date(started).toISOString(),
    durationSec: Math.round((Date.now() - started) / 100) / 10,
    machine,
    options: { ...options, json: undefined, save: undefined },
    figures,
    errors,
  };
  if (options.save) writeFileSync(options.save, `${JSON.stringify(doc, null, 2)}\n`);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  } else {
    const lines = [
      `station-agent ${VERSION} bench: ${command}`,
      `machine: nproc ${machine.nproc}, ${machine.cpuModel}, ${machine.memoryMb} MB RAM, node ${machine.node}, ${machine.platform}, fsync ${machine.fsyncMs} ms, load average ${machine.loadAverage}`,
      '',
      renderTable(figures),
      ...errors.map((e) => `\n${e.section}: NOT MEASURED: ${e.message}`),
      '',
      `took ${((Date.now() - started) / 1000).toFixed(0)} s`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return errors.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${errorMessage(err)}\n`);
    process.exit(1);
  },
);
