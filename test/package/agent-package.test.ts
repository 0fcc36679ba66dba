import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_CLI, AGENT_NODE, parseJson, runCli } from '../helpers/cli.js';
import { installedAgentSuite } from '../helpers/installed-agent.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { startService } from '../reliability/support/world.js';

/**
 * `npm run test:package` (scripts/test-package.sh): the Debian package unpacked into a
 * temporary root (STATION_AGENT_PACKAGE_ROOT), its agent run on its own Node.js
 * (STATION_AGENT_NODE: under qemu-aarch64 for the arm64 package) against the local service
 * in this test process. STATION_AGENT_PACKAGE_ARCH is the package's architecture.
 */
const ROOT = process.env.STATION_AGENT_PACKAGE_ROOT;
const ARCH = process.env.STATION_AGENT_PACKAGE_ARCH;
if (!ROOT || !ARCH || !process.env.STATION_AGENT_NODE || !process.env.STATION_AGENT_CLI) {
  throw new Error('test/package runs through npm run test:package (scripts/test-package.sh), which sets STATION_AGENT_PACKAGE_ROOT, STATION_AGENT_PACKAGE_ARCH, STATION_AGENT_NODE and STATION_AGENT_CLI');
}
const OPT = path.join(ROOT, 'opt/station-agent');
/** The arm64 flac program through qemu (STATION_AGENT_ARM64_BIN), when testing the arm64 package. */
const agentEnv: Record<string, string> = process.env.STATION_AGENT_ARM64_BIN ? { PATH: `${process.env.STATION_AGENT_ARM64_BIN}:${process.env.PATH}` } : {};
const ELF_MACHINE: Record<string, string> = { arm64: 'ARM aarch64', amd64: 'x86-64' };

const manifest = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { version: string };

const suite = installedAgentSuite('package-', agentEnv);

describe(`the ${ARCH} package`, () => {
  it('holds the agent on its own Node.js (the pinned version), with better-sqlite3 and flac-bindings built for the architecture', () => {
    expect(AGENT_CLI).toBe(path.join(OPT, 'bin/station-agent'));
    expect(readFileSync(AGENT_CLI, 'utf8').split('\n')[0]).toBe('#!/opt/station-agent/node/bin/node');
    expect(execFileSync('file', ['-b', path.join(OPT, 'node/bin/node')], { encoding: 'utf8' })).toContain(ELF_MACHINE[ARCH]);
    const prebuilds = path.join(OPT, 'node_modules/better-sqlite3/prebuilds');
    expect(readdirSync(prebuilds)).toEqual([`linux-${ARCH === 'amd64' ? 'x64' : 'arm64'}.node`]);
    expect(execFileSync('file', ['-b', path.join(prebuilds, readdirSync(prebuilds)[0])], { encoding: 'utf8' })).toContain(ELF_MACHINE[ARCH]);
    const flacAddon = path.join(OPT, 'node_modules/flac-bindings/build/Release/flac-bindings.node');
    expect(execFileSync('file', ['-b', flacAddon], { encoding: 'utf8' })).toContain(ELF_MACHINE[ARCH]);
    expect(execFileSync(AGENT_NODE, ['-p', 'process.arch + " " + process.versions.node'], { encoding: 'utf8' }).trim()).toMatch(
      `${ARCH === 'amd64' ? 'x64' : 'arm64'} ${manifest(path.join(REPO_ROOT, 'packaging/node/package.json')).version}`,
    );
    expect(readlinkOf(path.join(ROOT, 'usr/bin/station-agent'))).toBe('/opt/station-agent/bin/station-agent');
    for (const unit of ['station-agent.service', 'station-agent@.service']) {
      expect(readFileSync(path.join(ROOT, 'lib/systemd/system', unit), 'utf8')).toBe(readFileSync(path.join(REPO_ROOT, 'systemd', unit), 'utf8'));
    }
    expect(existsSync(path.join(OPT, 'config.example.json'))).toBe(true);
    expect(existsSync(path.join(OPT, 'docs/INSTALL.md'))).toBe(true);
  });

  it('holds production dependencies only: no emulator, demo, benchmark or development dependency, no installer of a clone', () => {
    const modules = readdirSync(path.join(OPT, 'node_modules'));
    // npm's own answer to "development only": the lockfile marks what only devDependencies
    // (of the agent or of its workspaces: the emulator, the demo) reach with `dev: true`, and
    // with `devOptional: true` what they and an optional peer reach (cmake-js, which builds
    // flac-bindings' addon: the package carries the addon built).
    const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; devOptional?: boolean }> };
    const devOnly = Object.entries(lock.packages).filter(([key, entry]) => key.startsWith('node_modules/') && (entry.dev === true || entry.devOptional === true));
    expect(devOnly.map(([key]) => key)).toEqual(expect.arrayContaining(['node_modules/vitest', 'node_modules/typescript', 'node_modules/cmake-js']));
    for (const [key] of devOnly) expect(existsSync(path.join(OPT, key)), key).toBe(false);
    expect(modules).not.toContain('@station-agent');
    // The tree's own Node (packaging/node, a workspace): the package carries it once, in node/.
    expect(modules.filter((m) => m.startsWith('node-linux-'))).toEqual([]);
    expect(modules).toEqual(expect.arrayContaining(['better-sqlite3', 'flac-bindings', 'libflacjs']));
    // The client speaks node:http; undici is the bench's and the tests' only.
    expect(modules).not.toContain('undici');
    const top = readdirSync(OPT).sort();
    expect(top).toEqual(['README.md', 'bin', 'config.example.json', 'dist', 'docs', 'node', 'node_modules', 'package.json']);
    expect(readdirSync(path.join(OPT, 'bin'))).toEqual(['station-agent']);
    const dist = readdirSync(path.join(OPT, 'dist'), { recursive: true }) as string[];
    expect(dist.filter((p) => p.split(path.sep).some((part) => ['emulator', 'demo', 'bench'].includes(part)))).toEqual([]);
  });

  it('prints its version', async () => {
    const result = await runCli(['--version'], { timeoutMs: 120_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(manifest(path.join(REPO_ROOT, 'package.json')).version);
  });

  it('passes doctor against the local service: reachable, the token accepted', async () => {
    // A service of its own: doctor's probes must not count among the pipeline's uploads.
    const own = await startService();
    const { configPath } = suite.scenario('doctor', { baseUrl: own.url });
    const result = await runCli(['doctor', '--json', '--config', configPath], { env: agentEnv, timeoutMs: 180_000 }).finally(() => own.close());
    const report = parseJson<{ checks: { id: string; status: string; detail: string }[] }>(result);
    const status = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
    expect(status.service, JSON.stringify(report.checks)).toBe('pass');
    expect(status.token, JSON.stringify(report.checks)).toBe('pass');
    expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
    // upload.flacEncoder auto: libFLAC in the agent's process, through the addon built for the package.
    expect(report.checks.find((c) => c.id === 'flac')?.detail).toMatch(/\(flac-bindings, in-process\)/);
    expect(result.code, result.stderr).toBe(0);
  });

  it('uploads a results folder exactly once across a SIGKILL and a restart', async () => {
    await suite.exactlyOnceAcrossKill({ seed: 21 });
  });
});

function readlinkOf(file: string): string {
  return execFileSync('readlink', [file], { encoding: 'utf8' }).trim();
}
