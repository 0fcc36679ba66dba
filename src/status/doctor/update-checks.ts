import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ENDING_WITHIN_DAYS, runtimeSupport } from '../../system/runtime-support.js';
import { result, type CheckResult } from './types.js';

/**
 * doctor's checks of what the station runs: whether its Node.js still gets security fixes
 * (system/runtime-support.ts), and whether the apt source it was installed from offers a
 * newer station-agent. The latter reads apt's own cache (`apt-cache policy`, what the last
 * `apt update` fetched; unattended-upgrades runs that daily) and never opens a connection:
 * a station on a metered link pays for no check, and doctor says how old that cache is.
 */

const run = promisify(execFile);
const PACKAGE = 'station-agent';
/** apt's lists older than this make "no newer version" an old answer. */
const STALE_LISTS_DAYS = 14;
const DAY_MS = 86_400_000;

export function runtimeCheck(now: number = Date.now()): CheckResult {
  const s = runtimeSupport(process.versions.node, now);
  const title = 'runtime supported';
  const data = { node: s.version, endOfLife: s.line?.endOfLife ?? null, daysLeft: s.daysLeft };
  const hint = 'upgrade station-agent (sudo apt update && sudo apt upgrade station-agent): each release brings a supported Node.js of its own';
  if (s.state === 'unknown') {
    return result('runtime', title, 'warn', `Node.js ${s.version}: a release line this agent does not know the end of life of`, 'run the Node.js line the package ships (docs/INSTALL.md)', data);
  }
  const line = `Node.js ${s.version} (${s.line!.lts ? 'LTS ' : ''}line ${s.major}, end of life ${s.line!.endOfLife})`;
  if (s.state === 'ended') return result('runtime', title, 'warn', `${line}: past its end of life, ${-s.daysLeft!} days ago: no more security fixes`, hint, data);
  if (s.state === 'ending') return result('runtime', title, 'warn', `${line}: ends in ${s.daysLeft} days (under ${ENDING_WITHIN_DAYS})`, hint, data);
  return result('runtime', title, 'pass', `${line}: ${s.daysLeft} days left`, null, data);
}

interface AptPolicy {
  installed: string | null;
  candidate: string | null;
  /** The sources (apt's lines, e.g. `500 https://host/repo stable/main arm64 Packages`) of the candidate. */
  candidateSources: string[];
  /** Whether any source other than dpkg's status offers the package at all. */
  offered: boolean;
}

/** `apt-cache policy station-agent`, LC_ALL=C. */
function parseAptPolicy(text: string): AptPolicy | null {
  const field = (name: string) => new RegExp(`^\\s+${name}:\\s*(\\S+)`, 'm').exec(text)?.[1] ?? null;
  const installed = field('Installed');
  const candidate = field('Candidate');
  if (installed === null && candidate === null) return null;
  const none = (v: string | null) => (v === '(none)' ? null : v);
  const sources = new Map<string, string[]>();
  let current: string[] | null = null;
  const table = text.slice(text.indexOf('Version table:'));
  for (const line of table.split('\n').slice(1)) {
    const version = /^\s(?:\*\*\*|\s{3})\s(\S+)\s+-?\d+$/.exec(line);
    if (version) sources.set(version[1], (current = []));
    else if (current && line.trim()) current.push(line.trim());
  }
  // A source's line is `PRIORITY URI SUITE[/COMPONENT ARCH] Packages`; dpkg's status is `100 FILE`.
  const offeredBy = (lines: string[]) => lines.filter((l) => l.split(/\s+/).length > 2);
  return {
    installed: none(installed),
    candidate: none(candidate),
    candidateSources: offeredBy(sources.get(candidate ?? '') ?? []),
    offered: [...sources.values()].some((lines) => offeredBy(lines).length > 0),
  };
}

/** The newest file in apt's lists (Dir::State::lists): when apt last fetched them. */
async function listsUpdatedAt(env: NodeJS.ProcessEnv): Promise<number | null> {
  try {
    const { stdout } = await run('apt-config', ['shell', 'D', 'Dir::State::lists/d'], { env, timeout: 10_000 });
    const dir = /^D='(.*)'$/m.exec(stdout)?.[1];
    if (!dir) return null;
    let newest: number | null = null;
    for (const name of await readdir(dir)) {
      if (name === 'lock' || name === 'partial' || name === 'auxfiles') continue;
      const { mtimeMs } = await stat(path.join(dir, name));
      newest = Math.max(newest ?? 0, mtimeMs);
    }
    return newest;
  } catch {
    return null;
  }
}

