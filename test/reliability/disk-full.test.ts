import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statfsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient, type ServiceClient } from '../../src/api/index.js';
import { EXIT } from '../../src/errors.js';
import type { RunningEmulator } from '@station-agent/emulator';
import { getMeta, openQueue, queueCounts } from '../../src/queue/index.js';
import { RUNTIME_META_KEY, parseRuntimeSnapshot, type RuntimeSnapshot } from '../../src/runtime/snapshot.js';
import { createAgentWorld, TOKEN, type AgentWorld } from '../helpers/agent-world.js';
import { AGENT_NODE, buildCli } from '../helpers/cli.js';
import { outcomeWithin } from '../helpers/outcome.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { buildWav } from '../helpers/wav-writer.js';
import { logRecords, startAgentProcess, type AgentProcess } from './support/agent-process.js';
import { planBacklog, SAMPLE_RATE, sidecar, startDaysAgo, writeAtomically, writeBacklog, type ExpectedRecording } from './support/backlog.js';
import { EXACTLY_ONCE, exactlyOnce, expectedCounts, serviceHoldings, withQueue } from './support/exactly-once.js';
import { SEED, scaled, seededRandom } from './support/soak.js';
import { until } from '../helpers/until.js';
import { startService, writeAgentConfig } from './support/world.js';

/**
 * Scenario 4, disk full. Two ways:
 *
 * 1. Low disk as the agent sees it: `disk.minFreeMb` above the real free space. No
 *    audio is spooled, a clear error says so (log and the runtime snapshot that
 *    `status` shows), the detections still queue and go without a soundscape after
 *    `upload.noSoundscapeAfterSec`; when space "returns" (a lower threshold and a
 *    restart) new recordings spool and upload with their soundscapes again.
 * 2. A real ENOSPC: the agent (as a process) in a user and mount namespace whose
 *    `dataDir` is a 16 MiB tmpfs, 10 MiB of it taken by a ballast file, fed 8 MB WAVs
 *    from another file system (so the spool copies them, and each copy runs out of
 *    space half way). The agent must name the file, queue its detections without
 *    audio, keep going, spool again once the ballast is gone, and leave an intact
 *    database. (`disk.minFreeMb` is 0 here, so its guard does not step in first.)
 */

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function readSnapshotMeta(dataDir: string): RuntimeSnapshot | undefined {
  const q = openQueue(path.join(dataDir, 'queue.db'));
  try {
    return parseRuntimeSnapshot(getMeta(q, RUNTIME_META_KEY)) ?? undefined;
  } finally {
    q.close();
  }
}

function integrity(dataDir: string) {
  return withQueue(dataDir, (q) => q.integrityCheck());
}

