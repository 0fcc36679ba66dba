import { readFile, stat } from 'node:fs/promises';
import { realPathOfExisting } from './real-path.js';
import { generatedGrant, unitOfStateDir } from './unit-access.js';

/**
 * What the spool costs the card when it cannot hard-link the analyzer's audio, judged from
 * this process's mount namespace (the CLI's, not the unit's): a link needs `input.dir` and
 * the spool (`dataDir`) on one mount, else every recording's audio is copied onto the card
 * (a RAM-disk analyzer folder, another card). The installed unit's `StateDirectory=` under
 * `ProtectSystem=strict` bind-mounts its state directory in the unit's namespace, so there
 * no analyzer folder is on dataDir's mount: the audio is linked only in the near spool
 * (ingest/spool.ts), where the unit may write `input.dir`. What the daemon really did is in
 * its runtime snapshot (`audio`); `doctor` and `status` prefer that, and say this estimate
 * is from outside the daemon.
 */
export interface AudioCopyCost {
  /** The spool copies each recording's audio (no hard link possible). */
  copies: boolean;
  /** Why, in words (null when it links). */
  why: string | null;
  /** How it links, when that is not plain (the installed unit's near spool, from the generator's drop-in); null otherwise. */
  how: string | null;
  /** Audio bytes of a recording: the queue's recent WAVs, or a 15 s 48 kHz mono WAV. */
  bytesPerRecording: number;
  /** `bytesPerRecording` is that estimate, not measured. */
  estimated: boolean;
  /** At one recording every 15 s. */
  bytesPerDay: number;
}

/** The installed unit's state directory (its `StateDirectory=`). */
const UNIT_STATE_DIR = '/var/lib/station-agent';

/** One recording every 15 s, all day. */
export const RECORDINGS_PER_DAY = 5_760;
/** A 15 s, 48 kHz, 16-bit mono WAV with its 44-byte header. */
export const TYPICAL_WAV_BYTES = 15 * 48_000 * 2 + 44;

/**
 * @param measuredBytes the average audio size of the queue's recent recordings, when known
 * @param mountinfo this process's mount table (`/proc/self/mountinfo`), for tests
 */
export async function audioCopyCost(
  inputDir: string,
  dataDir: string,
  measuredBytes: number | null,
  options: { mountinfo?: string; grant?: typeof generatedGrant; /** `input.format` is results: the analyzer keeps its audio. */ analyzerKeepsAudio?: boolean } = {},
): Promise<AudioCopyCost> {
  const bytesPerRecording = measuredBytes && measuredBytes > 0 ? Math.round(measuredBytes) : TYPICAL_WAV_BYTES;
  const found = await whyCopied(inputDir, dataDir, options.mountinfo, options.grant ?? generatedGrant);
  // On one file system, where no link can be made, results mode holds a reference instead (ingest/spool.ts).
  const { why, how } =
    found.why && found.sameFileSystem && options.analyzerKeepsAudio
      ? { why: null, how: `${found.why.replace(/, so the analyzer's audio is copied.*$|: the audio is linked in .*$/, '')}; in results mode the spool holds a reference to the analyzer's own file instead (checked by inode, size and modification time before it is encoded)` }
      : found;
  return {
    copies: why !== null,
    why,
    how,
    bytesPerRecording,
    estimated: !(measuredBytes && measuredBytes > 0),
    bytesPerDay: why === null ? 0 : bytesPerRecording * RECORDINGS_PER_DAY,
  };
}

