import { copyFileSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { getMeta } from '../../src/queue/index.js';
import { RUNTIME_META_KEY, parseRuntimeSnapshot } from '../../src/runtime/snapshot.js';
import { createAgentWorld, TOKEN, type AgentWorld } from '../helpers/agent-world.js';
import { realFixture, tempDir } from '../helpers/paths.js';
import { until } from '../helpers/until.js';

/**
 * A paused daemon picks up a fixed token without a restart: the operator fixes the
 * token file (or the config file), the daemon reloads it and probes at once. The probe
 * interval is an hour, so only the reload can end the pause within the test's wait.
 */
let world: AgentWorld | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await world?.close();
  world = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const FIXTURE = realFixture('birdnet-analyzer_ea464544_2022-03-02');
const HOUR = { upload: { probeIntervalSec: 3_600 } };

function addRecording(w: AgentWorld): void {
  copyFileSync(path.join(FIXTURE, 'soundscape.wav'), path.join(w.inputDir, 'soundscape.wav'));
  copyFileSync(path.join(FIXTURE, 'soundscape.BirdNET.results.csv'), path.join(w.inputDir, 'soundscape.BirdNET.results.csv'));
}


const pausedOnToken = (w: AgentWorld) => w.daemon!.snapshot().uploader.paused.some((p) => p.reason === 'token-rejected');

/** The agent's last log lines, for a failure message. */
const logTail = () => world?.logLines.slice(-20).join('\n') ?? '';

describe('a fixed token is picked up without a restart', () => {
  it('resumes uploads when the token file is fixed, and status no longer shows the pause', async () => {
    const secrets = tempDir('token-reload-');
    cleanups.push(secrets.cleanup);
    const tokenFile = path.join(secrets.dir, 'token');
    writeFileSync(tokenFile, 'not-the-station-token\n', { mode: 0o600 });
    world = await createAgentWorld({ config: { service: { token: undefined, tokenFile }, ...HOUR } });
    const w = world;
    addRecording(w);
    await w.startAgent();
    await until('paused on the refused token', () => pausedOnToken(w), 30_000, logTail);
    expect(w.counts().detections.uploaded).toBe(0);

    // As an editor saves: a new file renamed over the old one.
    writeFileSync(`${tokenFile}.new`, `${TOKEN}\n`, { mode: 0o600 });
    renameSync(`${tokenFile}.new`, tokenFile);
    const counts = await w.waitDrained(30_000);
    expect(counts.detections.uploaded).toBeGreaterThan(0);
    expect(counts.recordings.uploaded).toBe(1);
    expect(pausedOnToken(w)).toBe(false);
    // What `status` reads: the snapshot in the queue no longer says paused.
    await until('snapshot without the pause', () => {
      const snap = parseRuntimeSnapshot(getMeta(w.daemon!.queue, RUNTIME_META_KEY));
      return snap != null && !snap.uploader.paused.some((p) => p.reason === 'token-rejected');
    }, 30_000, logTail);
    expect(w.logLines.join('\n')).not.toContain(TOKEN);
  });

  it('follows a token file that is a symbolic link: a link re-pointed in another folder is noticed without SIGHUP', async () => {
    const t = tempDir('token-link-');
    cleanups.push(t.cleanup);
    // As secrets are mounted: etc/token -> secrets/current -> token-v1, and an update re-points `current`.
    const secrets = path.join(t.dir, 'secrets');
    mkdirSync(secrets);
    mkdirSync(path.join(t.dir, 'etc'));
    writeFileSync(path.join(secrets, 'token-v1'), 'not-the-station-token\n', { mode: 0o600 });
    writeFileSync(path.join(secrets, 'token-v2'), `${TOKEN}\n`, { mode: 0o600 });
    symlinkSync('token-v1', path.join(secrets, 'current'));
    const tokenFile = path.join(t.dir, 'etc', 'token');
    symlinkSync(path.join(secrets, 'current'), tokenFile);
    world = await createAgentWorld({ config: { service: { token: undefined, tokenFile }, ...HOUR } });
    const w = world;
    addRecording(w);
    await w.startAgent();
    await until('paused on the refused token', () => pausedOnToken(w), 30_000, logTail);

    symlinkSync('token-v2', path.join(secrets, 'current.new'));
    renameSync(path.join(secrets, 'current.new'), path.join(secrets, 'current'));
    const counts = await w.waitDrained(30_000);
    expect(counts.recordings.uploaded).toBe(1);
    expect(pausedOnToken(w)).toBe(false);
  });

  it('resumes uploads when the token in the config file is fixed', async () => {
    world = await createAgentWorld({ config: { service: { token: 'not-the-station-token' }, ...HOUR } });
    const w = world;
    addRecording(w);
    await w.startAgent();
    await until('paused on the refused token', () => pausedOnToken(w), 30_000, logTail);

    const config = JSON.parse(readFileSync(w.configPath, 'utf8')) as { service: { token: string } };
    config.service.token = TOKEN;
    writeFileSync(w.configPath, JSON.stringify(config, null, 2), { mode: 0o600 });
    const counts = await w.waitDrained(30_000);
    expect(counts.recordings.uploaded).toBe(1);
    expect(pausedOnToken(w)).toBe(false);
  });
});
