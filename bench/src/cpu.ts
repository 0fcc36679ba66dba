import { spawnSync } from 'node:child_process';
import { unitEnvironment } from './unit-options.js';
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findFlacProgram } from '../../src/audio/flac-cli.js';
import { loadNativeFlac } from '../../src/audio/flac-native.js';
import { writeAgentConfig } from './agent-config.js';
import { benchWav } from './audio.js';
import { createPiBox, type PiBox } from './cgroup.js';
import { summariseProfile } from './cpu-profile.js';
import type { BenchOptions } from './options.js';
import { CLI_MAIN, CLI_MODULES_MAIN, cpuSeconds, formatMemory, memoryDetail, MemorySampler, procMemoryKb, REPO_ROOT, sleep, startNodeIn, startProcess, TURBOFAN_ON, type Child, type MemoryKb } from './proc.js';
import { figure, median, type Figure } from './report.js';
import { recordingBaseName, resultCsv } from './result-files.js';
import { BENCH_TOKEN, STATION } from './service-process.js';
import { startCountingService, type CountingService } from './stored-detections.js';
import { SOUNDSCAPE_SECONDS } from './workload.js';

/**
 * CPU per recording, the agent against the analyzerpi distribution's own uploader, side by
 * side in one run. Each runs in its own cgroup v1 box (cgroup.ts: a cpu quota of 0.1 of a
 * core, a cpuacct group whose `cpuacct.usage` is the figure, 256 MiB of memory), against
 * its own instance of the local service (in this process, outside both boxes), on the same
 * recordings (15 s, 48 kHz WAV + a result CSV of 2 detections each):
 * - the baseline, `bench/python/analyzerpi_uploader.py` under the system's Python 3 with
 *   Debian's python3-soundfile and python3-requests: per recording, FLAC into memory with
 *   libsndfile, a soundscape post and the detections' posts, each over a new connection,
 *   sequential, nothing durable. Counted from its `go` to its `done`: its start-up is not
 *   counted (it lives inside the analyzer, which loaded its modules long before);
 * - the agent, `station-agent run` (results mode, production defaults, `upload.flacEncoder`
 *   auto) in the systemd unit's environment with the compile cache that bin/station-agent
 *   turns on under it, everything counted: the box holds it from before
 *   `exec` (a shell that waits for a line, then execs node), so start-up, config sync, ingest,
 *   the durable queue, FLAC (in its process, or its `flac` children, in the box too) and the
 *   uploads are all in, until the service has stored the last detection. The recordings are
 *   dropped whole into its folder once it runs. The start counted is a station's usual one,
 *   a restart (a reboot, a power cut): the agent was started once before on the same config
 *   and queue, and that first start (the queue created, the config validated in a child
 *   process, both once per installation or config change) is a figure of its own.
 * Recordings per minute at 0.1 CPU: the recordings over the wall time of the same span. Beside
 * them, the FLAC each side sent per recording (the agent's from what the service stored): the
 * agent's level (`upload.flacCompressionLevel`, default 0) spends less CPU on larger files
 * than the uploader's libsndfile at libFLAC's level 5.
 */
const DETECTIONS_PER_RECORDING = 2;
const QUOTA_CORES = 0.1;
const MEMORY_LIMIT = 256 * 1024 * 1024;
const PYTHON = '/usr/bin/python3';
const BASELINE = path.join(REPO_ROOT, 'bench/python/analyzerpi_uploader.py');

export interface SideResult {
  cpuSec: number;
  wallSec: number;
  /** Memory at the largest VmRSS seen (sampled), VmHWM the kernel's peak. */
  peak: MemoryKb | null;
  detail: Record<string, unknown>;
}

