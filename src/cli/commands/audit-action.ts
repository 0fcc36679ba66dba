import { runAudit } from '../../audit/audit.js';
import { NO_AUDIO_REASON, type AuditReport, type Finding } from '../../audit/report.js';
import { EXIT } from '../../errors.js';
import { createOutput } from '../format/output.js';
import { renderTable, type Column } from '../format/table.js';
import { createCliClient } from './support/client.js';
import { loadCliConfig, openExistingQueue } from './support/context.js';

export interface AuditFlags {
  config?: string;
  json?: boolean;
  since: number;
  repair?: boolean;
}

/** The action of `station-agent audit`, loaded only when it runs. */
export async function auditAction(flags: AuditFlags): Promise<void> {
  const loaded = await loadCliConfig(flags);
  const { config } = loaded;
  const { client } = await createCliClient(loaded, {});
  const queue = await openExistingQueue(config.dataDir);
  const out = createOutput();
  try {
    const now = Date.now();
    const report = await runAudit(queue, client, {
      fromMs: now - flags.since,
      toMs: now,
      zone: config.station.timezone,
      repair: flags.repair ? 'requeue' : 'report',
    });
    if (flags.json) out.json(report);
    else out.lines(renderAudit(report));
    if (report.totals.missing > 0) process.exitCode = EXIT.FAILURE;
  } finally {
    queue.close();
    await client.close();
  }
}

type DayRow = { date: string; kind: string; acknowledged: number; atService: number; missing: number; altered: number; foreign: number; note: string };

/** The report for people: a table per day and kind, then one line per finding. */
function renderAudit(report: AuditReport): string[] {
  const rows: DayRow[] = report.days.flatMap((d) => [
    { date: d.date, kind: 'soundscapes', ...d.soundscapes, note: '' },
    { date: d.date, kind: 'detections', ...d.detections, note: d.detections.listed ? '' : 'counts match' },
  ]);
  const n = (key: keyof DayRow) => (r: DayRow) => String(r[key]);
  const days: Column<DayRow>[] = [
    { header: 'day', value: n('date') },
    { header: 'kind', value: n('kind') },
    { header: 'acknowledged', value: n('acknowledged'), align: 'right' },
    { header: 'at service', value: n('atService'), align: 'right' },
    { header: 'missing', value: n('missing'), align: 'right' },
    { header: 'altered', value: n('altered'), align: 'right' },
    { header: 'foreign', value: n('foreign'), align: 'right' },
    { header: '', value: n('note') },
  ];
  const lines = renderTable(days, rows);
  const { missing, altered, foreign, requeued } = report.totals;
  lines.push('', `${missing} missing, ${altered} altered, ${foreign} foreign${requeued ? `, ${requeued} sent again` : ''} (${report.cost.requests} requests, ${report.cost.bytes} bytes)`);
  if (report.findings.length === 0) return lines;
  const findings: Column<Finding>[] = [
    { header: 'finding', value: (f) => f.finding },
    { header: 'kind', value: (f) => f.kind },
    { header: 'item', value: (f) => f.item ?? '-' },
    { header: 'service id', value: (f) => String(f.remoteId), align: 'right' },
    { header: 'time', value: (f) => f.timestamp },
    { header: 'species', value: (f) => f.species ?? '', maxWidth: 32 },
    { header: 'detail', value: detail },
  ];
  lines.push('', ...renderTable(findings, report.findings));
  const lostAudio = report.findings.filter((f) => f.reason === NO_AUDIO_REASON).length;
  if (lostAudio > 0) {
    lines.push('', `${lostAudio} missing soundscape${lostAudio === 1 ? '' : 's'} cannot be sent again: the spool no longer holds the audio (retention.keepUploadedDays is 0 by default; 2 keeps it for the daily audit)`);
  }
  return lines;
}

function detail(f: Finding): string {
  if (f.finding === 'altered') return (f.fields ?? []).map((x) => `${x.field}: sent ${x.sent}, service ${x.atService ?? 'none'}`).join('; ');
  if (f.finding === 'foreign') return f.duplicateOf ? `duplicate of ${f.duplicateOf}: ${f.likelyCause}` : 'never sent by this agent';
  return f.repair === 'requeued' ? 'sent again' : (f.reason ?? '');
}
