import { afterEach, describe, expect, it } from 'vitest';
import { runAudit, type AuditOptions } from '../../src/audit/audit.js';
import { NO_AUDIO_REASON, type AuditReport } from '../../src/audit/report.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { expectDocumentedFindings } from '../helpers/audit-doc.js';
import { addRealRecording } from '../helpers/real-recording.js';
import { until } from '../helpers/until.js';

/**
 * The delivery audit against each lie of the local service (emulator/src/faults/lies.ts):
 * the real daemon uploads real recordings to the real local service through a real
 * SQLite queue, the service lies as told, and the audit must find every lie and nothing
 * else, each held against `emulator.lies()`.
 */
let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const RECORDINGS = 6;
/** The recordings start 2025-06-01 10:00Z, a minute apart (helpers/real-recording.ts); the audit reads that day and the next. */
const PERIOD = { fromMs: Date.parse('2025-05-31T22:00:00Z'), toMs: Date.parse('2025-06-02T21:59:59.999Z'), zone: 'Europe/Berlin' };

async function uploaded(faults: string | null, config: Record<string, unknown> = {}): Promise<AgentWorld> {
  const w = await createAgentWorld({ config: { retention: { keepUploadedDays: 3 }, ...config } });
  w.emulator.setFaults(faults);
  // Dated names: each its own recording (the same audio under an undated name is one).
  for (let i = 0; i < RECORDINGS; i++) addRealRecording(w.inputDir, `20250601_10${String(i).padStart(2, "0")}00`, i);
  await w.startAgent();
  await until('every recording uploaded', () => (w.counts().recordings.uploaded === RECORDINGS ? true : undefined), 30_000);
  await w.waitDrained(30_000);
  return w;
}

/** The audit over PERIOD; every finding it reports has the documented shape (docs/OPERATOR.md's example). */
async function audit(w: AgentWorld, repair: AuditOptions['repair'] = 'report'): Promise<AuditReport> {
  const report = await runAudit(w.daemon!.queue, w.client, { ...PERIOD, repair });
  expectDocumentedFindings(report.findings);
  return report;
}

const found = (r: AuditReport, finding: string, kind: string) =>
  r.findings.filter((f) => f.finding === finding && f.kind === kind).map((f) => f.remoteId).sort();
const lied = (w: AgentWorld, fault: string, copies = false) =>
  w.emulator.lies().filter((l) => l.fault === fault).map((l) => (copies ? l.copyId! : l.id)).sort();