/** The versions of the baseline's Python modules; throws a clear error naming the missing package. */
export function pythonBaseline(): string {
  const r = spawnSync(PYTHON, ['-c', 'import soundfile, requests; print(f"soundfile {soundfile.__version__} (libsndfile {soundfile.__libsndfile_version__}), requests {requests.__version__}")'], { encoding: 'utf8' });
  if (r.error) throw new Error(`${PYTHON} is not installed: the analyzerpi baseline needs it with python3-soundfile and python3-requests (apt-get install python3 python3-soundfile python3-requests)`);
  if (r.status !== 0) {
    throw new Error(`${PYTHON} lacks python3-soundfile or python3-requests, which the analyzerpi baseline needs (apt-get install python3-soundfile python3-requests): ${r.stderr.trim().split('\n').pop()}`);
  }
  return r.stdout.trim();
}

export async function runCpu(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  const modules = pythonBaseline();
  // What upload.flacEncoder auto picks: libFLAC in-process where its addon is built, else the program, else libflacjs.
  const native = await loadNativeFlac().catch(() => undefined);
  // The daemon's encodes leave STREAMINFO's MD5 unset where the addon has patches/' switch.
  const flac = native ? `libFLAC ${native.version} in-process (flac-bindings${native.md5Switch ? ', STREAMINFO without MD5' : ''})` : ((await findFlacProgram()) ?? 'libflacjs (no flac program)');
  const n = options.cpuRecordings;
  const wav = benchWav(SOUNDSCAPE_SECONDS);
  const startMs = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;
  const recordings = Array.from({ length: n }, (_, i) => {
    const ms = startMs + i * SOUNDSCAPE_SECONDS * 1000;
    const base = recordingBaseName(ms);
    return { base, csv: resultCsv(base, DETECTIONS_PER_RECORDING, i), timestamp: `${new Date(ms).toISOString().slice(0, 19)}+00:00` };
  });
  const services = await Promise.all([startCountingService(), startCountingService()]);
  const boxes = [createPiBox('station-agent-bench-cpu-agent', QUOTA_CORES, MEMORY_LIMIT), createPiBox('station-agent-bench-cpu-baseline', QUOTA_CORES, MEMORY_LIMIT)];
  const limits = boxes[0] && boxes[1] ? `${QUOTA_CORES} CPU, 256 MiB` : 'no cgroup (v1 not writable): no quota';
  const profiled = options.cpuProfile ? ', node --cpu-prof' : '';
  let agent: SideResult;
  let baseline: SideResult;
  let restarts: Figure[];
  try {
    [agent, baseline] = await Promise.all([
      runAgent({ dir: path.join(dir, 'agent'), service: services[0], box: boxes[0], recordings, wav, profileDir: options.cpuProfile }),
      runBaseline({ dir: path.join(dir, 'baseline'), service: services[1], box: boxes[1], recordings, wav }),
    ]);
    // As many rounds as recordings, at most 5; the memory read after the idle section's settle.
    restarts = await restartForms(boxes[0], services[0].url, path.join(dir, 'restarts'), Math.min(5, n), options.settleSec * 1000);
    log(`cpu: the restart by form: ${restarts.map((f) => `${f.name.split(': ').slice(1).join(': ')} ${Number(f.value).toFixed(1)} ${f.unit}`).join('; ')}`);
  } finally {
    await Promise.all(services.map((s) => s.close()));
    for (const b of boxes) b?.remove();
  }
  if (options.cpuProfile) {
    // The node process's CPU per recording, split by the shares of the main thread's profile.
    const nodeMs = (Number(agent.detail.nodeProcessCpuSec) / n) * 1000;
    const flacMs = (Number(agent.detail.flacChildrenCpuSec) / n) * 1000;
    const summary = summariseProfile(options.cpuProfile, path.join(REPO_ROOT, 'dist'));
    const rows = Object.entries(summary.shares).map(([bucket, share]) => ({ bucket, msPerRecording: share * nodeMs, share }));
    log(`cpu profile ${summary.file}: node process ${nodeMs.toFixed(1)} ms per recording, flac children ${flacMs.toFixed(1)} ms; the node process by the main thread's busy samples:`);
    for (const r of rows) log(`  ${r.msPerRecording.toFixed(1).padStart(6)} ms ${(100 * r.share).toFixed(1).padStart(5)} %  ${r.bucket}`);
    for (const f of summary.topFunctions.slice(0, 10)) log(`  function ${(100 * f.share).toFixed(1).padStart(5)} %  ${f.fn}`);
    agent.detail.profile = { file: summary.file, nodeMsPerRecording: nodeMs, flacMsPerRecording: flacMs, buckets: rows, topFunctions: summary.topFunctions };
  }
  const agentPer = agent.cpuSec / n;
  const startupSec = Number(agent.detail.startupCpuSec);
  const pastStartupSec = agent.cpuSec - startupSec;
  const baselinePer = baseline.cpuSec / n;
  const perMinute = (s: SideResult) => (n / s.wallSec) * 60;
  log(
    `cpu: ${n} recordings, ${limits}: analyzerpi uploader (Python) ${baseline.cpuSec.toFixed(2)} CPU-s = ${(baselinePer * 1000).toFixed(1)} ms/recording, ${perMinute(baseline).toFixed(0)} recordings/min; ` +
      `agent ${agent.cpuSec.toFixed(2)} CPU-s = ${(agentPer * 1000).toFixed(1)} ms/recording (start-up ${Number(agent.detail.startupCpuSec).toFixed(2)} CPU-s; first start ${Number(agent.detail.firstStartCpuSec).toFixed(2)} CPU-s, apart), ${perMinute(agent).toFixed(0)} recordings/min; ratio ${(agentPer / baselinePer).toFixed(2)}` +
      `; peak agent ${agent.peak ? formatMemory(agent.peak) : '-'}, uploader ${baseline.peak ? formatMemory(baseline.peak) : '-'}`,
  );
  const common = { recordings: n, seconds: SOUNDSCAPE_SECONDS, detectionsPerRecording: DETECTIONS_PER_RECORDING, quotaCores: boxes[0] ? QUOTA_CORES : null, memoryLimitMb: boxes[0] ? 256 : null };
  const agentName = `agent (${limits}; a restart's start-up amortised, ingest, durable queue, FLAC by ${flac.split('\n')[0]}, upload, config sync${profiled})`;
  const baselineName = `analyzerpi uploader (${limits}; Python, ${modules})`;
  return [
    figure({ id: 'cpu.baselinePerRecording', name: `CPU per recording: ${baselineName}`, value: baselinePer * 1000, unit: 'ms', digits: 1, detail: { ...common, ...baseline.detail, peak: memoryDetail(baseline.peak) } }),
    figure({ id: 'cpu.agentPerRecording', name: `CPU per recording: ${agentName}`, value: agentPer * 1000, unit: 'ms', digits: 1, detail: { ...common, ...agent.detail, peak: memoryDetail(agent.peak) } }),
    figure({
      id: 'cpu.agentFirstStart',
      name: 'CPU of the agent\'s first start (a new queue, the config validated in a child: once per installation or config change)',
      value: Number(agent.detail.firstStartCpuSec) * 1000,
      unit: 'ms',
      digits: 0,
    }),
    figure({ id: 'cpu.agentVsBaseline', name: 'CPU per recording: agent / analyzerpi uploader', value: agentPer / baselinePer, unit: 'x', target: { op: '<=', value: 1.0 }, targetUnit: 'x uploader' }),
    // The counted figure split in two, so a run shows which half a gap is in: the restart
    // (node, the modules, the daemon's start), which the uploader's figure does not carry,
    // and the recordings themselves.
    figure({ id: 'cpu.agentStartup', name: 'CPU of the agent\'s restart, until it runs (in the agent\'s figure above, amortised)', value: startupSec * 1000, unit: 'ms', digits: 0 }),
    ...restarts,
    figure({ id: 'cpu.agentPastStartupPerRecording', name: 'CPU per recording: agent past its start-up', value: (pastStartupSec / n) * 1000, unit: 'ms', digits: 1 }),
    figure({ id: 'cpu.agentPastStartupVsBaseline', name: 'CPU per recording: agent past its start-up / analyzerpi uploader', value: pastStartupSec / n / baselinePer, unit: 'x' }),
    // What each side's FLAC costs the link: the agent's level (upload.flacCompressionLevel,
    // default 0) trades bytes for CPU; the uploader's libsndfile encodes at libFLAC's level 5.
    figure({ id: 'cpu.baselineFlacKb', name: 'FLAC sent per recording: analyzerpi uploader (libsndfile, libFLAC level 5)', value: Number(baseline.detail.flacBytes) / n / 1000, unit: 'KB', digits: 1 }),
    figure({ id: 'cpu.agentFlacKb', name: `FLAC sent per recording: agent (upload.flacCompressionLevel ${process.env.STATION_AGENT_UPLOAD_FLAC_COMPRESSION_LEVEL ?? 'default'})`, value: Number(agent.detail.flacBytes) / n / 1000, unit: 'KB', digits: 1 }),
    figure({ id: 'cpu.agentVsBaselineFlacBytes', name: 'FLAC sent per recording: agent / analyzerpi uploader', value: Number(agent.detail.flacBytes) / Number(baseline.detail.flacBytes), unit: 'x' }),
    figure({ id: 'cpu.baselinePerMinute', name: `recordings per minute at ${QUOTA_CORES} CPU: analyzerpi uploader`, value: perMinute(baseline), unit: 'recordings/min', digits: 0, detail: { wallSec: baseline.wallSec } }),
    figure({ id: 'cpu.agentPerMinute', name: `recordings per minute at ${QUOTA_CORES} CPU: agent (start-up included)`, value: perMinute(agent), unit: 'recordings/min', digits: 0, detail: { wallSec: agent.wallSec } }),
  ];
}

