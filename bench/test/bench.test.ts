import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { figure, percentile, renderTable } from '../src/report.js';
import { buildWorkload } from '../src/workload.js';
import { SECTIONS } from '../src/options.js';
import { operatorEnvironment, unitEnvironment, unitMemoryMaxBytes, unitNodeOptions } from '../src/unit-options.js';
import { summarise } from '../src/cpu-profile.js';
import { fileKinds, sumPhase } from '../src/recording-writes.js';
import { countQueueWrites, parseTrace } from '../src/write-cost.js';
import { buildCli } from '../../test/helpers/cli.js';
import { REAL_FIXTURES, REPO_ROOT } from '../../test/helpers/paths.js';

/**
 * A tiny run of the real benchmark (`node bench/dist/bench/src/main.js`): every section with
 * the smallest sizes, as JSON. It checks that each figure is measured and judged
 * against its target, not how fast anything is (speed is the benchmark's own output).
 */
const BENCH_MAIN = path.join(REPO_ROOT, 'bench/dist/bench/src/main.js');

function runBench(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BENCH_MAIN, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

const TINY = [
  '--soundscapes', '3',
  '--detections', '7',
  '--latency', '5',
  '--ingest-files', '4',
  '--ingest-rows', '3',
  '--recordings', '2',
  '--cpu-recordings', '1',
  '--stable-ms', '100',
  '--settle', '1',
  '--idle', '1',
  '--queue-detections', '25',
  '--status-runs', '1',
  '--backlog-recordings', '1',
  '--write-recordings', '1',
  '--soak-recordings', '2',
  '--growth-days', '1',
  '--steady-sec', '1',
  '--steady-interval-ms', '500',
  '--table-rows', '100',
];

interface BenchDoc {
  command: string;
  machine: { nproc: number; cpuModel: string; memoryMb: number; node: string };
  figures: { id: string; name: string; value: number | null; pass: boolean | null; targetText: string | null; detail?: Record<string, unknown> }[];
  errors: { section: string; message: string }[];
}

beforeAll(async () => {
  await buildCli();
}, 180_000);

describe('npm run bench (tiny sizes)', () => {
  it('measures every section and prints one JSON document', async () => {
    // The delivery section waits a minute for the daemon's first audit: its own test below.
    const run = await runBench(['--json', '--only', SECTIONS.filter((s) => s !== 'delivery').join(','), ...TINY]);
    expect(run.stderr).not.toMatch(/not measured/);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as BenchDoc;
    expect(doc.errors).toEqual([]);
    expect(doc.command).toContain('--soundscapes 3');
    expect(doc.machine.nproc).toBeGreaterThan(0);
    expect(doc.machine.node).toBe(process.version);
    const byId = new Map(doc.figures.map((f) => [f.id, f]));
    const targeted = [
      'drain.agentVsRaw',
      'drain.agentVsSequential',
      'memory.drainPeak',
      'ingest.detectionsPerSec',
      'ingest.largeTable.peakRssMb',
      'ingest.pathCpuKeptRatio',
      'latency.p95',
      'cpu.agentVsBaseline',
      'memory.idleVsBare',
      'cpu.idle',
      'startup.versionVsBare',
      'startup.statusVsBare',
      'backlog.peakRss',
      'backlog.realTime',
      'memory.steadyVsBare',
      'ingest.table.peakRssMb',
      'soak.plateauRss',
    ];
    if (existsSync(REAL_FIXTURES)) targeted.push('flac.speed', 'names.suggest500');
    for (const id of targeted) {
      const f = byId.get(id);
      expect(f, id).toBeDefined();
      expect(f!.value, id).toEqual(expect.any(Number));
      expect(typeof f!.pass, id).toBe('boolean');
      expect(f!.targetText, id).toMatch(/^[<>]= /);
    }
    // 3 soundscapes + 7 detections, each drain checked against what the service holds.
    expect(byId.get('drain.agent')!.detail).toMatchObject({ items: 10, atService: { soundscapes: 3, detections: 7 } });
    // The write cost comes from a drain under strace (null where strace is missing).
    const fsyncs = byId.get('drain.fsyncsPerItem')!;
    if (fsyncs.value !== null) {
      expect(fsyncs.detail).toMatchObject({ items: 10 });
      expect(fsyncs.value).toBeGreaterThan(0);
      expect(byId.get('drain.queueBytesPerItem')!.value).toBeGreaterThan(0);
    }
    expect(byId.get('latency.p50')!.detail).toMatchObject({ recordings: 2, stableMs: 100 });
    expect(byId.get('ingest.pathCpuKept')!.detail).toMatchObject({ recordings: 2, stableMs: 100 });
    // The agent and the analyzerpi uploader (Python) side by side, each from its own cgroup.
    expect(byId.get('cpu.agentPerRecording')!.detail).toMatchObject({ recordings: 1, detectionsPerRecording: 2 });
    // The counted run is a restart: the first start (queue created, config validated in a child) is measured apart.
    expect(byId.get('cpu.agentPerRecording')!.detail).toMatchObject({ firstStartCpuSec: expect.any(Number), startupCpuSec: expect.any(Number) });
    // ... with Node's compile cache, as bin/station-agent runs it under systemd: the first start filled it.
    expect(byId.get('cpu.agentPerRecording')!.detail!.compileCacheFiles).toBeGreaterThan(0);
    for (const id of ['cpu.baselinePerRecording', 'cpu.agentPerRecording', 'cpu.baselinePerMinute', 'cpu.agentPerMinute', 'cpu.agentFirstStart', 'cpu.baselineFlacKb', 'cpu.agentFlacKb', 'cpu.agentStartup', 'cpu.agentPastStartupPerRecording']) {
      expect(byId.get(id)!.value, id).toBeGreaterThan(0);
    }
    // The agent's figure is its restart plus the recordings past it.
    const recordings = byId.get('cpu.agentPerRecording')!.detail!.recordings as number;
    expect(byId.get('cpu.agentStartup')!.value! + byId.get('cpu.agentPastStartupPerRecording')!.value! * recordings).toBeCloseTo(byId.get('cpu.agentPerRecording')!.value! * recordings, 6);
    expect(byId.get('cpu.agentPastStartupVsBaseline')!.value).toBeCloseTo(byId.get('cpu.agentPastStartupPerRecording')!.value! / byId.get('cpu.baselinePerRecording')!.value!, 6);
    // Each side's FLAC as the service received it: the agent's default level (0) sends larger files than libsndfile's 5.
    expect(byId.get('cpu.agentVsBaselineFlacBytes')!.value).toBeGreaterThan(1);
    // The agent ran with the systemd unit's NODE_OPTIONS: none, V8 sized by the memory group.
    expect(byId.get('backlog.peakRss')!.detail).toMatchObject({ recordings: 1, detectionsPerRecording: 3, nodeOptions: unitNodeOptions() });
    // Every memory figure shows VmRSS with its split into RssAnon and RssFile.
    for (const id of ['memory.idleRss', 'memory.bareNodeRss', 'memory.steadyRss', 'memory.drainPeak', 'backlog.peakRss', 'ingest.table.peakRssMb', 'ingest.largeTable.peakRssMb']) {
      expect(byId.get(id)!.name, id).toMatch(/RssAnon [\d.]+ MB, RssFile [\d.]+ MB/);
    }
    expect(byId.get('memory.steadyRss')!.detail).toMatchObject({ recordings: 2, intervalMs: 500 });
    // The soak: every recording through the daemon exactly once (else the section is not measured), its heap read from the metrics endpoint.
    expect(byId.get('soak.plateauRss')!.detail).toMatchObject({ recordings: 2, detectionsPerRecording: 3, nodeOptions: unitNodeOptions() });
    expect(byId.get('soak.heapUsedEnd')!.value).toBeGreaterThan(0);
    // The queue's growth: a day of a busy station through the queue's own operations, the file measured.
    expect(byId.get('growth.day')!.value).toBeGreaterThan(1);
    expect(byId.get('growth.slope')!.detail).toMatchObject({ days: 1, retainDays: 30 });
    // The daemon's V8 flag in the same run: the agent with TurboFan on beside it, idle and through the steady state.
    for (const id of ['memory.idleRssTurbofan', 'memory.steadyRssTurbofan', 'cpu.steadyPerRecording', 'cpu.steadyPerRecordingTurbofan']) {
      expect(byId.get(id)!.value, id).toBeGreaterThan(0);
    }
    // Writes per recording, end to end, in both modes, service up (targets), down and the drain after.
    for (const mode of ['results', 'analyzerpi']) {
      for (const phase of ['up', 'down', 'drain']) {
        for (const what of ['fsyncs', 'queueKb', 'audioKb']) {
          const f = byId.get(`writes.${mode}.${phase}.${what}`);
          expect(f, `writes.${mode}.${phase}.${what}`).toBeDefined();
          expect(f!.targetText === null, `${mode} ${phase} ${what}`).toBe(phase !== 'up');
        }
      }
      const fsyncs = byId.get(`writes.${mode}.up.fsyncs`)!;
      // Null only where strace is missing (the figure's name says so); the recording's commits are always there.
      if (fsyncs.value !== null) {
        expect(fsyncs.value).toBeGreaterThan(0);
        expect(fsyncs.detail).toMatchObject({ mode, phase: 'up', recordings: 1 });
        expect(byId.get(`writes.${mode}.up.queueKb`)!.value).toBeGreaterThan(0);
      }
    }
    // Every section in turn, each starting daemons and a local service: about 100 s on a quiet
    // 2-core machine, and past 180 s at a load average of 11 (a CI machine shared with others).
  }, 480_000);

  it('delivery: the audit and heartbeat on against off, side by side; one day\'s audit on the wire, clean and with a detection lost', async () => {
    const run = await runBench(['--json', '--only', 'delivery', '--settle', '1', '--idle', '1', '--delivery-recordings', '1', '--audit-recordings', '20']);
    expect(run.stderr).not.toMatch(/not measured/);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as BenchDoc;
    const byId = new Map(doc.figures.map((f) => [f.id, f]));
    for (const id of ['delivery.idleRssOnVsOff', 'delivery.idleCpuOn', 'delivery.perRecordingOnVsOff']) {
      expect(typeof byId.get(id)?.pass, id).toBe('boolean');
    }
    for (const id of ['delivery.perRecordingOff', 'delivery.perRecordingOn', 'delivery.audit.cleanDay.bytes', 'delivery.audit.oneLost.bytes']) {
      expect(byId.get(id)!.value, id).toBeGreaterThan(0);
    }
    // A clean day: the soundscape listing and the species counts; one lost detection adds the day's detection listing and the lookup by id.
    expect(byId.get('delivery.audit.cleanDay.requests')!.value).toBe(2);
    expect(byId.get('delivery.audit.oneLost.requests')!.value).toBe(4);
    expect(byId.get('delivery.audit.oneLost.bytes')!.value!).toBeGreaterThan(byId.get('delivery.audit.cleanDay.bytes')!.value!);
  }, 300_000);

  it('refuses an unknown section with a usage error', async () => {
    const run = await runBench(['--only', 'drain,nonsense']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('"nonsense" is not a section');
  }, 30_000);
});

describe('write cost', () => {
  it('counts fsyncs and written bytes on the queue database files only, from strace -f -y lines', () => {
    const trace = [
      '101 pwrite64(12</d/data/queue.db-wal>, "\\x37\\x7f"..., 4152, 32) = 4152',
      '101 pwrite64(12</d/data/queue.db-wal>, "\\x00"..., 4120, 4184) = 4120',
      '101 fdatasync(12</d/data/queue.db-wal>) = 0',
      '101 pwrite64(11</d/data/queue.db>, "\\x00"..., 4096, 8192) = 4096',
      '101 fsync(11</d/data/queue.db>) = 0',
      '102 write(19</d/data/agent.log>, "{}"..., 120) = 120',
      '102 fsync(20</d/data/other.db>) = 0',
      '101 fsync(13</d/data>) = 0',
      '101 pwrite64(12</d/data/queue.db-wal>, ""..., 4120, 0) = -1 ENOSPC (No space left on device)',
      '101 +++ exited with 0 +++',
    ].join('\n');
    expect(countQueueWrites(trace, '/d/data/queue.db')).toEqual({
      fsyncs: 3,
      bytes: 4152 + 4120 + 4096,
      byFile: {
        'queue.db-wal': { fsyncs: 1, bytes: 8272 },
        'queue.db': { fsyncs: 1, bytes: 4096 },
        'data/': { fsyncs: 1, bytes: 0 },
      },
    });
  });
});

describe('writes per recording', () => {
  it('joins calls that another thread interrupted, and keeps the file of a deleted one', () => {
    const trace = [
      '201 1700000000.100000 fsync(14</d/data/spool/a.flac> <unfinished ...>',
      '202 1700000000.100500 pwrite64(12</d/data/queue.db-wal>, "x) = 99"..., 4152, 32) = 4152',
      '201 1700000000.101000 <... fsync resumed>) = 0',
      '203 1700000000.102000 write(3</d/data/spool/b.flac.part (deleted)>, "fLaC"..., 65536 <unfinished ...>',
      '203 1700000000.103000 <... write resumed>) = 65536',
      '204 1700000000.104000 copy_file_range(5</in/c.wav>, NULL, 6</d/data/spool/incoming/c.wav.part>, NULL, 1048576, 0) = 1048576',
      '205 1700000000.105000 write(1<pipe:[123]>, "{}", 2) = 2',
      '206 1700000000.106000 fdatasync(12</d/data/queue.db-wal> <unfinished ...>',
    ].join('\n');
    expect(parseTrace(trace)).toEqual([
      { pid: 202, time: 1700000000.1005, name: 'pwrite64', file: '/d/data/queue.db-wal', ret: 4152 },
      { pid: 201, time: 1700000000.1, name: 'fsync', file: '/d/data/spool/a.flac', ret: 0 },
      { pid: 203, time: 1700000000.102, name: 'write', file: '/d/data/spool/b.flac.part', ret: 65536 },
      { pid: 204, time: 1700000000.104, name: 'copy_file_range', file: '/d/data/spool/incoming/c.wav.part', ret: 1048576 },
      { pid: 205, time: 1700000000.105, name: 'write', file: null, ret: 2 },
      // the process was killed inside it: the sync was made all the same
      { pid: 206, time: 1700000000.106, name: 'fdatasync', file: '/d/data/queue.db-wal', ret: null },
    ]);
  });

  it('sums a phase per kind of file: queue database, audio, folders, other', () => {
    const calls = parseTrace(
      [
        `1 5.0 pwrite64(12<${REPO_ROOT}/queue.db-wal>, ""..., 4096, 0) = 4096`,
        `1 5.1 fdatasync(12<${REPO_ROOT}/queue.db-wal>) = 0`,
        `1 5.2 fsync(13<${REPO_ROOT}>) = 0`,
        `1 5.3 write(14<${REPO_ROOT}/spool/x.flac>, ""..., 1000) = 1000`,
        `1 5.4 write(15<${REPO_ROOT}/daemon.lock>, "1"..., 1) = 1`,
        `1 5.5 write(16</dev/null>, "1"..., 1) = 1`,
      ].join('\n'),
    );
    expect(sumPhase(calls, fileKinds(REPO_ROOT), 2, 10)).toEqual({
      recordings: 2,
      seconds: 10,
      fsyncs: 2,
      queueBytes: 4096,
      audioBytes: 1000,
      otherBytes: 1,
      byFile: {
        'queue.db-wal': { fsyncs: 1, bytes: 4096 },
        folders: { fsyncs: 1, bytes: 0 },
        'audio files': { fsyncs: 0, bytes: 1000 },
        'daemon.lock': { fsyncs: 0, bytes: 1 },
      },
    });
  });
});

describe('CPU profile breakdown', () => {
  it('puts each sample in the first bucket its stack matches, idle left out, and names the agent functions', () => {
    const agent = (file: string) => `file:///repo/dist/${file}`;
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [2, 3, 4, 5] },
        { id: 2, callFrame: { functionName: '(idle)', url: '' } },
        { id: 3, callFrame: { functionName: '(garbage collector)', url: '' } },
        { id: 4, callFrame: { functionName: 'setMeta', url: agent('queue/meta.js') }, children: [6] },
        { id: 5, callFrame: { functionName: 'openRegularFile', url: agent('system/regular-file.js') }, children: [7] },
        { id: 6, callFrame: { functionName: 'run', url: 'file:///repo/node_modules/better-sqlite3/lib/methods/wrappers.js' } },
        { id: 7, callFrame: { functionName: 'lstat', url: '' } },
      ],
      samples: [2, 3, 4, 6, 6, 7],
      timeDeltas: [5000, 1000, 1000, 1000, 1000, 1000],
    };
    const s = summarise(profile, 'p.cpuprofile', '/repo/dist');
    expect(s.busyMs).toBe(5);
    expect(s.shares).toEqual({ 'meta writes (setMeta)': 0.6, 'garbage collection': 0.2, 'file system calls (open, stat, read, close)': 0.2 });
    expect(s.topFunctions).toEqual([
      { fn: 'queue/meta.js:setMeta', share: 0.6 },
      { fn: 'system/regular-file.js:openRegularFile', share: 0.2 },
    ]);
  });
});

