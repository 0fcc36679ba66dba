import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_LABELS_FILE, writeSampleFolder } from '../../demo/src/sample-data.js';
import { DEMO_MIN_CONFIDENCE, expectedAtService, planSamples } from '../../demo/src/sample-plan.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { until } from '../helpers/until.js';
import { parseSamples, valueOf } from './prometheus-text.js';

/**
 * The endpoint as the daemon wires it (`metrics.listen`): the real agent uploads
 * the demo's sample folder to the real local service, and the scrape shows it.
 */
describe('metrics of a running daemon', () => {
  let world: AgentWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  function metricsUrl(w: AgentWorld): string {
    for (const line of w.logLines) {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg?.startsWith('metrics endpoint listening') && entry.url) return entry.url;
    }
    throw new Error(`the daemon logged no metrics endpoint:\n${w.logLines.join('\n')}`);
  }

  /**
   * Waits until the whole sample folder is uploaded. A drained queue alone is not enough:
   * the watcher may not have queued the last files yet when the first are uploaded (a
   * loaded machine delays its events), and the queue is briefly empty in between.
   */
  async function waitAllUploaded(w: AgentWorld, expected: { detections: number; soundscapes: number }) {
    await until(
      'the sample folder uploaded',
      () => {
        const c = w.counts();
        return c.detections.uploaded === expected.detections && c.recordings.uploaded === expected.soundscapes ? true : undefined;
      },
      30_000,
      () => JSON.stringify(w.counts()),
    );
    return w.waitDrained(30_000);
  }

  it('counts what the uploader did, shows the drained queue and is ready; stop closes the endpoint', async () => {
    world = await createAgentWorld({
      config: {
        metrics: { listen: '127.0.0.1:0' },
        input: { labels: DEMO_LABELS_FILE, minConfidence: DEMO_MIN_CONFIDENCE },
        station: { timezone: 'UTC' },
      },
    });
    await world.startAgent();
    const url = metricsUrl(world);

    const plan = planSamples({ zone: 'UTC' });
    const expected = expectedAtService(plan, DEMO_MIN_CONFIDENCE);
    await writeSampleFolder(world.inputDir, plan);
    await waitAllUploaded(world, expected);

    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    const samples = parseSamples(await res.text());
    expect(valueOf(samples, 'station_agent_uploads_total', { kind: 'recording', outcome: 'uploaded' })).toBe(expected.soundscapes);
    expect(valueOf(samples, 'station_agent_uploads_total', { kind: 'detection', outcome: 'uploaded' })).toBe(expected.detections);
    expect(valueOf(samples, 'station_agent_upload_duration_seconds_count', { kind: 'detection' })).toBe(expected.detections);
    expect(valueOf(samples, 'station_agent_queue_items', { kind: 'recording', state: 'uploaded' })).toBe(expected.soundscapes);
    expect(valueOf(samples, 'station_agent_queue_items', { kind: 'detection', state: 'uploaded' })).toBe(expected.detections);
    expect(valueOf(samples, 'station_agent_queue_items', { kind: 'detection', state: 'pending' })).toBe(0);
    expect(valueOf(samples, 'station_agent_uploaded_bytes_total', { kind: 'recording' })).toBeGreaterThan(0);
    const lastSuccess = valueOf(samples, 'station_agent_last_success_timestamp_seconds')!;
    expect(Math.abs(lastSuccess - Date.now() / 1000)).toBeLessThan(120);
    expect(valueOf(samples, 'station_agent_circuit_state', { state: 'closed' })).toBe(1);
    expect(valueOf(samples, 'station_agent_uploads_paused', { reason: 'token-rejected' })).toBe(0);
    // What the station runs: the agent's own version (package.json), its Node.js and architecture.
    const version = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(valueOf(samples, 'station_agent_build_info', { version, node: process.versions.node, arch: process.arch })).toBe(1);
    expect(samples.filter((s) => s.name === 'station_agent_build_info')).toHaveLength(1);

    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { ready: boolean }).ready).toBe(true);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    await world.stopAgent();
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  }, 60_000);

  it('is not ready once the service rejects the token', async () => {
    // The service has no station with this token: every station request is refused (403).
    world = await createAgentWorld({
      config: {
        metrics: { listen: '127.0.0.1:0' },
        input: { labels: DEMO_LABELS_FILE, minConfidence: DEMO_MIN_CONFIDENCE },
        station: { timezone: 'UTC' },
        service: { token: 'not-a-station-token' },
      },
    });
    await world.startAgent();
    const url = metricsUrl(world);
    await writeSampleFolder(world.inputDir, planSamples({ zone: 'UTC' }));

    let last: { ready: boolean; reasons: string[] } | undefined;
    const body = await until(
      'readyz unready for the token',
      async () => {
        const res = await fetch(`${url}/readyz`);
        last = (await res.json()) as { ready: boolean; reasons: string[] };
        return res.status === 503 && last.reasons.some((r) => r.includes('uploads are paused')) && last;
      },
      30_000,
      () => JSON.stringify(last),
    );
    expect(body.ready).toBe(false);
    expect(JSON.stringify(body)).not.toContain('not-a-station-token');
    const samples = parseSamples(await (await fetch(`${url}/metrics`)).text());
    expect(valueOf(samples, 'station_agent_uploads_paused', { reason: 'token-rejected' })).toBe(1);
    expect(valueOf(samples, 'station_agent_uploads_total', { kind: 'recording', outcome: 'paused' })).toBeGreaterThanOrEqual(1);
  });

  it('keeps running without the endpoint when its port is taken, and says so', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      world = await createAgentWorld({
        config: {
          metrics: { listen: `127.0.0.1:${port}` },
          input: { labels: DEMO_LABELS_FILE, minConfidence: DEMO_MIN_CONFIDENCE },
          station: { timezone: 'UTC' },
        },
      });
      await world.startAgent();
      const errors = world.logLines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level >= 50);
      expect(errors.map((e) => e.msg)).toEqual([expect.stringMatching(new RegExp(`^metrics endpoint not started: cannot serve metrics on metrics\\.listen 127\\.0\\.0\\.1:${port}: `))]);
      // Uploads go on.
      const plan = planSamples({ zone: 'UTC' });
      const expected = expectedAtService(plan, DEMO_MIN_CONFIDENCE);
      await writeSampleFolder(world.inputDir, plan);
      const counts = await waitAllUploaded(world, expected);
      expect(counts.detections).toMatchObject({ uploaded: expected.detections, failed: 0 });
      expect(counts.recordings.uploaded).toBe(expected.soundscapes);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  }, 60_000);
});