interface Side {
  dir: string;
  service: CountingService;
  box: PiBox | null;
  recordings: { base: string; csv: string; timestamp: string }[];
  wav: Buffer;
}

/** CPU of a side: its box's cpuacct.usage, or without cgroups the process's own and its waited-for children's. */
export function cpuOf(box: PiBox | null, child: Child): number {
  if (box) return box.cpuSeconds();
  const cpu = cpuSeconds(child.pid, true);
  if (cpu === null) throw new Error(`process ${child.pid} is gone: ${child.stderrTail().slice(-1000)}`);
  return cpu;
}

async function runAgent(side: Side & { profileDir: string | null }): Promise<SideResult> {
  const cfg = writeAgentConfig({ dir: side.dir, serviceUrl: side.service.url });
  // As a station runs it: bin/station-agent under systemd turns Node's compile cache on in
  // the state directory (STATE_DIRECTORY/compile-cache), which the first start below fills
  // and the counted restart reads, as a station's reboot after its first start does.
  const compileCache = path.join(side.dir, 'compile-cache');
  const env = { ...unitEnvironment(), NODE_COMPILE_CACHE: compileCache };
  // The station's first start, measured apart: a new queue (its migrations) and a config
  // never validated before (a child process validates it, validate-apart.ts). A station
  // pays it once after its installation or a config change; every later start (a reboot,
  // a power cut, a restart) opens the queue and reads the validated config from its cache.
  const first = startBoxed(side.box, env, [], cfg.configPath);
  let firstStartCpuSec: number;
  try {
    await first.agent.waitForLine(/station-agent running/, 600_000);
    firstStartCpuSec = cpuOf(side.box, first.agent) - first.cpu0;
  } finally {
    await first.agent.stop(30_000);
  }
  const nodeFlags = side.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${side.profileDir}`] : [];
  const { agent, cpu0 } = startBoxed(side.box, env, nodeFlags, cfg.configPath);
  const n = side.recordings.length;
  try {
    const t0 = performance.now();
    const memory = new MemorySampler(agent.pid);
    await agent.waitForLine(/station-agent running/, 600_000);
    const cpuReady = cpuOf(side.box, agent);
    for (const r of side.recordings) {
      dropWhole(cfg.inputDir, `${r.base}.wav`, side.wav);
      dropWhole(cfg.inputDir, `${r.base}.BirdNET.results.csv`, r.csv);
    }
    await side.service.untilStored(n * DETECTIONS_PER_RECORDING, 1_800_000, (missing) => `agent: ${missing} detections not stored within 30 min: ${agent.stderrTail().slice(-1000)}`);
    // The last soundscape was uploaded before its detections: all n are in.
    const wallSec = (performance.now() - t0) / 1000;
    const cpuSec = cpuOf(side.box, agent) - cpu0;
    const own = cpuSeconds(agent.pid, false);
    const withChildren = cpuSeconds(agent.pid, true);
    const peak = memory.stop();
    const soundscapes = side.service.soundscapes();
    if (soundscapes.count !== n) throw new Error(`agent: ${soundscapes.count} soundscapes stored, expected ${n}`);
    return {
      cpuSec,
      wallSec,
      peak,
      detail: {
        flacBytes: soundscapes.bytes,
        firstStartCpuSec,
        startupCpuSec: cpuReady - cpu0,
        // The node process (all its threads) and its exited children (the flac runs), from /proc/<pid>/stat.
        nodeProcessCpuSec: own,
        flacChildrenCpuSec: own !== null && withChildren !== null ? withChildren - own : null,
        cpuProfileDir: side.profileDir,
        environment: 'the systemd unit\'s (unit-options.ts), with the compile cache bin/station-agent sets under it',
        // The compile cache's entries after the run: none would mean the restart compiled every module again.
        compileCacheFiles: countFiles(compileCache),
      },
    };
  } finally {
    // SIGTERM: the agent stops cleanly (and writes its --cpu-prof profile).
    await agent.stop(30_000);
  }
}

/** Files under a folder, at any depth (Node keeps its compile cache in a subfolder per version); 0 when it is missing. */
function countFiles(dir: string): number {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
  } catch {
    return 0;
  }
}

/**
 * `station-agent run` in the box from its first instruction: a shell joins the box first
 * and waits for a line; `exec` then makes it the agent (same pid), so the box holds every
 * instruction the agent runs. Started at once (the line is written here).
 */
function startBoxed(box: PiBox | null, env: NodeJS.ProcessEnv, nodeFlags: string[], configPath: string, main = CLI_MAIN): { agent: Child; cpu0: number } {
  // The box's CPU before node starts (the shell that execs it is in the box already).
  const cpu0 = box?.cpuSeconds() ?? 0;
  // The systemd unit's environment, as a station runs the agent.
  const agent = startNodeIn([box], [...nodeFlags, main, 'run', '--config', configPath], { env });
  return { agent, cpu0 };
}

/** The start-up's forms on the new runtime (queue-scale.ts times the CLI's commands in the same ones). */
const RESTART_FORMS = [
  { id: 'bundle', name: 'the bundle, no compile cache', main: CLI_MAIN, cache: false },
  { id: 'bundleCached', name: 'the bundle with the compile cache (what ships)', main: CLI_MAIN, cache: true },
  { id: 'modulesCached', name: "tsc's modules with the compile cache", main: CLI_MODULES_MAIN, cache: true },
  { id: 'modules', name: "tsc's modules without it", main: CLI_MODULES_MAIN, cache: false },
  { id: 'bundleCachedTurbofan', name: 'the bundle with the compile cache, TurboFan on (no --no-opt)', main: CLI_MAIN, cache: true, turbofan: true },
] as const;


/**
 * The daemon's restart in each form, in the agent's box after its run: CPU from the first
 * instruction to "running", and VmRSS `settleMs` later, `rounds` times each, the forms
 * alternated so that a busy minute of the machine falls on all alike. Each form starts once
 * first (its queue, its config cache, its compile cache, with NODE_COMPILE_CACHE as
 * bin/station-agent sets it under systemd).
 */
async function restartForms(box: PiBox | null, serviceUrl: string, dir: string, rounds: number, settleMs: number): Promise<Figure[]> {
  const cfg = writeAgentConfig({ dir, serviceUrl });
  const forms = RESTART_FORMS.map((form) => ({
    ...form,
    env: { ...unitEnvironment(), ...(form.cache ? { NODE_COMPILE_CACHE: path.join(dir, `compile-cache-${form.id}`) } : {}) },
    cpuMs: [] as number[],
    rss: [] as MemoryKb[],
  }));
  const restart = async (form: (typeof forms)[number]): Promise<void> => {
    const { agent, cpu0 } = startBoxed(box, form.env, 'turbofan' in form ? ['-r', TURBOFAN_ON] : [], cfg.configPath, form.main);
    try {
      await agent.waitForLine(/station-agent running/, 600_000);
      form.cpuMs.push((cpuOf(box, agent) - cpu0) * 1000);
      await sleep(settleMs);
      const memory = procMemoryKb(agent.pid);
      if (memory) form.rss.push(memory);
    } finally {
      await agent.stop(30_000);
    }
  };
  // One start of each first (left out), unless a single round was asked for (the bench's own test).
  if (rounds > 1) for (const form of forms) await restart(form);
  for (const form of forms) [form.cpuMs, form.rss] = [[], []];
  for (let i = 0; i < rounds; i++) for (const form of forms) await restart(form);
  const mb = (kb: number) => kb / 1024;
  return forms.flatMap((form) => [
    figure({ id: `cpu.restart.${form.id}`, name: `CPU of the agent's restart, until it runs: ${form.name} (median of ${rounds}, alternated)`, value: median(form.cpuMs), unit: 'ms', digits: 0, detail: { runsMs: form.cpuMs } }),
    figure({
      id: `memory.restart.${form.id}`,
      name: `memory: the restarted agent's VmRSS ${settleMs / 1000} s after "running": ${form.name} (median; RssAnon ${mb(median(form.rss.map((m) => m.rssAnon))).toFixed(1)}, RssFile ${mb(median(form.rss.map((m) => m.rssFile))).toFixed(1)})`,
      value: mb(median(form.rss.map((m) => m.vmRss))),
      unit: 'MB',
      digits: 1,
      detail: { rssKb: form.rss },
    }),
  ]);
}