describe('CPU profile breakdown of the bundled CLI', () => {
  beforeAll(() => buildCli(), 300_000);

  it("names the module of a chunk's code through the chunk's source map, not the chunk", () => {
    // A function of queue/transaction.ts as the daemon runs it: in a chunk of dist/bundle/.
    const bundle = path.join(REPO_ROOT, 'dist/bundle');
    const chunk = readdirSync(bundle).find((f) => f.endsWith('.js') && readFileSync(path.join(bundle, f), 'utf8').includes('var OuterTransaction = class'));
    expect(chunk, 'the chunk holding queue/transaction.js').toBeDefined();
    const lines = readFileSync(path.join(bundle, chunk!), 'utf8').split('\n');
    const lineNumber = lines.findIndex((l) => l.includes('var OuterTransaction = class'));
    const url = `file://${path.join(bundle, chunk!)}`;
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [2] },
        { id: 2, callFrame: { functionName: 'run', url, lineNumber, columnNumber: lines[lineNumber].indexOf('class') }, children: [3] },
        { id: 3, callFrame: { functionName: 'run', url: `file://${REPO_ROOT}/node_modules/better-sqlite3/lib/methods/wrappers.js` } },
      ],
      samples: [3, 3],
      timeDeltas: [1000, 1000],
    };
    const s = summarise(profile, 'p.cpuprofile', path.join(REPO_ROOT, 'dist'));
    expect(s.topFunctions).toEqual([{ fn: 'queue/transaction.js:run', share: 1 }]);
    expect(s.shares).toEqual({ 'other queue statements': 1 });
  });
});

