import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { until } from '../helpers/until.js';
import { EXACTLY_ONCE, exactlyOnce, serviceHoldings } from '../reliability/support/exactly-once.js';
import { open, releaseRoot, releaseService } from './root.js';

/**
 * `npm run test:release`, its last step (scripts/test-release.sh sets the variables): in the
 * Debian 12 root file system, with station-agent STATION_AGENT_RELEASE_FROM installed from the
 * signed repository and STATION_AGENT_RELEASE_TO published in it, the agent runs and uploads
 * to the local service in this process (1.2 s of latency on every request, so uploads are
 * always in flight), and `unattended-upgrade` (not a dry run: what the documented
 * configuration does every day) upgrades it. apt's maintainer scripts stop the running agent
 * (prerm), migrate the queue, start the new version (postinst). Every recording and detection
 * reaches the service exactly once.
 *
 * systemd does not run in the root file system: test/release/systemctl stands in for it, for
 * the one unit, doing what systemd does for a Type=exec unit (start as User=, stop with
 * SIGTERM and a wait up to TimeoutStopSec=, then SIGKILL) and saying in its log what it did.
 */
const ROOT = process.env.STATION_AGENT_RELEASE_ROOT;
const FROM = process.env.STATION_AGENT_RELEASE_FROM;
const TO = process.env.STATION_AGENT_RELEASE_TO;
if (!ROOT || !FROM || !TO) throw new Error('test/release runs through npm run test:release (scripts/test-release.sh), which sets STATION_AGENT_RELEASE_ROOT, _FROM and _TO');

const root = releaseRoot(ROOT);

const world = releaseService(root);

describe('an upgrade through unattended-upgrades while uploads are in flight', () => {
  it(`stops ${FROM} cleanly, migrates, starts ${TO}: every recording and detection uploaded exactly once`, async () => {
    expect(await root.installed()).toBe(FROM);
    // A fresh queue and input folder (the earlier steps' queue names another service).
    const expected = await root.station(world.service, { count: 24, seed: 37, extra: { service: { timeoutMs: 5_000 }, upload: { concurrency: 2 } } });
    // Every request answered 1.2 s late (within the agent's 5 s): at any moment of the upgrade, uploads are open.
    world.service.setFaults({ latencyMs: 1_200 });
    await root.run('systemctl', 'start', 'station-agent.service');
    await until(
      'a first upload, the rest still to go',
      async () => {
        const q = await root.queue();
        return q && (q.detections.uploaded ?? 0) + (q.soundscapes.uploaded ?? 0) > 0 ? q : undefined;
      },
      180_000,
      () => root.agentLog(20),
    );

    const upgrade = await root.run('unattended-upgrade', '-v');
    expect(await root.installed(), upgrade).toBe(TO);

    // prerm stopped the running agent with uploads open, and it exited by itself; postinst started the new one.
    const log = root.standinLog();
    const stops = [...log.matchAll(/SIGTERM pid (\d+)/g)].map((m) => m[1]);
    expect(stops.length, `prerm asked systemd to stop the agent:\n${log}`).toBeGreaterThan(0);
    const last = stops.at(-1)!;
    expect(log, log).toMatch(new RegExp(`exited pid ${last} after \\d+\\.\\d s`));
    expect(log).not.toMatch(/SIGKILL/);
    const atStop = JSON.parse(readFileSync(root.path('var/log/station-agent-at-stop.json'), 'utf8')) as { queue: { soundscapes: Record<string, number>; detections: Record<string, number> } };
    expect(open(atStop.queue.soundscapes) + open(atStop.queue.detections), 'items still to upload when prerm stopped the agent').toBeGreaterThan(0);
    expect(log.slice(log.lastIndexOf(`SIGTERM pid ${last}`))).toMatch(/started pid \d+/);
    // What dpkg and the maintainer scripts printed (unattended-upgrades keeps it in its own log).
    const dpkgLog = readFileSync(root.path('var/log/unattended-upgrades/unattended-upgrades-dpkg.log'), 'utf8');
    expect(dpkgLog).toMatch(/station-agent: starting station-agent\.service/);

    world.service.setFaults(null);
    await root.drained('the new version uploads the rest', expected, 300_000);
    expect(exactlyOnce(expected, await serviceHoldings(world.client))).toEqual(EXACTLY_ONCE);
    expect(existsSync(root.path('run/station-agent-standin.pid'))).toBe(true);
    // postinst's daemon-reload ran the package's generator: the unit may write its input folder (issue 38).
    expect(readFileSync(root.path('run/systemd/generator/station-agent.service.d/50-station-agent-input.conf'), 'utf8')).toContain('ReadWritePaths="-/srv-live"');
  });
});
