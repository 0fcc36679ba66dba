/**
 * The package's systemd generator (/lib/systemd/system-generators/station-agent-generator,
 * packaging/debian/station-agent-generator): gives each installed unit write access to its
 * config's `input.dir` (and `input.moveTo` with `input.afterUpload: move`), as a drop-in
 * `ReadWritePaths=-DIR` written under the generator's folder at every boot and every
 * `systemctl daemon-reload` (the package's postinst reloads).
 *
 * Why: in the unit's mount namespace `StateDirectory=` under `ProtectSystem=strict`
 * bind-mounts dataDir, so a hard link from the analyzer's folder into the spool fails with
 * EXDEV although both are on one file system; the spool then links the audio in
 * `input.dir/.station-agent-spool` (src/ingest/spool.ts), which needs `input.dir` writable
 * to the agent. A unit file cannot know `input.dir`; the config does. `ReadWritePaths=` adds
 * no exposure (`systemd-analyze security` stays 1.2). An operator who wants the analyzer's
 * folder read-only masks the drop-in by its name (an empty file of the same name in
 * /etc/systemd/system/station-agent.service.d/): the agent then copies each WAV, and doctor
 * says so.
 *
 * Only Node's built-ins, read without the config's validator: a generator runs at boot,
 * before most of the system, and must be quick and never fail the boot. A config that
 * cannot be read, or whose folders are not absolute or are system folders, gets no drop-in
 * (the daemon itself then refuses the config or copies, and says so).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The drop-in's file name: the same name in /etc/systemd/system/<unit>.d/ masks it. */
export const INPUT_DROP_IN = '50-station-agent-input.conf';

/** Folders never opened to the agent (bin/install --input-writable refuses the same). */
const SYSTEM_FOLDERS = new Set(['/', '/bin', '/boot', '/dev', '/etc', '/home', '/lib', '/opt', '/proc', '/root', '/run', '/sbin', '/sys', '/tmp', '/usr', '/var', '/var/lib']);

/** The unit a config file in the configuration directory belongs to (station-agent.service's is config.json), or null. */
function unitOfConfig(file: string): string | null {
  if (file === 'config.json') return 'station-agent.service';
  // station-agent@NAME reads %i.json, %i being the instance as the unit's name writes it; the
  // names bin/install accepts for --station (letters, digits, '_', '.', '-') need no escaping.
  const m = /^([A-Za-z0-9][A-Za-z0-9_.-]*)\.json$/.exec(file);
  return m ? `station-agent@${m[1]}.service` : null;
}

/** The folders a config's agent writes outside its state directory; `problems` says what was left out and why. */
function writableFolders(config: unknown, problems: string[]): string[] {
  const input = (config as { input?: { dir?: unknown; afterUpload?: unknown; moveTo?: unknown } } | null)?.input;
  if (!input || typeof input !== 'object') return [];
  const wanted = [input.dir, ...(input.afterUpload === 'move' ? [input.moveTo] : [])];
  const folders: string[] = [];
  for (const dir of wanted) {
    if (typeof dir !== 'string') continue;
    const normal = path.posix.normalize(dir).replace(/(.)\/+$/, '$1');
    if (!path.posix.isAbsolute(dir) || [...dir].some((c) => c < ' ' || c === '\x7f')) problems.push(`${JSON.stringify(dir)} is not an absolute path of printable characters`);
    else if (SYSTEM_FOLDERS.has(normal)) problems.push(`${normal} is a system folder: not opened to the agent`);
    else if (!folders.includes(normal)) folders.push(normal);
  }
  return folders;
}

/** One `ReadWritePaths=` value, quoted as a unit file reads it (C escapes, `%` specifiers); `-`: a folder not there yet is no error. */
function readWritePathsLine(dir: string): string {
  return `ReadWritePaths="-${dir.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%')}"`;
}