describe('disk full: free space below disk.minFreeMb (as the agent sees it)', () => {
  it('spools no audio, says so, still uploads the detections without a soundscape, and spools again when space returns', async () => {
    world = await createAgentWorld({
      // Above any real free space (the schema's maximum is 1 TB): the agent believes the disk is low.
      config: { disk: { minFreeMb: 1_000_000 }, upload: { noSoundscapeAfterSec: 1 } },
    });
    const random = seededRandom(SEED);
    const startMs = startDaysAgo(1);
    const low = planBacklog({ count: scaled(6, 30), startMs, random });
    writeBacklog(world.inputDir, low);

    const daemon = await world.startAgent();
    expect(daemon.snapshot().disk.low).toBe(true);
    expect(readSnapshotMeta(world.dataDir)?.disk.low).toBe(true);
    const lows = expectedCounts(low);
    await until('detections uploaded without soundscapes', () => (world!.counts().detections.uploaded === lows.detections ? true : undefined), 30_000, () =>
      JSON.stringify(world!.counts()),
    );

    const records = world.logLines.map((l) => JSON.parse(l) as { level: number; msg: string; file?: string });
    expect(records.some((r) => r.level >= 50 && /free disk space below disk\.minFreeMb \(1000000 MB\): new audio is not spooled/.test(r.msg))).toBe(true);
    for (const rec of low) {
      const wav = path.join(world.inputDir, `${rec.base}.wav`);
      // A per-file warning naming the audio file and what happens to its detections.
      expect(records.some((r) => r.level === 40 && r.msg === `${wav}: not spooled, free disk space is below disk.minFreeMb; detections go without a soundscape`)).toBe(true);
    }
    const spooled = readdirSync(path.join(world.dataDir, 'spool')).filter((f) => f !== 'incoming');
    expect(spooled).toEqual([]);
    expect(integrity(world.dataDir)).toEqual({ ok: true, problems: [] });
    await world.stopAgent();

    // Space returns: a lower threshold, a restart; new recordings spool and upload with their audio.
    const config = JSON.parse(readFileSync(world.configPath, 'utf8')) as { disk: { minFreeMb: number } };
    config.disk.minFreeMb = 0;
    writeFileSync(world.configPath, JSON.stringify(config), { mode: 0o600 });
    const again = planBacklog({ count: scaled(4, 20), firstIndex: low.length, startMs, random });
    writeBacklog(world.inputDir, again);
    const restarted = await world.startAgent();
    expect(restarted.snapshot().disk.low).toBe(false);
    const want = expectedCounts([...low, ...again]);
    const counts = await until(
      'new recordings uploaded with their soundscapes',
      () => {
        const c = world!.counts();
        return c.recordings.uploaded === again.length && c.detections.uploaded === want.detections ? c : undefined;
      },
      30_000,
      () => `${JSON.stringify(world!.counts())}\n${world!.logLines.slice(-20).join('\n')}`,
    );
    expect(restarted.snapshot().disk.low).toBe(false);
    await world.stopAgent();
    expect(readSnapshotMeta(world.dataDir)?.disk.low).toBe(false);

    expect(counts.recordings.failed + counts.detections.failed).toBe(0);
    const held = await serviceHoldings(world.client);
    expect(exactlyOnce([...low, ...again], held, { withoutSoundscape: new Set(low.map((r) => r.base)) })).toEqual(EXACTLY_ONCE);
    expect(held.soundscapes).toHaveLength(again.length);
    expect(integrity(world.dataDir)).toEqual({ ok: true, problems: [] });
    console.log(
      `disk low (minFreeMb above free space): ${low.length} recordings queued without audio, ${lows.detections} detections posted without a soundscape; ` +
        `after the restart with space: ${again.length} recordings spooled and uploaded; recordings left without audio: ` +
        `${JSON.stringify({ pending: counts.recordings.pending, dropped: counts.recordings.dropped })} (retired by the retention sweep, every 60 s)`,
    );
  }, 60_000);
});

