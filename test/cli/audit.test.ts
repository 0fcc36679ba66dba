import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditReport } from '../../src/audit/report.js';
import { isoDate, localFieldsAt } from '../../src/system/zone.js';
import { createAgentWorld, TOKEN, type AgentWorld } from '../helpers/agent-world.js';
import { buildCli, parseJson, runCli } from '../helpers/cli.js';
import { documentedAuditExample } from '../helpers/audit-doc.js';
import { addRealRecording } from '../helpers/real-recording.js';
import { until } from '../helpers/until.js';

/**
 * `station-agent audit` as a process, against a queue the real daemon filled from the real
 * local service, which lost some detections: the report (table and `--json`), the exit
 * code, the repair, and no token anywhere in what it prints.
 */
let world: AgentWorld;
const RECORDINGS = 4;

/** `YYYYMMDD_HHMMSS` in Berlin, `hoursAgo` before now: a dated name the agent reads its start from. */
function datedName(hoursAgo: number, minute: number): string {
  const f = localFieldsAt(Date.now() - hoursAgo * 3_600_000 + minute * 60_000, 'Europe/Berlin');
  const two = (n: number) => String(n).padStart(2, '0');
  return `${isoDate(f).replaceAll('-', '')}_${two(f.hour)}${two(f.minute)}00`;
}

beforeAll(async () => {
  await buildCli();
  world = await createAgentWorld({ config: { retention: { keepUploadedDays: 3 } } });
  world.emulator.setFaults('lose-detection=0.3');
  for (let i = 0; i < RECORDINGS; i++) addRealRecording(world.inputDir, datedName(3, i), i);
  await world.startAgent();
  await until('every recording uploaded', () => (world.counts().recordings.uploaded === RECORDINGS ? true : undefined), 30_000);
  await world.waitDrained(30_000);
  world.emulator.setFaults(null);
}, 180_000);

afterAll(async () => world?.close());

const cli = (...args: string[]) => runCli(['audit', '--config', world.configPath, ...args], { timeoutMs: 30_000 });

const keys = (o: object) => Object.keys(o).sort();

describe('station-agent audit', () => {
  it('--json: every lost detection missing, exit 1, the documented shape, no token', async () => {
    const lost = world.emulator.lies().filter((l) => l.fault === 'lose-detection').map((l) => l.id).sort();
    expect(lost.length).toBeGreaterThan(0);
    const result = await cli('--json');
    expect(result.code, result.stderr).toBe(1);
    const report = parseJson<AuditReport>(result);
    expect(report.findings.map((f) => f.remoteId).sort()).toEqual(lost);
    expect(report.findings.every((f) => f.finding === 'missing' && f.kind === 'detection' && f.repair === 'reported')).toBe(true);
    expect(report.totals).toMatchObject({ missing: lost.length, altered: 0, foreign: 0, requeued: 0 });
    expect(report.days).toHaveLength(8);

    const example = documentedAuditExample();
    expect(keys(report)).toEqual(keys(example));
    expect(keys(report.days[0])).toEqual(keys(example.days[0]));
    expect(keys(report.days[0].detections)).toEqual(keys(example.days[0].detections));
    expect(keys(report.totals)).toEqual(keys(example.totals));
    expect(keys(report.cost)).toEqual(keys(example.cost));
    const missing = example.findings.find((f) => f.finding === 'missing' && f.kind === 'detection' && f.repair === 'reported')!;
    for (const f of report.findings) expect(keys(f)).toEqual(keys(missing));
    expect(report.version).toBe(example.version);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
  });

  it('the table: a row per day and kind, the items, and a summary line', async () => {
    const result = await cli('--since', '1d');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^day\s+kind\s+acknowledged\s+at service\s+missing\s+altered\s+foreign/m);
    expect(result.stdout).toMatch(/^\d{4}-\d{2}-\d{2}\s+detections\s+\d+\s+\d+\s+[1-9]/m);
    expect(result.stdout).toMatch(/^missing\s+detection\s+d\d+/m);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
  });

  it('--repair sends each missing item again, once; then the audit is clean and exits 0', async () => {
    const repaired = parseJson<AuditReport>(await cli('--json', '--repair'));
    expect(repaired.totals.requeued).toBe(repaired.totals.missing);
    expect(repaired.findings.every((f) => f.repair === 'requeued')).toBe(true);
    await world.waitDrained(30_000);
    const clean = await cli('--json');
    expect(clean.code, clean.stdout).toBe(0);
    expect(parseJson<AuditReport>(clean).findings).toEqual([]);
  });

  it('refuses a period past what the queue keeps, naming the option', async () => {
    const result = await cli('--since', '30d');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--since.*at most 7d/);
  });
});
