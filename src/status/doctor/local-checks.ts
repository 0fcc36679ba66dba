import { constants } from 'node:fs';
import { access, mkdir, open, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config/index.js';
import { errorMessage } from '../../errors.js';
import type { ClockSyncState } from '../../system/clock.js';
import { freeBytesNear, isDiskGettingLow, isDiskLow, minFreeBytes, ramDataDirWarning, ramFileSystemNear } from '../../system/disk.js';
import type { AudioTakeCounts } from '../../ingest/spool.js';
import { RECORDINGS_PER_DAY } from '../../system/audio-copy-cost.js';
import { queueDbPath, queueExists } from '../queue-file.js';
import { scanInput, total, type InputScan } from './input-scan.js';
import { result, type CheckResult } from './types.js';

/** The checks of `doctor` that need no network: the station's own files, disk, clock, encoder. */

const MIB = 1024 * 1024;

/**
 * Fails exactly when the daemon holds uploads for the clock: both ask
 * `system/clock-gate.ts`. `probe` replaces the system's answer (tests).
 */
export async function clockCheck(config: Config, probe?: () => Promise<ClockSyncState>): Promise<CheckResult> {
  const [{ clockSyncState }, { clockHold }] = await Promise.all([import('../../system/clock.js'), import('../../system/clock-gate.js')]);
  const state = await (probe ?? clockSyncState)();
  const title = 'clock synchronised';
  if (state === 'synchronized') return result('clock', title, 'pass', 'the system reports NTP synchronisation');
  const ntpHint = 'check the network and NTP: `timedatectl status`, `timedatectl set-ntp true`; a Pi has no real-time clock, so its time is wrong until NTP syncs';
  const mode = config.clock.requireSync;
  if (clockHold(mode, state)) {
    if (state === 'unknown') {
      return result('clock', title, 'fail', 'the system cannot say whether the clock is synchronised, and clock.requireSync is always: uploads wait', 'install systemd-timesyncd or chrony, or set clock.requireSync to auto');
    }
    return result('clock', title, 'fail', 'the system clock is not synchronised; uploads wait for it (clock.requireSync)', ntpHint);
  }
  if (state === 'unknown') {
    return result('clock', title, 'warn', 'the system cannot say (no systemd-timesyncd flag, timedatectl unavailable)', 'in a container this is normal; on a Raspberry Pi install systemd-timesyncd or chrony so the clock is set after boot');
  }
  return result('clock', title, 'warn', 'the system clock is not synchronised', ntpHint);
}

export interface InputChecks {
  input: CheckResult;
  labels: CheckResult;
  inotify: CheckResult;
}

export async function inputChecks(config: Config): Promise<InputChecks> {
  const dir = config.input.dir;
  let scan: InputScan;
  try {
    scan = await scanInput(dir);
  } catch (err) {
    const input = result('input', 'input folder readable', 'fail', `${dir}: ${describeFsError(err)}`, 'set input.dir to the analyzer\'s output folder and make it readable by the agent\'s user (`ls -ld` the folder)');
    const skipped = (id: string, title: string) => result(id, title, 'skip', 'the input folder could not be read');
    return { input, labels: skipped('labels', 'labels file'), inotify: skipped('inotify', 'inotify watch limit') };
  }
  return { input: inputResult(config, scan), labels: await labelsCheck(config, scan), inotify: await inotifyCheck(scan) };
}

function inputResult(config: Config, scan: InputScan): CheckResult {
  const audio = total(scan.audio);
  const results = total(scan.results);
  const parts = [
    `${audio} audio (${describe(scan.audio)})`,
    `${results} result files (${describe(scan.results)})`,
    `${scan.analyzerpiJson} analyzerpi JSON`,
    `${scan.other} other`,
    `${scan.folders} folders`,
  ];
  const detail = `${scan.dir}: ${parts.join(', ')}`;
  const data = { ...scan };
  const title = 'input folder readable and recognised';
  if (scan.unreadable.length) {
    return result('input', title, 'fail', `${detail}; unreadable: ${scan.unreadable.join(', ')}`, 'make every subfolder readable by the agent\'s user', data);
  }
  const format = config.input.format;
  if (format === 'analyzerpi' && results > 0 && scan.analyzerpiJson === 0) {
    return result('input', title, 'fail', `${detail}; input.format is analyzerpi but only analyzer result files are there`, 'set input.format to results (or auto)', data);
  }
  if (format === 'results' && scan.analyzerpiJson > 0 && results === 0) {
    return result('input', title, 'fail', `${detail}; input.format is results but only analyzerpi JSON files are there`, 'set input.format to analyzerpi (or auto)', data);
  }
  if (audio + results + scan.analyzerpiJson === 0) {
    return result('input', title, 'warn', `${detail}; nothing recognised yet`, 'check that input.dir is the folder the analyzer writes to, and that the analyzer runs', data);
  }
  return result('input', title, 'pass', detail, null, data);
}

async function labelsCheck(config: Config, scan: InputScan): Promise<CheckResult> {
  const title = 'labels file found';
  const needed = config.input.format === 'analyzerpi' || scan.analyzerpiJson > 0;
  const file = config.input.labels;
  if (!file) {
    if (needed) {
      return result('labels', title, 'fail', 'analyzerpi output names species by common name only, and input.labels is not set', 'set input.labels to the analyzer\'s labels file (lines "Scientific name_Common name"), e.g. .../model/labels.txt');
    }
    if ((scan.results.raven ?? 0) > 0) {
      return result('labels', title, 'warn', 'input.labels is not set; Raven selection tables of older analyzer versions name species by common name only', 'set input.labels to the analyzer\'s labels file so those detections can be resolved');
    }
    return result('labels', title, 'skip', 'not needed for this input (no analyzerpi output)');
  }
  try {
    const [{ Labels }, { describeUnknownName, unknownConfigNames }] = await Promise.all([import('../../ingest/labels.js'), import('../../policy/name-check.js')]);
    const labels = await Labels.load(file, config.input.localizedLabels ?? undefined);
    const found = `${file}: ${labels.size} species${config.input.localizedLabels ? `, localised: ${config.input.localizedLabels}` : ''}`;
    const unknown = unknownConfigNames(config, labels);
    if (unknown.length > 0) {
      return result('labels', title, 'warn', `${found}; ${unknown.map(describeUnknownName).join('; ')}`, 'correct each name to the labels file\'s spelling (a scientific name, a common name, or the whole line)', { unknownNames: unknown });
    }
    return result('labels', title, 'pass', found);
  } catch (err) {
    return result('labels', title, 'fail', errorMessage(err), 'point input.labels at the analyzer\'s labels file, readable by the agent\'s user');
  }
}

async function inotifyCheck(scan: InputScan): Promise<CheckResult> {
  const { inotifyMaxUserWatches } = await import('../../system/inotify.js');
  const limit = await inotifyMaxUserWatches();
  const title = 'inotify watch limit';
  const data = { limit, folders: scan.folders };
  if (limit === null) return result('inotify', title, 'skip', 'the limit cannot be read here (not Linux?); the periodic rescan still finds new files', null, data);
  const detail = `${scan.folders} folders to watch, limit ${limit} per user`;
  const hint = `raise it: echo fs.inotify.max_user_watches=${Math.max(limit * 2, scan.folders * 2)} | sudo tee /etc/sysctl.d/60-station-agent.conf && sudo sysctl --system`;
  if (scan.folders > limit) return result('inotify', title, 'fail', `${detail}: new files are found only by the periodic rescan`, hint, data);
  if (scan.folders > limit * 0.8) return result('inotify', title, 'warn', `${detail}: close to the limit (other programs use watches too)`, hint, data);
  return result('inotify', title, 'pass', detail, null, data);
}

/** dataDir is writable (a file written, synced and removed there), or can be created; and not in RAM. */
export async function spoolCheck(config: Config): Promise<CheckResult> {
  const writable = await spoolWritable(config);
  if (writable.status !== 'pass') return writable;
  const ram = await ramFileSystemNear(config.dataDir);
  if (!ram) return writable;
  return result('spool', writable.title, 'warn', ramDataDirWarning(config.dataDir, ram), 'set dataDir to a folder on the card (the default /var/lib/station-agent)');
}

async function spoolWritable(config: Config): Promise<CheckResult> {
  const dir = config.dataDir;
  const title = 'spool writable (dataDir)';
  const hint = `create it for the agent's user (User= of its systemd unit, e.g. pi): sudo install -d -o pi -g pi ${dir}`;
  try {
    const s = await stat(dir);
    if (!s.isDirectory()) return result('spool', title, 'fail', `${dir} is not a folder`, 'set dataDir to a folder');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return result('spool', title, 'fail', `${dir}: ${describeFsError(err)}`, hint);
    const parent = await nearestExisting(path.dirname(dir));
    try {
      await access(parent, constants.W_OK);
      return result('spool', title, 'pass', `${dir} does not exist yet; ${parent} is writable, the agent creates it`);
    } catch {
      return result('spool', title, 'fail', `${dir} does not exist and ${parent} is not writable by this user`, hint);
    }
  }
  const probe = path.join(dir, `.doctor-${process.pid}`);
  try {
    await mkdir(dir, { recursive: true });
    const handle = await open(probe, 'w');
    try {
      await handle.writeFile('station-agent doctor\n');
      await handle.sync();
    } finally {
      await handle.close();
    }
    return result('spool', title, 'pass', `${dir}: a file was written and synced`);
  } catch (err) {
    return result('spool', title, 'fail', `${dir}: ${describeFsError(err)}`, `${hint}; run doctor as the agent's user (sudo -u pi station-agent doctor)`);
  } finally {
    await rm(probe, { force: true });
  }
}

/** The queue database opens and passes SQLite's integrity check; fine when not created yet. */
export async function queueCheck(config: Config): Promise<CheckResult> {
  const file = queueDbPath(config.dataDir);
  const title = 'queue database';
  try {
    await stat(file);
  } catch {
    return result('queue', title, 'pass', `${file} not created yet (the daemon creates it)`);
  }
  try {
    const { openQueue, queueCounts } = await import('../../queue/index.js');
    const q = openQueue(file);
    try {
      const integrity = q.integrityCheck();
      if (!integrity.ok) {
        return result('queue', title, 'fail', `${file}: ${integrity.problems.slice(0, 3).join('; ')}`, 'stop the agent, move the file aside (it is kept for diagnosis) and start again with an empty queue');
      }
      const counts = queueCounts(q);
      const waiting = counts.recordings.pending + counts.detections.pending + counts.recordings.unknown + counts.detections.unknown;
      const failed = counts.recordings.failed + counts.detections.failed;
      const detail = `${file}: intact; ${waiting} waiting, ${failed} failed`;
      if (failed > 0) return result('queue', title, 'warn', detail, 'look at them with `station-agent queue list --state failed`; retry with `queue retry --failed` once the cause is fixed');
      return result('queue', title, 'pass', detail);
    } finally {
      q.close();
    }
  } catch (err) {
    return result('queue', title, 'fail', errorMessage(err), 'check dataDir and the file\'s owner; a damaged file can be moved aside');
  }
}

/**
 * Whether the spool copies each recording's audio onto the card, and what that costs a day.
 * What the running daemon did (its runtime snapshot: links and copies counted where it runs,
 * in its own mount namespace) decides; without a running daemon that has taken audio, the
 * mounts as this command sees them, said to be measured from outside the daemon.
 */
export async function audioCopyCheck(config: Config): Promise<CheckResult> {
  const title = 'audio taken without a copy';
  const live = await runningDaemonAudio(config);
  if (live && live.audio.linked + live.audio.referenced + live.audio.copied > 0) return daemonAudioResult(config, live.pid, live.audio);
  const { audioCopyCost } = await import('../../system/audio-copy-cost.js');
  const cost = await audioCopyCost(config.input.dir, config.dataDir, null, { analyzerKeepsAudio: config.input.format === 'results' });
  const outside = live
    ? `measured from outside the daemon (pid ${live.pid} has taken no audio since its start)`
    : 'measured from outside the daemon (none running), in the mounts this command sees';
  const data = { ...cost, measured: 'outside' };
  if (!cost.copies) {
    return result('audio-copy', title, 'pass', `${outside}: ${cost.how ?? "input.dir and dataDir are on one mount: the spool hard-links the analyzer's audio"} (nothing written)`, null, data);
  }
  const perDay = `${gb(cost.bytesPerDay)} a day (${(cost.bytesPerRecording / 1e6).toFixed(2)} MB per recording${cost.estimated ? ', a 15 s 48 kHz WAV' : ''}, ${RECORDINGS_PER_DAY} recordings)`;
  if (config.input.ramDiskAudio === 'keep') {
    return result(
      'audio-copy',
      title,
      'pass',
      `${outside}: ${cost.why}: input.ramDiskAudio is keep: each recording's audio waits for its upload there (${config.input.dir}/.station-agent-spool), nothing written to the card; a power cut loses the soundscapes not yet uploaded, never their detections. While that file system is less than half free, audio is copied onto the card (about ${perDay} if it always were)`,
      null,
      { ...data, ramDiskAudio: 'keep' },
    );
  }
  return result(
    'audio-copy',
    title,
    'warn',
    `${outside}: ${cost.why}: input.ramDiskAudio is copy: each recording's audio is copied onto the card before its upload, about ${perDay}`,
    copyHint(config, cost.why ?? ''),
    { ...data, ramDiskAudio: 'copy' },
  );
}

function gb(bytes: number): string {
  return `${(bytes / 1e9).toFixed(1)} GB`;
}

function daemonAudioResult(config: Config, pid: number, audio: AudioTakeCounts): CheckResult {
  const title = 'audio taken without a copy';
  const taken = audio.linked + audio.referenced + audio.copied;
  const data = { measured: 'daemon', pid, ...audio, ramDiskAudio: config.input.ramDiskAudio };
  const where = audio.nearDir ? ` (in ${audio.nearDir}, on input.dir's mount)` : '';
  if (audio.copied === 0) {
    const how =
      audio.referenced === 0
        ? `hard-linked all ${taken} audio files it took since its start${where}`
        : `took ${taken} audio files since its start without a copy: ${audio.referenced} held by reference to the analyzer's own file (results mode: checked by inode, size and modification time before it is encoded), ${audio.linked} hard-linked${where}`;
    return result('audio-copy', title, 'pass', `the running daemon (pid ${pid}) ${how}: no audio written to the card`, null, data);
  }
  const per = audio.copiedBytes / audio.copied;
  return result(
    'audio-copy',
    title,
    'warn',
    `the running daemon (pid ${pid}) copied ${audio.copied} of ${taken} audio files onto the card since its start, ${(audio.copiedBytes / 1e6).toFixed(1)} MB (${(per / 1e6).toFixed(2)} MB each, about ${gb(per * RECORDINGS_PER_DAY)} a day at ${RECORDINGS_PER_DAY} recordings): ${audio.lastCopyWhy ?? 'no reason recorded'}`,
    copyHint(config, audio.lastCopyWhy ?? ''),
    data,
  );
}

function copyHint(config: Config, why: string): string {
  if (/protected_hardlinks/.test(why)) {
    return 'run the agent as the analyzer\'s user (a drop-in, sudo systemctl edit station-agent: [Service] User= and Group= of the analyzer), so that it may link the analyzer\'s files; then restart it (docs/INSTALL.md, "What a day costs the SD card")';
  }
  if (/near spool .* cannot be made|ReadWritePaths/.test(why)) {
    return `let the agent write input.dir, where it links the audio in a hidden folder: the package's generator gives the installed unit ReadWritePaths=-${config.input.dir} at every systemctl daemon-reload (after input.dir changed: sudo systemctl daemon-reload && sudo systemctl restart station-agent), and the agent's user must be allowed to write that folder; from a clone, bin/install --input-writable ${config.input.dir} (docs/INSTALL.md, "What a day costs the SD card")`;
  }
  return 'set input.ramDiskAudio to keep to leave the audio on that file system until its upload (a power cut then loses the soundscapes of the last minutes, never the detections), or put the analyzer\'s folder and dataDir on one file system (docs/INSTALL.md, "An analyzer folder on a RAM disk")';
}

/** The running daemon's record of how it took the audio (its runtime snapshot), or null when no daemon runs on this queue. */
async function runningDaemonAudio(config: Config): Promise<{ pid: number; audio: AudioTakeCounts } | null> {
  if (!queueExists(config.dataDir)) return null;
  try {
    const [{ openQueue }, { getMeta }, { RUNTIME_META_KEY, daemonLiveness, parseRuntimeSnapshot }] = await Promise.all([
      import('../../queue/db.js'),
      import('../../queue/meta.js'),
      import('../../runtime/snapshot.js'),
    ]);
    const q = openQueue(queueDbPath(config.dataDir));
    try {
      const snapshot = parseRuntimeSnapshot(getMeta(q, RUNTIME_META_KEY));
      if (!snapshot || daemonLiveness(snapshot).state !== 'running') return null;
      return { pid: snapshot.pid, audio: snapshot.audio ?? { linked: 0, referenced: 0, copied: 0, copiedBytes: 0, lastCopyWhy: null, lastCopyAt: null, nearDir: null } };
    } finally {
      q.close();
    }
  } catch {
    return null; // the queue check says what is wrong with the file
  }
}

export async function diskCheck(config: Config): Promise<CheckResult> {
  const free = await freeBytesNear(config.dataDir);
  const min = minFreeBytes(config.disk.minFreeMb);
  const title = 'free disk space';
  const data = { freeBytes: free, minFreeBytes: min };
  if (free === null) return result('disk', title, 'fail', `cannot read the free space of ${config.dataDir}`, 'check that dataDir is on a mounted file system', data);
  const detail = `${(free / MIB).toFixed(0)} MiB free on ${config.dataDir} (disk.minFreeMb ${config.disk.minFreeMb})`;
  const hint = 'free space on the card (old recordings of the analyzer, journal: `journalctl --vacuum-size=100M`), or lower retention.keepUploadedDays';
  if (isDiskLow(free, config.disk.minFreeMb)) return result('disk', title, 'fail', `${detail}: no audio is spooled until space is freed; detections still queue`, hint, data);
  if (isDiskGettingLow(free, config.disk.minFreeMb)) return result('disk', title, 'warn', `${detail}: getting low`, hint, data);
  return result('disk', title, 'pass', detail, null, data);
}

export async function flacCheck(config: Config): Promise<CheckResult> {
  const { checkFlacEncoder } = await import('../../audio/flac-check.js');
  const choice = config.upload.flacEncoder;
  const check = await checkFlacEncoder({ engine: choice });
  const title = 'FLAC encoder working';
  const data = { flacEncoder: choice, engine: check.engine };
  if (!check.ok) {
    const hint = choice === 'native' || choice === 'program'
      ? 'install the flac program (sudo apt-get install flac) or set upload.flacEncoder to "auto"; without an encoder soundscapes are not uploaded, detections still are'
      : 'reinstall the package (npm ci) so libflacjs is complete; without an encoder soundscapes are not uploaded, detections still are';
    return result('flac', title, 'fail', `upload.flacEncoder ${choice}, ${check.engine}: ${check.detail ?? 'failed'}`, hint, data);
  }
  const native = /\(flac program\)$|\(flac-bindings, in-process\)$/.test(check.engine);
  const detail = `encoded and verified a test tone with ${check.engine} (upload.flacEncoder ${choice})`;
  if (choice === 'auto' && !native) {
    return result('flac', title, 'pass', `${detail}; neither libFLAC's addon nor the flac program is installed (sudo apt-get install flac: native libFLAC spends far less CPU)`, null, data);
  }
  return result('flac', title, 'pass', detail, null, data);
}

async function nearestExisting(dir: string): Promise<string> {
  let current = dir;
  for (;;) {
    try {
      await stat(current);
      return current;
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return current;
      current = parent;
    }
  }
}

function describe(counts: Record<string, number>): string {
  const entries = Object.entries(counts).filter(([, n]) => n > 0);
  return entries.length ? entries.map(([k, n]) => `${k} ${n}`).join(', ') : 'none';
}

function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied for this user';
  if (code === 'ENOTDIR') return 'is not a folder';
  return errorMessage(err);
}
