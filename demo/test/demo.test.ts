import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MIN_CONFIDENCE, expectedAtService, planSamples } from '../src/sample-plan.js';
import { buildCli, parseJson, runCli, type CliResult } from '../../test/helpers/cli.js';

/**
 * `station-agent demo` as a person runs it: a process of the built CLI, with no
 * config, no token and no network. The species and counts expected are the
 * sample plan's (which does not depend on the time of day).
 */
const expected = expectedAtService(planSamples({ zone: 'UTC' }), DEMO_MIN_CONFIDENCE);
const RUN_MS = 120_000;

function tempRootOf(result: CliResult): string {
  const m = /to (\S+station-agent-demo-[^/\s]+)\/analyzer-output/.exec(result.stderr);
  if (!m) throw new Error(`no sample folder named on stderr:\n${result.stderr}`);
  return m[1];
}

function portIsClosed(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('station-agent demo', () => {
  beforeAll(async () => {
    await buildCli();
  }, 300_000);

  describe('run plainly', () => {
    let result: CliResult;
    beforeAll(async () => {
      // runCli rejects when the process has not ended by itself within RUN_MS.
      result = await runCli(['demo'], { timeoutMs: RUN_MS, env: { TZ: 'Europe/Berlin' } });
    }, RUN_MS + 10_000);

    it('exits 0 and tells its story on stderr', () => {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/^starting the local service at http:\/\/127\.0\.0\.1:\d+$/m);
      expect(result.stderr).toMatch(/^writing 6 sample recordings /m);
      expect(result.stderr).toMatch(/^uploading: the agent queues 6 soundscapes and 15 detections/m);
    });

    it('prints every sample species with its detection count and the soundscapes', () => {
      const rows = result.stdout.split('\n');
      for (const s of expected.species) {
        const row = rows.find((r) => r.startsWith(`${s.commonName}  `));
        expect(row, `${s.commonName} in\n${result.stdout}`).toBeDefined();
        const cells = row!.split(/\s{2,}/);
        expect(cells.slice(0, 3)).toEqual([s.commonName, s.scientificName, String(s.detections)]);
        // The certainty breakdown adds up to the count.
        expect(cells.slice(3).map(Number).reduce((a, b) => a + b, 0)).toBe(s.detections);
      }
      expect(rows.find((r) => r.startsWith('Total'))).toMatch(/^Total\s+6 species\s+15\s/);
      expect(result.stdout).toContain('Soundscapes: 6, 1 min 30 s of audio');
    });

    it('leaves nothing behind: its folder is removed and its service port closed', async () => {
      expect(existsSync(tempRootOf(result))).toBe(false);
      const url = /starting the local service at (\S+)/.exec(result.stderr)![1];
      expect(await portIsClosed(url)).toBe(true);
    });
  });

  describe('run with --keep --json', () => {
    let result: CliResult;
    let root: string;
    beforeAll(async () => {
      result = await runCli(['demo', '--keep', '--json'], { timeoutMs: RUN_MS, env: { TZ: 'Asia/Kolkata' } });
      root = tempRootOf(result);
    }, RUN_MS + 10_000);
    afterAll(() => {
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it('prints one JSON document of what the service holds, each soundscape at its recording start', () => {
      expect(result.code, result.stderr).toBe(0);
      const doc = parseJson(result);
      expect(doc.station.timezone).toMatch(/^Asia\/(Kolkata|Calcutta)$/);
      expect(doc.service.detections).toBe(15);
      expect(doc.service.species.map((s: { scientificName: string; detections: { total: number } }) => [s.scientificName, s.detections.total]).sort()).toEqual(
        expected.species.map((s) => [s.scientificName, s.detections]).sort(),
      );
      // +05:30 on the wire, the same instants as the file names say.
      const starts = doc.service.soundscapes.items.map((s: { timestamp: string }) => s.timestamp);
      for (const t of starts) expect(t).toMatch(/\+05:30$/);
      expect(starts.map((t: string) => Date.parse(t))).toEqual(doc.samples.map((s: { startMs: number }) => s.startMs));
      expect(doc.keptDir).toBe(root);
    });

    it('keeps its folder with the samples and the agent log, and never logs or prints the station token', () => {
      const config = JSON.parse(readFileSync(path.join(root, 'config.json'), 'utf8'));
      const token: string = config.service.token;
      expect(token.length).toBeGreaterThanOrEqual(20);
      expect(readdirSync(path.join(root, 'analyzer-output'))).toHaveLength(12);

      const log = readFileSync(path.join(root, 'agent.log'), 'utf8');
      const lines = log.trim().split('\n');
      // A real run was logged: debug lines, every upload, the stop.
      expect(lines.filter((l) => l.includes('"msg":"recording uploaded"'))).toHaveLength(6);
      expect(lines.filter((l) => l.includes('"msg":"detection uploaded"'))).toHaveLength(15);
      expect(lines.some((l) => l.includes('"level":"debug"'))).toBe(true);
      expect(lines.at(-1)).toContain('station-agent stopped');
      // Issue 35: a new user's demo logged 15 warnings (the default filters' classes its labels
      // lacked, its input folder made after the start, a validation child missing from its build).
      const warnings = lines.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level !== 'debug' && l.level !== 'info');
      expect(warnings.map((l) => `${l.level}: ${l.msg}`)).toEqual([]);

      for (const text of [log, result.stdout, result.stderr]) {
        expect(text.includes(token)).toBe(false);
        expect(text.includes(encodeURIComponent(token))).toBe(false);
      }
    });
  });
});