async function whyCopied(inputDir: string, dataDir: string, given: string | undefined, grant: typeof generatedGrant): Promise<{ why: string | null; how: string | null; sameFileSystem?: boolean }> {
  const [input, data] = await Promise.all([realPathOfExisting(inputDir), realPathOfExisting(dataDir)]);
  let table: string;
  try {
    table = given ?? (await readFile('/proc/self/mountinfo', 'utf8'));
  } catch {
    return { why: null, how: null }; // not Linux: nothing to say
  }
  const mounts = parseMountinfo(table);
  const a = mountOf(mounts, input);
  const b = mountOf(mounts, data);
  if (a && b && a.id !== b.id) {
    const ram = a.fsType === 'tmpfs' || a.fsType === 'ramfs';
    return { why: `input.dir ${inputDir} is on ${ram ? 'a RAM disk' : 'another mount'} (${a.point}, ${a.fsType}) than dataDir ${dataDir} (${b.point})`, how: null, sameFileSystem: a.dev === b.dev };
  }
  // The installed unit (systemd/station-agent.service): in its namespace the state
  // directory /var/lib/station-agent is a mount of its own (StateDirectory= under
  // ProtectSystem=strict), /home another (ProtectHome=read-only). The package's generator
  // lets the unit write input.dir (system/unit-access.ts), where the near spool then is.
  const owners = await hardLinkOwners(input, data);
  if (owners) return { why: owners, how: null, sameFileSystem: true };
  if (isUnder(data, UNIT_STATE_DIR) && !isUnder(input, data)) {
    const apart = `under the installed unit, dataDir ${dataDir} is a mount of its own (StateDirectory= under ProtectSystem=strict), apart from input.dir ${inputDir}`;
    const unit = unitOfStateDir(data);
    const given = unit ? grant(unit) : { folders: [], why: `${dataDir} is no unit's state directory` };
    if (given.folders.some((f) => f === inputDir || f === input)) {
      return {
        why: null,
        how: `${apart}; the package's generated drop-in lets ${unit} write input.dir, so the audio is linked in ${inputDir}/.station-agent-spool (where the agent's user may write input.dir and link the analyzer's files: its own files, or with fs.protected_hardlinks 0)`,
      };
    }
    const stale = given.folders.length > 0 ? `the generated drop-in lets ${unit} write ${given.folders.join(', ')}, not input.dir (the config changed since the last systemctl daemon-reload)` : given.why;
    return { why: `${apart}: the audio is linked in ${inputDir}/.station-agent-spool only where the unit may write input.dir (ReadWritePaths=), else copied; ${stale}`, how: null, sameFileSystem: true };
  }
  return { why: null, how: null };
}

interface Mount {
  id: string;
  /** major:minor of the file system (a bind mount's is its source's). */
  dev: string;
  point: string;
  fsType: string;
}

function parseMountinfo(table: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of table.split('\n')) {
    const fields = line.split(' ');
    const dash = fields.indexOf('-');
    if (fields.length < 5 || dash < 0) continue;
    // Octal escapes (\040 for a space) in mount points.
    const point = fields[4].replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    mounts.push({ id: fields[0], dev: fields[2], point, fsType: fields[dash + 1] ?? '' });
  }
  return mounts;
}

/** The mount a path is on: the last-listed mount whose point is its longest prefix. */
function mountOf(mounts: Mount[], file: string): Mount | undefined {
  let best: Mount | undefined;
  for (const m of mounts) {
    if (isUnder(file, m.point) && (!best || m.point.length >= best.point.length)) best = m;
  }
  return best;
}

function isUnder(file: string, dir: string): boolean {
  return dir === '/' || file === dir || file.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/**
 * Why the agent's user may not hard-link the analyzer's files, or null: with
 * fs.protected_hardlinks 1 (Debian's default) a user links only files it owns or may write,
 * and the agent runs as dataDir's owner (the unit's User=). Judged by the folders' owners.
 */
async function hardLinkOwners(input: string, data: string): Promise<string | null> {
  const [protectedLinks, a, b] = await Promise.all([
    readFile('/proc/sys/fs/protected_hardlinks', 'utf8').then((t) => t.trim(), () => null),
    stat(input).catch(() => null),
    stat(data).catch(() => null),
  ]);
  if (protectedLinks !== '1' || !a || !b || a.uid === b.uid || b.uid === 0) return null;
  return `the agent's user (uid ${b.uid}, dataDir's owner) is not the owner of input.dir (uid ${a.uid}), and fs.protected_hardlinks is 1: it may hard-link only files it owns or may write, so the analyzer's audio is copied (run the agent as the analyzer's user: User= in a drop-in, docs/INSTALL.md)`;
}
