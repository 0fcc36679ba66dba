import type { StatusReport } from '../../status/report.js';
import type { Style } from './style.js';
import { renderFields, renderTable, type Column } from './table.js';
import { formatBytes, formatDuration } from './units.js';

/** `station-agent status` for people: one labelled line per concern, the queue as a table. */
export function renderStatus(report: StatusReport, s: Style): string[] {
  const now = Date.parse(report.generatedAt);
  const when = (iso: string | null) => (iso ? `${iso} (${ago(iso, now)})` : '-');
  const lines: string[] = [];

  const daemonWord = { running: s.green('running'), 'not-responding': s.red('not responding'), stopped: s.yellow('not running') }[report.daemon.state];
  const uptime = report.daemon.state === 'running' && report.daemon.startedAt ? `, up ${formatDuration(now - Date.parse(report.daemon.startedAt))}` : '';
  const fields: [string, string][] = [['Daemon', `${daemonWord} (${report.daemon.detail})${uptime}`]];
  fields.push(['Queue', report.queue.exists ? report.queue.file : `${report.queue.file} ${s.yellow('(not created yet)')}`]);
  lines.push(...renderFields(fields, LABEL_WIDTH));
  lines.push(...queueTable(report, s).map((l) => `  ${l}`));
  lines.push(`  oldest waiting: ${report.queue.oldestPendingAt ? when(report.queue.oldestPendingAt) : 'none'}`);
  lines.push(...heldLines(report, s));
  lines.push(...fileErrorLines(report, s));

  const u = report.uploads;
  const rest: [string, string][] = [];
  const uploadParts = [`last success ${when(u.lastSuccessAt)}`];
  if (u.circuit) uploadParts.push(`circuit ${u.circuit === 'closed' ? s.green('closed') : s.red(u.circuit)}${u.circuitRetryAt ? ` until ${u.circuitRetryAt}` : ''}`);
  if (u.inFlight !== null && u.concurrencyLimit !== null) uploadParts.push(`${u.inFlight}/${u.concurrencyLimit} in flight`);
  rest.push(['Uploads', uploadParts.join('; ')]);
  if (u.lastError) rest.push(['  last error', `${s.red(u.lastError.message)} [${u.lastError.code}] ${when(u.lastError.at)}`]);
  for (const p of u.paused) {
    const when = p.asOf ? `since ${p.since ?? '-'}, as the daemon last reported at ${p.asOf}` : `since ${p.since ?? '-'}`;
    rest.push(['  paused', `${s.red(p.scope ? `${p.scope}: ${p.reason}` : p.reason)}: ${p.message} (${when})`]);
  }

  rest.push(['Service', serviceLine(report, s)]);
  if (report.token.problem) rest.push(['Token', s.red(report.token.problem)]);
  const d = report.disk;
  const free = d.freeBytes === null ? 'unknown' : d.low ? s.red(`${formatBytes(d.freeBytes)} (low)`) : formatBytes(d.freeBytes);
  rest.push(['Disk', `free ${free} on ${d.dataDir} (minimum ${formatBytes(d.minFreeBytes)}); spool ${d.spoolFiles} files, ${formatBytes(d.spoolBytes)}`]);
  const t = d.audioTaken;
  if (t && t.linked + t.referenced + t.copied > 0) {
    // What the running daemon did, in its own mount namespace: this, not the estimate below, is what the card took.
    const copied = t.copied > 0 ? s.yellow(`${t.copied} copied onto the card (${formatBytes(t.copiedBytes)}): ${t.lastCopyWhy ?? '-'}`) : 'none copied';
    rest.push(['  audio taken', `since the daemon's start: ${t.linked} hard-linked${t.nearDir ? ` (in ${t.nearDir})` : ''}, ${t.referenced ? `${t.referenced} held by reference, ` : ''}${copied}`]);
  } else if (d.audioCopy) {
    const c = d.audioCopy;
    const cost = `${formatBytes(c.bytesPerDay)} a day (${formatBytes(c.bytesPerRecording)} per recording${c.estimated ? ', estimated' : ''})`;
    if (c.ramDiskAudio === 'keep') {
      rest.push(['  audio kept', `on its file system until upload (input.ramDiskAudio keep; a power cut loses the soundscapes not yet uploaded), copying would write ${cost}: ${c.why}`]);
    } else {
      rest.push(['  audio copied', s.yellow(`${cost} onto the card (input.ramDiskAudio copy; keep leaves it on its file system until upload): ${c.why}`)]);
    }
  }
  const clock = { synchronized: s.green('synchronized'), unsynchronized: s.red('not synchronized'), unknown: s.yellow('unknown') }[report.clock.state];
  rest.push(['Clock', report.clock.source === 'daemon' ? clock : `${clock} (asked of the system: no running daemon)`]);
  if (report.configSync) {
    const c = report.configSync;
    const state = c.state === 'rejected' || c.state === 'retrying' ? s.red(c.state) : c.state;
    rest.push(['Config sync', `${state} ${when(c.at)}${c.attempts ? `, ${c.attempts} attempts` : ''}${c.error ? `: ${c.error}` : ''}`]);
  }
  if (report.station) {
    const r = report.station.record;
    rest.push([
      'Station',
      `#${r.id} "${r.name}" (${r.type}), minConfidence ${r.minConfidence}, minProbability ${r.minProbability}, minScore ${r.minScore}, minHumanConfidence ${r.minHumanConfidence}, locationPrivacy ${r.locationPrivacy}; as of ${when(report.station.syncedAt)}`,
    ]);
  } else {
    rest.push(['Station', 'no station record yet (stored at the first config sync)']);
  }
  rest.push(['Link', linkLine(report.link, s, when)]);
  if (report.watcher) {
    rest.push(['Watcher', `${report.watcher.ready ? 'watching' : s.yellow('initial scan')} ${report.watcher.dir}, ${report.watcher.pending} files waiting`]);
  }
  if (report.mqtt) {
    const m = report.mqtt;
    const state = m.connected === null ? 'daemon not running' : m.connected ? s.green('connected') : s.red('not connected');
    const pending = m.pendingDetections + m.pendingUpdates;
    const backlog = pending > 0 ? s.yellow(`${m.pendingDetections} detections and ${m.pendingUpdates} updates to publish`) : 'nothing to publish';
    rest.push(['MQTT', `${m.broker ?? '-'}: ${state}; ${backlog}; last publish ${when(m.lastPublishAt)}`]);
    if (m.lastError) rest.push(['  last error', `${s.red(m.lastError.message)} [${m.lastError.code}] ${when(m.lastError.at)}`]);
  }
  const policy = policyLine(report.policy);
  if (policy) rest.push(['Policies', policy]);
  const audit = report.delivery;
  if (audit) {
    const found = audit.missing + audit.altered + audit.foreign;
    const what = found === 0 ? s.green('the service holds what it acknowledged') : s.yellow(`${audit.missing} missing, ${audit.altered} altered, ${audit.foreign} foreign (station-agent audit)`);
    rest.push(['Delivery', `${what}; audited ${audit.from.slice(0, 16)} to ${audit.to.slice(0, 16)} (${audit.trigger}) ${when(audit.at)}`]);
  }
  lines.push(...renderFields(rest, LABEL_WIDTH));
  return lines;
}

