import { describe, expect, it } from 'vitest';
import { EXACTLY_ONCE, exactlyOnce, serviceHoldings } from '../reliability/support/exactly-once.js';
import { releaseRoot, releaseService } from './root.js';

/**
 * `npm run test:release -- --arch arm64` (scripts/test-release.sh sets the variables): in a
 * Debian 12 arm64 root file system (mmdebstrap --arch=arm64; every program in it runs under
 * qemu-aarch64 through binfmt_misc), station-agent STATION_AGENT_RELEASE_VERSION is installed
 * from the signed repository by docs/INSTALL.md's commands. Here: it is the arm64 package, its
 * own Node.js is an arm64 process, and the agent, started as the unit starts it (the root's
 * systemctl is test/release/systemctl), uploads a backlog to the local service in this (x86)
 * process exactly once, FLAC by the package's arm64 libFLAC addon (flac-bindings, compiled
 * by scripts/package.sh) in the agent's process, on the root's arm64 libFLAC, and stops cleanly.
 */
const ROOT = process.env.STATION_AGENT_RELEASE_ROOT;
const VERSION = process.env.STATION_AGENT_RELEASE_VERSION;
if (!ROOT || !VERSION) throw new Error('test/release/arm64-root runs through npm run test:release -- --arch arm64 (scripts/test-release.sh), which sets STATION_AGENT_RELEASE_ROOT and _VERSION');

/** Everything in the root runs emulated, several times slower than on x86. */
const SLOW_MS = 300_000;
const root = releaseRoot(ROOT);

const world = releaseService(root);

describe('station-agent from the repository in an arm64 root file system', () => {
  it(`is the arm64 package ${VERSION}, an arm64 Node.js, and prints its version`, async () => {
    expect(await root.installed()).toBe(VERSION);
    expect((await root.run('dpkg-query', '-W', '-f=${Architecture}', 'station-agent')).trim()).toBe('arm64');
    expect((await root.run('/opt/station-agent/node/bin/node', '-p', 'process.arch')).trim()).toBe('arm64');
    const { stdout } = await root.output('station-agent', '--version');
    expect(stdout.trim()).toBe(VERSION);
  });

  it('uploads a backlog exactly once, FLAC by libFLAC in-process (the default), and stops cleanly', async () => {
    const expected = await root.station(world.service, { count: 4, seed: 41, extra: { service: { timeoutMs: 30_000 }, upload: { concurrency: 2 }, log: { level: 'debug' } } });
    await root.run('systemctl', 'start', 'station-agent.service');
    await root.drained('the backlog uploaded', expected, SLOW_MS);
    expect(exactlyOnce(expected, await serviceHoldings(world.client))).toEqual(EXACTLY_ONCE);
    const encoded = root
      .agentLog(10_000)
      .split('\n')
      .filter((l) => l.includes('"msg":"recording encoded to FLAC"'));
    expect(encoded.length, root.agentLog(30)).toBe(expected.length);
    // upload.flacEncoder auto: the addon loads, so no flac program runs.
    for (const line of encoded) expect(line).toMatch(/"engine":"libFLAC [\d.]+ \(flac-bindings, in-process\)"/);

    await root.run('systemctl', 'stop', 'station-agent.service');
    const log = root.standinLog();
    expect(log, log).toMatch(/exited pid \d+ after \d+\.\d s/);
    expect(log).not.toMatch(/SIGKILL/);
  });
});