describe('figures and the table', () => {
  it('judges a figure against its target and shows n/a when nothing was measured', () => {
    expect(figure({ id: 'a', name: 'a', value: 0.79, unit: 'x', target: { op: '>=', value: 0.8 } }).pass).toBe(false);
    expect(figure({ id: 'b', name: 'b', value: 150, unit: 'ms', digits: 0, target: { op: '<=', value: 200 } })).toMatchObject({
      pass: true,
      measured: '150 ms',
      targetText: '<= 200 ms',
    });
    expect(figure({ id: 'c', name: 'c', value: null, unit: 'ms', target: { op: '<=', value: 1 } })).toMatchObject({ pass: null, measured: 'n/a' });
    const table = renderTable([figure({ id: 'd', name: 'drain', value: 2, unit: 'x', target: { op: '>=', value: 5 } })]).split('\n');
    expect(table[0]).toMatch(/^figure\s+measured\s+target\s+result$/);
    expect(table[2]).toMatch(/^drain\s+2\.00 x\s+>= 5\.00 x\s+FAIL$/);
  });

  it("runs daemons in the systemd unit's environment, not the shell's, with the shell's agent settings", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-unit-'));
    const names = ['NODE_EXTRA_CA_CERTS', 'STATION_AGENT_UPLOAD_FLAC_COMPRESSION_LEVEL', 'STATION_AGENT_CONFIG'];
    const saved = names.map((name) => process.env[name]);
    try {
      const file = path.join(dir, 'x.service');
      writeFileSync(file, '[Service]\nEnvironment=NODE_ENV=production\nEnvironment=STATION_AGENT_CONFIG=/etc/x.json\nEnvironment="NODE_OPTIONS=--max-old-space-size=96"\n');
      process.env.NODE_EXTRA_CA_CERTS = '/etc/ssl/certs/ca-certificates.crt';
      process.env.STATION_AGENT_UPLOAD_FLAC_COMPRESSION_LEVEL = '5';
      process.env.STATION_AGENT_CONFIG = '/etc/shell.json';
      const env = unitEnvironment(file);
      expect(env).toMatchObject({ NODE_ENV: 'production', NODE_OPTIONS: '--max-old-space-size=96', PATH: process.env.PATH });
      // A variable of the bench's shell, and a config path of the unit's or the shell's (the bench passes --config), stay out.
      expect(env.NODE_EXTRA_CA_CERTS).toBeUndefined();
      expect(env.STATION_AGENT_CONFIG).toBeUndefined();
      // The agent's own settings from the shell come in: a section run with another value.
      expect(env.STATION_AGENT_UPLOAD_FLAC_COMPRESSION_LEVEL).toBe('5');
    } finally {
      names.forEach((name, i) => {
        if (saved[i] === undefined) delete process.env[name];
        else process.env[name] = saved[i];
      });
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("times CLI commands and the bare node in an operator's shell environment: no NODE_OPTIONS, no NODE_EXTRA_CA_CERTS", () => {
    const names = ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'STATION_AGENT_UPLOAD_CONCURRENCY'];
    const saved = names.map((name) => process.env[name]);
    try {
      // This machine's shell sets NODE_EXTRA_CA_CERTS: some 30 ms more for every node start,
      // the bare node's as much as the CLI's, which shrank the start-up ratios.
      process.env.NODE_EXTRA_CA_CERTS = '/etc/ssl/certs/ca-certificates.crt';
      process.env.NODE_OPTIONS = '--max-old-space-size=96';
      process.env.STATION_AGENT_UPLOAD_CONCURRENCY = '2';
      const env = operatorEnvironment();
      expect(env.NODE_EXTRA_CA_CERTS).toBeUndefined();
      expect(env.NODE_OPTIONS).toBeUndefined();
      expect(env).toMatchObject({ PATH: process.env.PATH, STATION_AGENT_UPLOAD_CONCURRENCY: '2' });
    } finally {
      names.forEach((name, i) => {
        if (saved[i] === undefined) delete process.env[name];
        else process.env[name] = saved[i];
      });
    }
  });

  it("reads the systemd unit's NODE_OPTIONS, quoted or not, and its MemoryMax; the unit sets no V8 flag", () => {
    // A V8 flag makes Node compile its own modules from source at every start (src/system/v8-flags.ts).
    expect(unitNodeOptions()).toBeNull();
    expect(unitMemoryMaxBytes()).toBe(256 * 1024 * 1024);
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-unit-'));
    try {
      const unit = (text: string) => {
        const file = path.join(dir, 'x.service');
        writeFileSync(file, `[Service]\nEnvironment=NODE_ENV=production\n${text}\n`);
        return file;
      };
      expect(unitNodeOptions(unit('Environment="NODE_OPTIONS=--max-old-space-size=96 --max-semi-space-size=1"'))).toBe('--max-old-space-size=96 --max-semi-space-size=1');
      expect(unitNodeOptions(unit('Environment=NODE_OPTIONS=--max-old-space-size=96'))).toBe('--max-old-space-size=96');
      expect(unitNodeOptions(unit('# Environment=NODE_OPTIONS=--max-old-space-size=96'))).toBeNull();
      expect(unitMemoryMaxBytes(unit('MemoryMax=160M'))).toBe(160 * 1024 * 1024);
      expect(() => unitMemoryMaxBytes(unit('# MemoryMax=160M'))).toThrow(/sets no MemoryMax=/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes percentiles by nearest rank', () => {
    const samples = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(percentile(samples, 50)).toBe(10);
    expect(percentile(samples, 95)).toBe(19);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it('spreads the detections of the backlog over its soundscapes', () => {
    const work = buildWorkload({ soundscapes: 3, detections: 7, startMs: Date.UTC(2024, 4, 1, 6) });
    expect(work.map((r) => r.detections.length)).toEqual([3, 2, 2]);
    expect(work[1].timestamp).toBe('2024-05-01T06:00:15.000+00:00');
    expect(work[0].detections[1]).toMatchObject({ startS: 3, endS: 6 });
  });
});