describe('the delivery audit against the local service', () => {
  it('a clean run: zero findings, every day tallied, detections read by their counts alone', async () => {
    world = await uploaded(null);
    const report = await audit(world);
    expect(report.findings).toEqual([]);
    expect(report.totals).toEqual({ missing: 0, altered: 0, foreign: 0, requeued: 0 });
    const day = report.days.find((d) => d.date === '2025-06-01')!;
    expect(day.soundscapes).toMatchObject({ acknowledged: RECORDINGS, atService: RECORDINGS });
    const detections = world.counts().detections.uploaded;
    expect(day.detections).toMatchObject({ acknowledged: detections, atService: detections, listed: false });
    expect(report.days.map((d) => d.date)).toEqual(['2025-06-01', '2025-06-02']);
    // Per day: the soundscape listing and the species counts, no detection listing.
    expect(report.cost.requests).toBe(4);
  });

  it('answers as the real service has drifted (ids and durations as strings, floats): still zero findings', async () => {
    world = await uploaded(null);
    world.emulator.setFaults('drift=1,methods=GET');
    const report = await audit(world);
    expect(report.findings).toEqual([]);
  });

  it('lose-soundscape: every lost soundscape missing, nothing else; re-queued once, sent again once, then reported', async () => {
    world = await uploaded('lose-soundscape=0.4');
    const lost = lied(world, 'lose-soundscape');
    expect(lost.length).toBeGreaterThan(0);
    const first = await audit(world, 'requeue');
    expect(found(first, 'missing', 'soundscape')).toEqual(lost);
    expect(first.findings.filter((f) => f.finding !== 'missing' || f.kind !== 'soundscape')).toEqual([]);
    expect(first.findings.every((f) => f.repair === 'requeued')).toBe(true);
    expect(first.totals.requeued).toBe(lost.length);

    // The service goes on losing every soundscape: each missing one is sent again exactly once.
    world.emulator.setFaults('lose-soundscape=1');
    await until('the re-queued soundscapes sent again', () => (world!.counts().recordings.uploaded === RECORDINGS ? true : undefined), 30_000);
    const again = lied(world, 'lose-soundscape').filter((id) => !lost.includes(id));
    expect(again).toHaveLength(lost.length);
    const second = await audit(world, 'requeue');
    expect(found(second, 'missing', 'soundscape')).toEqual(again);
    expect(second.findings.every((f) => f.repair === 'reported' && f.reason === 'missing again after it was sent again once')).toBe(true);
    expect(second.totals.requeued).toBe(0);
    const third = await audit(world, 'requeue');
    expect(third.totals).toMatchObject({ missing: lost.length, requeued: 0 });
    // Soundscapes posted: the first time, then once more for each lost one; never a third time.
    expect(world.emulator.lies().filter((l) => l.fault === 'lose-soundscape')).toHaveLength(2 * lost.length);
  });

  it('lose-soundscape with retention.keepUploadedDays 0 (the default): missing, never re-queued, and the reason says its audio is gone', async () => {
    world = await uploaded('lose-soundscape=0.4', { retention: { keepUploadedDays: 0 } });
    await world.daemon!.housekeeping();
    const lost = lied(world, 'lose-soundscape');
    expect(lost.length).toBeGreaterThan(0);
    for (const mode of ['report', 'requeue'] as const) {
      const report = await audit(world, mode);
      expect(found(report, 'missing', 'soundscape')).toEqual(lost);
      expect(report.findings).toHaveLength(lost.length);
      expect(report.findings.every((f) => f.repair === 'reported' && f.reason === NO_AUDIO_REASON)).toBe(true);
      expect(report.totals.requeued).toBe(0);
    }
    expect(world.counts().recordings.uploaded).toBe(RECORDINGS);
  });

  it('lose-detection: every lost detection missing, nothing else; re-queued, sent again, then clean', async () => {
    world = await uploaded('lose-detection=0.3');
    const lost = lied(world, 'lose-detection');
    expect(lost.length).toBeGreaterThan(0);
    const first = await audit(world, 'requeue');
    expect(found(first, 'missing', 'detection')).toEqual(lost);
    expect(first.findings).toHaveLength(lost.length);
    const day = first.days.find((d) => d.date === '2025-06-01')!;
    expect(day.detections.listed).toBe(true);

    world.emulator.setFaults(null);
    await world.waitDrained(30_000);
    const second = await audit(world, 'requeue');
    expect(second.findings).toEqual([]);
    const sent = (await world.allDetections()).length;
    expect(sent).toBe(world.counts().detections.uploaded);
  });

  // Each lie alone (one draw per soundscape decides between them, so together one can miss every soundscape).
  it.each([
    ['alter-filesize', 'filesize'],
    ['alter-duration', 'duration'],
  ])('%s: every altered soundscape, with the field that differs, and nothing else', async (fault, field) => {
    world = await uploaded(`${fault}=0.5`);
    const altered = lied(world, fault);
    expect(altered.length).toBeGreaterThan(0);
    expect(altered.length).toBeLessThan(RECORDINGS);
    const report = await audit(world, 'requeue');
    expect(found(report, 'altered', 'soundscape')).toEqual(altered);
    expect(report.findings).toHaveLength(altered.length);
    for (const f of report.findings) expect(f.fields?.map((x) => x.field)).toEqual([field]);
    expect(report.totals.requeued).toBe(0);
  });

  it('second-uploader: every copy foreign, named a likely duplicate of ours from another uploader, nothing else', async () => {
    world = await uploaded('second-uploader=0.3');
    const copies = world.emulator.lies().filter((l) => l.fault === 'second-uploader');
    expect(copies.some((c) => c.kind === 'soundscape')).toBe(true);
    expect(copies.some((c) => c.kind === 'detection')).toBe(true);
    const report = await audit(world, 'requeue');
    for (const kind of ['soundscape', 'detection'] as const) {
      expect(found(report, 'foreign', kind)).toEqual(copies.filter((c) => c.kind === kind).map((c) => c.copyId!).sort());
    }
    expect(report.findings).toHaveLength(copies.length);
    for (const f of report.findings) {
      expect(f.likelyCause).toBe('another uploader posts for this station');
      expect(f.duplicateOf).toMatch(f.kind === 'soundscape' ? /^r\d+$/ : /^d\d+$/);
    }
  });
});