/** Whether this machine lets us mount a tmpfs in a user + mount namespace. */
function canMountTmpfs(): { ok: boolean; why: string } {
  const { dir, cleanup } = tempDir('reliability-unshare-');
  try {
    const r = spawnSync('unshare', ['-rm', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs "$0" && touch "$0/x"', dir], { encoding: 'utf8', timeout: 10_000 });
    if (r.error) return { ok: false, why: `unshare not available: ${r.error.message}` };
    return r.status === 0 ? { ok: true, why: '' } : { ok: false, why: `unshare -rm + mount -t tmpfs refused: ${(r.stderr || '').trim()}` };
  } finally {
    cleanup();
  }
}

const tmpfs = canMountTmpfs();
if (!tmpfs.ok) console.warn(`disk-full (real ENOSPC) skipped: ${tmpfs.why}`);

/**
 * Runs the CLI inside `unshare -rm`: mounts a tmpfs of `tmpfsKb` on dataDir, fills
 * `ballastKb` of it, runs the agent `runs` times in a row (a restart keeps the tmpfs:
 * it lives as long as the namespace), then copies the queue database out.
 */
function wrapper(tmpfsKb: number, ballastKb: number, runs: number): string {
  return [
    'd="$1"; o="$2"; shift 2',
    `mount -t tmpfs -o size=${tmpfsKb}k tmpfs "$d" || exit 97`,
    `dd if=/dev/zero of="$d/ballast" bs=1k count=${ballastKb} 2>/dev/null`,
    ...Array.from({ length: runs }, () => '"$@"; rc=$?'),
    'for f in "$d"/queue.db "$d"/queue.db-wal; do [ -e "$f" ] && cp "$f" "$o"/; done',
    'exit $rc',
  ].join('\n');
}

/** The wrapper shell's children (unshare execs the shell, without forking). */
function shellChildren(shellPid: number): number[] {
  try {
    return readFileSync(`/proc/${shellPid}/task/${shellPid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number)
      .filter((pid) => Number.isInteger(pid) && pid > 0);
  } catch {
    return [];
  }
}

/** The agent's pid: the wrapper shell's child. */
function agentPid(shellPid: number): number | undefined {
  return shellChildren(shellPid)[0];
}

/** A station whose dataDir is a small tmpfs: the service in-process, the agent as a process. */
interface SmallDiskStation {
  inputDir: string;
  dataDir: string;
  configPath: string;
  /** Where the wrapper copies the queue database after the agent exits. */
  outDir: string;
  client: ServiceClient;
  agent: AgentProcess;
  /** The agent's own pid (inside the wrapper); changes with `restart()`. */
  pid: number;
  /** SIGTERM; the wrapper starts the agent again in the same namespace. Resolves when it runs. */
  restart(): Promise<void>;
  /** Deletes the ballast, through /proc/<pid>/root (the tmpfs is only visible in the namespace). */
  freeBallast(): void;
  /** Fills what the ballast left of the tmpfs, to its last block (the same way in). */
  fill(): void;
  logs(): { level: string; msg: string; err?: string }[];
  /** SIGTERM, and the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

// Closed after each test, passed or failed: a failing test must not leave its agent running.
const smallDisks: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of smallDisks.splice(0)) await s.close();
});

async function smallDiskStation(
  tmpfsKb: number,
  ballastKb: number,
  before: (inputDir: string) => void,
  runs = 1,
  upload: Record<string, unknown> = {},
): Promise<SmallDiskStation> {
  const { dir: root, cleanup } = tempDir('reliability-enospc-');
  const inputDir = path.join(root, 'input');
  const dataDir = path.join(root, 'data');
  const outDir = path.join(root, 'out');
  for (const d of [inputDir, dataDir, outDir]) mkdirSync(d, { recursive: true });
  const service: RunningEmulator = await startService();
  const client = createServiceClient({ baseUrl: service.url, token: TOKEN });
  const configPath = writeAgentConfig(path.join(root, 'config.json'), {
    baseUrl: service.url,
    inputDir,
    dataDir,
    extra: { disk: { minFreeMb: 0 }, upload: { noSoundscapeAfterSec: 1, ...upload }, log: { level: 'info' } },
  });
  before(inputDir);
  const agent = startAgentProcess(configPath, {
    wrap: (cli) => ({ command: 'unshare', args: ['-rm', 'sh', '-c', wrapper(tmpfsKb, ballastKb, runs), 'sh', dataDir, outDir, ...cli] }),
  });
  smallDisks.push({
    async close() {
      // The agent runs inside the namespace's shell: killing the wrapper alone leaves it behind,
      // and killing the agent alone lets the shell start its next run. So the shell is stopped
      // first (it cannot fork while stopped), then it and whatever children it has now are killed:
      // also when the test failed before it knew the agent's pid, or in the middle of a restart.
      if (agent.child.exitCode === null && agent.child.signalCode === null) {
        process.kill(agent.pid, 'SIGSTOP');
        const children = shellChildren(agent.pid);
        process.kill(agent.pid, 'SIGKILL');
        for (const pid of children) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Already gone.
          }
        }
      }
      await agent.exited;
      await client.close();
      await service.close();
      cleanup();
    },
  });
  await agent.waitForLine(/"msg":"station-agent running"/, 30_000);
  const pid = await until('agent pid', () => agentPid(agent.pid), 15_000);
  const station: SmallDiskStation = {
    inputDir,
    dataDir,
    configPath,
    outDir,
    client,
    agent,
    pid,
    async restart() {
      const old = station.pid;
      const running = agent.lines.filter((l) => l.includes('"msg":"station-agent running"')).length;
      process.kill(old, 'SIGTERM');
      station.pid = await until('restarted agent pid', () => {
        const pid = agentPid(agent.pid);
        return pid !== undefined && pid !== old ? pid : undefined;
      }, 30_000);
      await until('restarted agent running', () => (agent.lines.filter((l) => l.includes('"msg":"station-agent running"')).length > running ? true : undefined), 30_000);
    },
    freeBallast() {
      const ballast = `/proc/${station.pid}/root${dataDir}/ballast`;
      expect(existsSync(ballast)).toBe(true);
      spawnSync('rm', ['-f', ballast]);
      expect(existsSync(ballast)).toBe(false);
    },
    fill() {
      const inside = `/proc/${station.pid}/root${dataDir}`;
      // dd ends with ENOSPC, as meant.
      spawnSync('dd', ['if=/dev/zero', `of=${inside}/filler`, 'bs=4k'], { stdio: 'ignore' });
      expect(statfsSync(inside).bavail).toBe(0);
    },
    logs: () => logRecords(agent.lines) as { level: string; msg: string; err?: string }[],
    async stop() {
      process.kill(station.pid, 'SIGTERM');
      return agent.exited;
    },
  };
  return station;
}

/**
 * The running agent's detection counts: the per-state counts its queue keeps, read-only
 * by a node inside the agent's namespaces (the tmpfs is only visible there, and SQLite
 * resolves a /proc/<pid>/root path to the folder outside).
 */
function liveDetectionCounts(station: SmallDiskStation): Record<'uploaded' | 'pending' | 'sending' | 'unknown', number> {
  const script = [
    "const Database = require('better-sqlite3');",
    'const db = new Database(process.argv[1], { readonly: true, fileMustExist: true });',
    "console.log(JSON.stringify(db.prepare(\"SELECT state, n FROM state_counts WHERE kind = 'detection'\").all()));",
  ].join('\n');
  const r = spawnSync(
    'nsenter',
    ['-t', String(station.pid), '-U', '-m', '--preserve-credentials', `--wd=${REPO_ROOT}`, '--', AGENT_NODE, '-e', script, path.join(station.dataDir, 'queue.db')],
    { encoding: 'utf8', timeout: 10_000 },
  );
  if (r.status !== 0) throw new Error(`cannot read the agent's queue (pid ${station.pid}): ${r.error?.message ?? r.stderr}`);
  const counts = { uploaded: 0, pending: 0, sending: 0, unknown: 0 };
  for (const row of JSON.parse(r.stdout) as { state: string; n: number }[]) {
    if (Object.hasOwn(counts, row.state)) counts[row.state as keyof typeof counts] = row.n;
  }
  return counts;
}

/** 250 s of 16 kHz mono 16-bit silence: 8 MB. */
const BIG_SECONDS = 250;

describe.skipIf(!tmpfs.ok)('disk full: real ENOSPC on a small tmpfs holding dataDir (agent process in a mount namespace)', () => {
  beforeAll(() => buildCli(), 180_000);

  it('names each file whose audio did not fit, uploads its detections without a soundscape, spools again when space returns; the database stays intact', async () => {
    const random = seededRandom(SEED + 4);
    const startMs = startDaysAgo(1);
    // 8 MB WAVs: none fits in the 6 MiB the ballast leaves (room enough for the database and its WAL).
    const big = planBacklog({ count: 3, startMs, random, durationS: BIG_SECONDS });
    const bigWav = buildWav({ sampleRate: SAMPLE_RATE, samples: new Array<number>(BIG_SECONDS * SAMPLE_RATE).fill(0) }).bytes;
    const station = await smallDiskStation(16 * 1024, 10 * 1024, (inputDir) => {
      for (const rec of big) {
        writeAtomically(path.join(inputDir, `${rec.base}.wav`), bigWav);
        writeAtomically(path.join(inputDir, `${rec.base}.detections.json`), sidecar(rec));
      }
    });
    const bigCounts = expectedCounts(big);
    await until(
      'detections of the audio that did not fit uploaded',
      async () => ((await serviceHoldings(station.client)).detections.length === bigCounts.detections ? true : undefined),
      30_000,
      () => station.agent.lines.slice(-30).join('\n'),
    );
    for (const rec of big) {
      const wav = path.join(station.inputDir, `${rec.base}.wav`);
      const message = `no space left in the spool ${path.join(station.dataDir, 'spool')} for ${wav}; detections go without a soundscape`;
      expect(station.logs().some((r) => r.level === 'warn' && r.msg === message), `a warning naming ${wav}:\n${station.agent.lines.join('\n')}`).toBe(true);
    }

    // Space returns: new recordings spool and upload with their audio, in the same run.
    station.freeBallast();
    const small = planBacklog({ count: 2, firstIndex: big.length, startMs, random });
    writeBacklog(station.inputDir, small);
    const all: ExpectedRecording[] = [...big, ...small];
    const want = expectedCounts(all);
    await until(
      'new recordings uploaded with their soundscapes',
      async () => {
        const held = await serviceHoldings(station.client);
        return held.detections.length === want.detections && held.soundscapes.length === small.length ? true : undefined;
      },
      30_000,
      () => station.agent.lines.slice(-30).join('\n'),
    );

    const exit = await station.stop();
    expect(exit, station.agent.lines.slice(-20).join('\n')).toEqual({ code: 0, signal: null });
    expect(integrity(station.outDir)).toEqual({ ok: true, problems: [] });
    const held = await serviceHoldings(station.client);
    expect(exactlyOnce(all, held, { withoutSoundscape: new Set(big.map((r) => r.base)) })).toEqual(EXACTLY_ONCE);
    console.log(
      `real ENOSPC in the spool (tmpfs 16 MiB, 10 MiB ballast): ${big.length} WAVs of ${Math.round(bigWav.length / 1e6)} MB did not fit, ` +
        `their ${bigCounts.detections} detections went without a soundscape; after the ballast went, ${small.length} recordings uploaded with audio; ` +
        `exit code ${exit.code}, integrity ok`,
    );
  }, 90_000);

  it('the queue database itself runs out of space (SQLITE_FULL): no crash, ingest goes on once space returns, and after a restart everything is there exactly once', async () => {
    const random = seededRandom(SEED + 5);
    const startMs = startDaysAgo(1);
    const recs = planBacklog({ count: 12, startMs, random });
    // 1.5 MiB with 1.375 MiB of ballast: some hundred KB for the database, which its WAL
    // soon fills (a recording appends some 40 KB to it: 1 KB pages).
    const station = await smallDiskStation(
      1_536,
      1_408,
      (inputDir) => {
        for (const rec of recs) writeAtomically(path.join(inputDir, `${rec.base}.detections.json`), sidecar(rec));
      },
      2,
    );
    const full = (r: { msg: string; err?: string }) => /disk is full/.test(`${r.err ?? ''} ${r.msg}`);
    await until('the database is full', () => (station.logs().some(full) ? true : undefined), 30_000, () => station.agent.lines.slice(-30).join('\n'));
    // A failed write is logged, never the end of the process: the same process uploads what comes after (below).
    expect(agentPid(station.agent.pid), station.agent.lines.slice(-20).join('\n')).toBe(station.pid);
    const fullErrors = station.logs().filter(full).length;

    // Space returns: a recording made now is ingested and uploaded in the same run.
    station.freeBallast();
    const later = planBacklog({ count: 1, firstIndex: recs.length, startMs, random });
    for (const rec of later) writeAtomically(path.join(station.inputDir, `${rec.base}.detections.json`), sidecar(rec));
    await until(
      'the recording made after space returned at the service',
      async () => {
        const held = await serviceHoldings(station.client);
        const keys = new Set(held.detections.map((d) => `${Date.parse(d.timestamp)} ${d.species.scientificName}`));
        return later.every((r) => r.detections.every((d) => keys.has(`${d.timestampMs} ${d.scientificName}`))) ? true : undefined;
      },
      30_000,
      () => station.agent.lines.slice(-30).join('\n'),
    );
    expect(agentPid(station.agent.pid), 'the process that met the full disk uploaded it').toBe(station.pid);

    // A restart (as systemd would do) takes up what the full disk interrupted.
    await station.restart();
    const all = [...recs, ...later];
    const want = expectedCounts(all);
    await until(
      'every detection at the service',
      async () => ((await serviceHoldings(station.client)).detections.length >= want.detections ? true : undefined),
      30_000,
      () => station.agent.lines.slice(-30).join('\n'),
    );
    // The service holding every detection is not the agent knowing it: an answer still on its
    // way (or a post that timed out on a loaded machine while the data arrived, `unknown` until
    // reconciled) is settled only later, and a stop cuts what its grace does not see finish.
    // So wait for what is asserted below: the agent's own queue, every detection uploaded.
    await until(
      'every detection settled as uploaded in the agent\'s queue',
      () => {
        const c = liveDetectionCounts(station);
        return c.uploaded === want.detections && c.pending + c.sending + c.unknown === 0 ? true : undefined;
      },
      30_000,
      () => `${JSON.stringify(liveDetectionCounts(station))}\n${station.agent.lines.slice(-30).join('\n')}`,
    );
    const exit = await station.stop();
    expect(exit, station.agent.lines.slice(-20).join('\n')).toEqual({ code: 0, signal: null });
    expect(integrity(station.outDir)).toEqual({ ok: true, problems: [] });
    const held = await serviceHoldings(station.client);
    expect(exactlyOnce(all, held, { withoutSoundscape: new Set(all.map((r) => r.base)) })).toEqual(EXACTLY_ONCE);
    const q = openQueue(path.join(station.outDir, 'queue.db'));
    try {
      expect(queueCounts(q).detections).toMatchObject({ uploaded: want.detections, pending: 0, sending: 0, unknown: 0, failed: 0 });
    } finally {
      q.close();
    }
    console.log(`queue database full (SQLITE_FULL): ${fullErrors} "disk is full" log lines, no crash; ${want.detections} detections exactly once after space returned and a restart`);
  }, 90_000);

  it('the queue database stays full: three failed writes of the status snapshot, then exit 70 (EXIT.QUEUE_UNWRITABLE), the log naming the file', async () => {
    // 2 MiB for an idle agent's database, then not one block left.
    const station = await smallDiskStation(2_048, 0, () => {});
    station.fill();
    // The snapshot is written when what `status` shows changes: a disk.minFreeMb above the
    // free space (none), read again at once (SIGHUP, systemctl reload), makes the disk low.
    const config = JSON.parse(readFileSync(station.configPath, 'utf8')) as { disk: { minFreeMb: number } };
    config.disk.minFreeMb = 1;
    writeFileSync(station.configPath, JSON.stringify(config), { mode: 0o600 });
    process.kill(station.pid, 'SIGHUP');

    // Checked every 10 s: the third failed write comes some 20 s after the first.
    const exit = await outcomeWithin(station.agent.exited, 60_000);
    expect(exit, station.agent.lines.slice(-20).join('\n')).toEqual({ code: EXIT.QUEUE_UNWRITABLE, signal: null });
    const file = path.join(station.dataDir, 'queue.db');
    const logs = station.logs() as { level: string; msg: string; code?: string }[];
    const failed = logs.filter((r) => r.msg.startsWith('cannot write to the queue database'));
    expect(failed.map((r) => [r.level, r.code, r.msg]), station.agent.lines.slice(-20).join('\n')).toEqual(
      Array.from({ length: 3 }, () => ['error', 'SQLITE_FULL', `cannot write to the queue database ${file}: database or disk is full`]),
    );
    expect(logs.at(-1)).toMatchObject({ level: 'fatal', code: 'SQLITE_FULL', msg: `the queue database ${file} stays unwritable (3 failed writes in a row): exiting for a restart` });
    // What it wrote before the disk filled is intact: the restart systemd makes finds a database.
    expect(integrity(station.outDir)).toEqual({ ok: true, problems: [] });
    console.log(`queue database full for good: ${failed.length} failed snapshot writes, exit code ${String((exit as { code: number }).code)}`);
  }, 90_000);

  it('config sync on a full queue database names the file and the code, and waits longer after each failure', async () => {
    // 0.5 s doubling: the waits ([250, 500], [500, 1000], ... ms) stand out from a busy machine's request times.
    const station = await smallDiskStation(2_048, 0, () => {}, 1, { backoffBaseMs: 500, backoffMaxMs: 60_000 });
    await until('the first push stored', () => (station.logs().some((r) => r.msg === 'config sync: station settings pushed') ? true : undefined), 30_000, () =>
      station.agent.lines.slice(-20).join('\n'),
    );
    station.fill();
    // New settings, until the station record the service answers does not fit: the first
    // writes after the fill can still land in the WAL's old frames. Saved as an editor does
    // (a new file renamed over the old one), which the agent notices and reads again.
    type Line = { level: string; msg: string; code?: string; retryInMs?: number; time: string };
    const records = () => station.logs() as Line[];
    const pushed = () => records().filter((r) => r.msg === 'config sync: station settings pushed').length;
    // The failures of the last push: a new push (new settings) starts its backoff afresh.
    const failures = () => {
      const all = records();
      const last = all.findLastIndex((r) => r.msg === 'the station settings changed: pushing them');
      return all.slice(last + 1).filter((r) => r.msg.startsWith('config sync failed'));
    };
    for (const minConfidence of [0.8, 0.85, 0.9, 0.95, 1]) {
      const before = pushed();
      const config = JSON.parse(readFileSync(station.configPath, 'utf8')) as { station: Record<string, unknown> };
      config.station.settings = { minConfidence };
      writeFileSync(`${station.configPath}.tmp`, JSON.stringify(config), { mode: 0o600 });
      renameSync(`${station.configPath}.tmp`, station.configPath);
      await until('the push stored or refused', () => (failures().length > 0 || pushed() > before ? true : undefined), 30_000, () =>
        station.agent.lines.slice(-20).join('\n'),
      );
      if (failures().length > 0) break;
    }

    const N = 5;
    const lines = await until(`${N} failed config syncs`, () => (failures().length >= N ? failures().slice(0, N) : undefined), 30_000, () =>
      station.agent.lines.slice(-20).join('\n'),
    );
    const file = path.join(station.dataDir, 'queue.db');
    expect(lines.map((r) => [r.level, r.code, r.msg])).toEqual(
      Array.from({ length: N }, () => ['warn', 'SQLITE_FULL', `config sync failed, will retry: cannot write to the queue database ${file}: database or disk is full`]),
    );
    // By the lines' own times: each gap is (within the clock's millisecond) at least the wait it announced, and every second gap
    // is longer than the one two before by more than 200 ms (the wait at least doubled, 250 ms or more).
    const gaps = lines.slice(1).map((r, i) => Date.parse(r.time) - Date.parse(lines[i].time));
    const waits = lines.map((r) => r.retryInMs!);
    gaps.forEach((gap, i) => expect(gap, `gaps ${gaps.join(', ')} ms, waits ${waits.join(', ')} ms`).toBeGreaterThanOrEqual(waits[i] - 2));
    for (let i = 1; i < waits.length; i++) expect(waits[i], `waits ${waits.join(', ')} ms`).toBeGreaterThanOrEqual(waits[i - 1]);
    for (let i = 2; i < gaps.length; i++) expect(gaps[i], `gaps ${gaps.join(', ')} ms`).toBeGreaterThan(gaps[i - 2] + 200);
    console.log(`config sync on a full queue database: ${N} failures, gaps ${gaps.join(', ')} ms`);
  }, 90_000);
});