/** What privacy and filters kept back, when anything: e.g. `2 soundscapes withheld (human); not posted: Dog 3, Human vocal 1`. */
function policyLine(p: StatusReport['policy']): string | null {
  const parts: string[] = [];
  if (p.humanSoundscapesWithheld > 0) parts.push(`${p.humanSoundscapesWithheld} soundscapes withheld (human)`);
  const classes = Object.entries(p.nonBird).sort(([a], [b]) => a.localeCompare(b));
  if (classes.length > 0) parts.push(`not posted: ${classes.map(([name, n]) => `${name} ${n}`).join(', ')}`);
  if (p.excluded > 0) parts.push(`${p.excluded} excluded by filters.include/exclude`);
  if (p.belowSpeciesMinConfidence > 0) parts.push(`${p.belowSpeciesMinConfidence} below filters.speciesMinConfidence`);
  if (p.speciesGateExpired > 0) parts.push(`${p.speciesGateExpired} expired at the species gate`);
  return parts.length > 0 ? parts.join('; ') : null;
}

/** `Config sync:` is the longest label: every value starts in the same column. */
const LABEL_WIDTH = 12;

const STATES = ['pending', 'sending', 'unknown', 'uploaded', 'failed', 'dropped'] as const;

function queueTable(report: StatusReport, s: Style): string[] {
  type Row = { kind: string; counts: StatusReport['queue']['soundscapes'] };
  const rows: Row[] = [
    { kind: 'soundscapes', counts: report.queue.soundscapes },
    { kind: 'detections', counts: report.queue.detections },
  ];
  const columns: Column<Row>[] = [
    { header: '', value: (r) => r.kind },
    ...STATES.map((state): Column<Row> => ({
      header: state,
      align: 'right',
      value: (r) => {
        const n = r.counts[state];
        return state === 'failed' && n > 0 ? s.red(String(n)) : String(n);
      },
    })),
  ];
  return renderTable(columns, rows, s.dim);
}