async function runBaseline(side: Side): Promise<SideResult> {
  mkdirSync(side.dir, { recursive: true });
  const recordings = side.recordings.map((r) => {
    const wav = path.join(side.dir, `${r.base}.wav`);
    const csv = path.join(side.dir, `${r.base}.BirdNET.results.csv`);
    writeFileSync(wav, side.wav);
    writeFileSync(csv, r.csv);
    return { wav, csv, timestamp: r.timestamp };
  });
  const args = { url: side.service.url, token: BENCH_TOKEN, lat: STATION.lat, lon: STATION.lon, recordings };
  const uploader = startProcess(PYTHON, [BASELINE, JSON.stringify(args)], { stdio: ['pipe', 'pipe', 'pipe'] });
  try {
    side.box?.add(uploader.pid);
    await uploader.waitForLine(/^ready$/m, 300_000);
    const memory = new MemorySampler(uploader.pid);
    const cpu0 = cpuOf(side.box, uploader);
    const t0 = performance.now();
    uploader.process.stdin?.write('go\n');
    const done = await uploader.waitForLine(/^done (\d+) (\d+)$/m, 1_800_000);
    const wallSec = (performance.now() - t0) / 1000;
    const cpuSec = cpuOf(side.box, uploader) - cpu0;
    const peak = memory.stop();
    const stored = side.service.stored;
    if (stored !== side.recordings.length * DETECTIONS_PER_RECORDING) throw new Error(`analyzerpi uploader: ${stored} detections stored, expected ${side.recordings.length * DETECTIONS_PER_RECORDING}`);
    return { cpuSec, wallSec, peak, detail: { python: PYTHON, flacBytes: Number(done[2]) } };
  } finally {
    uploader.process.stdin?.end();
    await uploader.stop(5_000);
  }
}

/** Written beside, then renamed into place: the watcher sees whole files only. */
export function dropWhole(folder: string, name: string, content: string | Buffer): void {
  const tmp = path.join(folder, `.${name}.part`);
  writeFileSync(tmp, content);
  renameSync(tmp, path.join(folder, name));
}