export async function updateCheck(now: number = Date.now()): Promise<CheckResult> {
  const title = 'newest version installed';
  const env = { ...process.env, LC_ALL: 'C' };
  // dpkg's own record first (one small read): apt-cache, which reads every list apt has, runs
  // only where the package is installed.
  const installed = await installedPackage(env);
  if (installed === 'no-apt') return result('update', title, 'skip', 'no apt on this system (apt-config not found)');
  if (!installed) return result('update', title, 'skip', 'station-agent is not installed from a Debian package here (a clone\'s bin/install, or another system)');
  let text: string;
  try {
    text = (await run('apt-cache', ['policy', PACKAGE], { env, timeout: 60_000 })).stdout;
  } catch (err) {
    return result('update', title, 'skip', `apt-cache policy failed: ${(err as Error).message.split('\n')[0]}`);
  }
  const policy = parseAptPolicy(text) ?? { installed: installed.version, candidate: null, candidateSources: [], offered: false };
  const listsAt = await listsUpdatedAt(env);
  const age = listsAt === null ? null : Math.floor((now - listsAt) / DAY_MS);
  const asOf = listsAt === null ? 'apt\'s cache' : `apt's cache of ${new Date(listsAt).toISOString().slice(0, 10)}`;
  const data = { installed: installed.version, candidate: policy.candidate, sources: policy.candidateSources, listsUpdatedAt: listsAt === null ? null : new Date(listsAt).toISOString() };
  if (!policy.offered) {
    return result('update', title, 'warn', `${installed.version} installed; no apt source offers station-agent (${asOf}): it gets no updates`, 'add the station-agent apt repository (docs/INSTALL.md, "1. Add the repository"), then sudo apt update', data);
  }
  // apt never makes an older version the candidate (unless pinned above 1000): a different one is newer.
  if (policy.candidate && policy.candidate !== installed.version) {
    const { held } = installed;
    const from = policy.candidateSources[0]?.replace(/^-?\d+\s+/, '') ?? 'an apt source';
    return result(
      'update',
      title,
      'warn',
      `${installed.version} installed, ${policy.candidate} offered by ${from} (${asOf})${held ? '; held by apt-mark hold' : ''}`,
      held ? 'sudo apt-mark unhold station-agent when this station should take it; unattended-upgrades skips a held package' : 'sudo apt upgrade station-agent (or let unattended-upgrades take it: docs/FLEET.md, "Updates")',
      { ...data, held },
    );
  }
  if (age !== null && age > STALE_LISTS_DAYS) {
    return result('update', title, 'warn', `${installed.version} installed, the newest in ${asOf}, ${age} days old`, 'sudo apt update; unattended-upgrades fetches the lists daily when APT::Periodic::Update-Package-Lists is 1 (docs/FLEET.md, "Updates")', data);
  }
  return result('update', title, 'pass', `${installed.version} installed, the newest in ${asOf}`, null, data);
}

/** The installed station-agent in dpkg's status (the one apt is configured with), and whether it is held. */
async function installedPackage(env: NodeJS.ProcessEnv): Promise<{ version: string; held: boolean } | null | 'no-apt'> {
  let status: string | undefined;
  try {
    const { stdout } = await run('apt-config', ['shell', 'S', 'Dir::State::status/f'], { env, timeout: 10_000 });
    status = /^S='(.*)'$/m.exec(stdout)?.[1];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'no-apt';
  }
  if (!status || path.basename(status) !== 'status') return null;
  try {
    const { stdout } = await run('dpkg-query', [`--admindir=${path.dirname(status)}`, '-W', '-f=${Version} ${Status}', PACKAGE], { env, timeout: 10_000 });
    const m = /^(\S+) (\S+) \S+ installed$/.exec(stdout.trim());
    return m ? { version: m[1], held: m[2] === 'hold' } : null;
  } catch {
    return null;
  }
}