function dropInText(configFile: string, folders: readonly string[]): string {
  return (
    `# Written by station-agent's generator from ${configFile} at boot and at every\n` +
    `# systemctl daemon-reload: the agent may write its input folders (input.dir: the spool\n` +
    `# links the audio in input.dir/.station-agent-spool instead of copying it onto the card).\n` +
    `# To keep them read-only, mask this file with an empty one of the same name in\n` +
    `# /etc/systemd/system/<unit>.d/ (docs/INSTALL.md).\n` +
    `[Service]\n${folders.map(readWritePathsLine).join('\n')}\n`
  );
}

/**
 * Writes a drop-in for every config in `configDir` that names input folders into `outDir`
 * (the generator's normal folder). Returns what was left out, one line each, for stderr.
 */
export function generateDropIns(configDir: string, outDir: string): string[] {
  const said: string[] = [];
  let files: string[];
  try {
    files = readdirSync(configDir);
  } catch {
    return said;
  }
  for (const file of files.sort()) {
    const unit = unitOfConfig(file);
    if (!unit) continue;
    const configFile = path.join(configDir, file);
    let config: unknown;
    try {
      config = JSON.parse(readFileSync(configFile, 'utf8'));
    } catch (err) {
      said.push(`${configFile}: not read (${(err as Error).message}); ${unit} gets no write access to input.dir`);
      continue;
    }
    const problems: string[] = [];
    const folders = writableFolders(config, problems);
    for (const p of problems) said.push(`${configFile}: ${p}`);
    if (folders.length === 0) continue;
    const dir = path.join(outDir, `${unit}.d`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, INPUT_DROP_IN), dropInText(configFile, folders));
  }
  return said;
}

/** The generator's entry: `station-agent-generator NORMAL_DIR [EARLY_DIR LATE_DIR]`. Never fails the boot. */
export function main(argv: readonly string[], configDir = '/etc/station-agent'): number {
  const outDir = argv[0];
  if (!outDir) {
    process.stderr.write('usage: station-agent-generator NORMAL_DIR [EARLY_DIR LATE_DIR]\n');
    return 2;
  }
  try {
    for (const line of generateDropIns(configDir, outDir)) process.stderr.write(`station-agent-generator: ${line}\n`);
  } catch (err) {
    process.stderr.write(`station-agent-generator: ${(err as Error).message}\n`);
  }
  return 0;
}

/** The generator's folder, where systemd reads what it wrote. */
const GENERATOR_DIR = '/run/systemd/generator';
/** Where an operator's drop-in of the same name masks the generated one. */
const ETC_UNITS_DIR = '/etc/systemd/system';

/** The installed unit whose state directory `dataDir` is (`StateDirectory=station-agent`, `station-agent/%i`), or null. */
export function unitOfStateDir(dataDir: string): string | null {
  const m = /^\/var\/lib\/station-agent(?:\/([A-Za-z0-9][A-Za-z0-9_.-]*))?\/?$/.exec(dataDir);
  if (!m) return null;
  return m[1] ? `station-agent@${m[1]}.service` : 'station-agent.service';
}

/**
 * The folders the generator let `unit` write at the last boot or daemon-reload (what its
 * drop-in says), or why none: not generated, or masked by the operator's file of the same name.
 */
export function generatedGrant(unit: string, dirs = { generator: GENERATOR_DIR, etc: ETC_UNITS_DIR }): { folders: string[]; why: string | null } {
  const masked = path.join(dirs.etc, `${unit}.d`, INPUT_DROP_IN);
  try {
    readFileSync(masked);
    return { folders: [], why: `${masked} masks the package's generated drop-in` };
  } catch {
    // not masked
  }
  const file = path.join(dirs.generator, `${unit}.d`, INPUT_DROP_IN);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { folders: [], why: `no ${file} (the package's generator writes it at boot and at systemctl daemon-reload from the config's input.dir)` };
  }
  const folders: string[] = [];
  for (const m of text.matchAll(/^ReadWritePaths="-((?:[^"\\]|\\.)*)"$/gm)) folders.push(m[1].replace(/\\(.)/g, '$1').replace(/%%/g, '%'));
  return { folders, why: null };
}
