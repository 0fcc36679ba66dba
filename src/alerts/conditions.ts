/**
 * What an alert is about, decided from the daemon's own state each check:
 *
 * | event            | key                             | holds while                                             |
 * |------------------|---------------------------------|---------------------------------------------------------|
 * | `no-uploads`     | `no-uploads`                    | items wait, the link lets everything go, and nothing was uploaded for `alerts.noUploadHours` |
 * | `uploads-paused` | `uploads-paused:<reason>`       | the uploader is paused: `token-rejected`, `soundscape-format-rejected`, `clock-unsynchronized` |
 * | `disk-low`       | `disk-low`                      | free space on `dataDir` is below `disk.minFreeMb` (no audio is spooled) |
 * | `delivery-mismatch` | `delivery-mismatch`          | the last delivery audit found items missing, altered or foreign at the service |
 *
 * Time spent outside an upload window (or with audio held by the data budget) does
 * not count towards `no-uploads`: the link waits by design.
 */

/** Every event, the table above's rows (docs/OPERATOR.md's are tested against it). */
export const ALERT_EVENTS = ['no-uploads', 'uploads-paused', 'disk-low', 'delivery-mismatch'] as const;
export type AlertEvent = (typeof ALERT_EVENTS)[number];

export interface AlertCondition {
  /** One per alert that can fire independently, e.g. `uploads-paused:token-rejected`. */
  key: string;
  event: AlertEvent;
  reason: string | null;
  message: string;
}

export interface ConditionInputs {
  now: number;
  /** Items pending, sending or unknown. */
  waiting: number;
  /** Since when uploads could have happened: the later of the last upload, the daemon's start and the link opening fully. */
  quietSince: number;
  /** The link lets every kind go now. */
  linkOpen: boolean;
  noUploadMs: number;
  paused: readonly { reason: string; message: string }[];
  disk: { low: boolean; freeBytes: number | null; minFreeMb: number };
  /** The last delivery audit's findings (the meta's `audit`); absent: not asked (the heartbeat). */
  delivery?: { missing: number; altered: number; foreign: number; to: string } | null;
}

export function activeConditions(x: ConditionInputs): AlertCondition[] {
  const out: AlertCondition[] = [];
  if (x.waiting > 0 && x.linkOpen && x.now - x.quietSince >= x.noUploadMs) {
    const hours = Math.round(((x.now - x.quietSince) / 3_600_000) * 10) / 10;
    out.push({ key: 'no-uploads', event: 'no-uploads', reason: null, message: `nothing uploaded for ${hours} h while ${x.waiting} items wait` });
  }
  for (const p of x.paused) {
    out.push({ key: `uploads-paused:${p.reason}`, event: 'uploads-paused', reason: p.reason, message: `uploads paused (${p.reason}): ${p.message}` });
  }
  if (x.disk.low) {
    const free = x.disk.freeBytes === null ? 'unknown' : `${Math.round(x.disk.freeBytes / 1024 / 1024)} MiB`;
    out.push({ key: 'disk-low', event: 'disk-low', reason: null, message: `free disk space ${free}, below disk.minFreeMb (${x.disk.minFreeMb} MiB): new audio is not spooled` });
  }
  const d = x.delivery;
  if (d && d.missing + d.altered + d.foreign > 0) {
    out.push({
      key: 'delivery-mismatch',
      event: 'delivery-mismatch',
      reason: null,
      message: `the service does not hold what it acknowledged (audit to ${d.to}): ${d.missing} missing, ${d.altered} altered, ${d.foreign} foreign (station-agent audit)`,
    });
  }
  return out;
}