/** One line per hold reason: held items wait until the reason clears or the operator releases them. */
function heldLines(report: StatusReport, s: Style): string[] {
  const { soundscapes, detections } = report.queue.held;
  const reasons = [...new Set([...Object.keys(soundscapes), ...Object.keys(detections)])].sort();
  return reasons.map(
    (reason) =>
      `  ${s.yellow('held')} (${reason}): ${soundscapes[reason] ?? 0} soundscapes, ${detections[reason] ?? 0} detections; list: queue list --held ${reason}; release: queue release --held ${reason}`,
  );
}

/** Result files nothing was queued from, the latest with why: the operator fixes and re-ingests them. */
function fileErrorLines(report: StatusReport, s: Style): string[] {
  const { count, latest } = report.queue.filesInError;
  if (count === 0) return [];
  return [
    `  ${s.red('result files in error')}: ${count}, nothing queued from them; after fixing: station-agent ingest --force FILE`,
    ...latest.map((f) => `    ${f.error ?? f.file}`),
  ];
}

function serviceLine(report: StatusReport, s: Style): string {
  const p = report.service;
  if (!p) return `${s.dim('not checked (--offline)')}`;
  if (!p.checked) return `${p.baseUrl}: ${s.yellow('not checked')}: ${p.skipped ?? ''}`;
  if (!p.reachable) return `${p.baseUrl}: ${s.red('unreachable')}: ${p.error?.message ?? ''}`;
  if (p.tokenValid === false) return `${p.baseUrl}: reachable, ${s.red('token refused')} (HTTP ${p.status}): check service.token / STATION_AGENT_TOKEN`;
  if (p.tokenValid === true) {
    // The probe used the token configured now; the daemon may still be paused on the one it had.
    if (report.uploads.paused.some((x) => x.reason === 'token-rejected')) {
      const then =
        report.daemon.state === 'stopped'
          ? ' when it last ran; it uses the configured one when it starts'
          : ': it reloads a changed token file or config by itself and probes at once (or: systemctl reload station-agent)';
      return `${p.baseUrl}: reachable, the configured token is accepted, ${s.yellow('but the daemon was refused its token')}${then}`;
    }
    return `${p.baseUrl}: ${s.green('reachable, token accepted')} (${p.latencyMs} ms)`;
  }
  return `${p.baseUrl}: reachable, ${s.red('failing')}: ${p.error?.message ?? `HTTP ${p.status}`}`;
}

/** Window, budget and cap in one line: `window closed (22:00-06:00, audio only), opens ...; budget 12 MB of 50 MB left today; cap 64 KiB/s, now 60 KiB/s`. */
function linkLine(l: StatusReport['link'], s: Style, when: (iso: string | null) => string): string {
  const parts: string[] = [];
  if (l.windows.length === 0) parts.push('no upload windows');
  else {
    const scope = `${l.windows.join(', ')}${l.windowsAudioOnly ? ', audio only' : ''}`;
    parts.push(l.windowOpen ? `window ${s.green('open')} (${scope}), closes ${when(l.windowChangesAt)}` : `window ${s.yellow('closed')} (${scope}), opens ${when(l.windowChangesAt)}`);
  }
  if (l.budget) {
    const left = `${formatBytes(l.budget.left)} of ${formatBytes(l.budget.limit)} left today`;
    parts.push(`budget ${l.budget.left > 0 ? left : s.yellow(`${left}; audio waits until ${when(l.budget.renewsAt)}`)}`);
  } else parts.push('no data budget');
  const rate = l.rateBytesPerSec === null ? '' : `, now ${formatBytes(l.rateBytesPerSec)}/s`;
  parts.push(l.capBytesPerSec ? `cap ${formatBytes(l.capBytesPerSec)}/s${rate}` : `no cap${rate}`);
  return parts.join('; ');
}

function ago(iso: string, now: number): string {
  const age = now - Date.parse(iso);
  return age >= 0 ? `${formatDuration(age)} ago` : `in ${formatDuration(-age)}`;
}
