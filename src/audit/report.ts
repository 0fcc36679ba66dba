import type { ItemKind } from '../queue/index.js';

/**
 * The delivery audit's report: what `station-agent audit --json` prints, what the daemon
 * keeps in the queue's meta for `status` and the metrics, and what the alert names. Its
 * shape is documented in docs/OPERATOR.md ("Verified delivery") and held against it by a
 * test; `version` changes when a field changes meaning or goes (new fields may be added).
 */
export const AUDIT_REPORT_VERSION = 1;

export type FindingKind = 'missing' | 'altered' | 'foreign';
export type AuditedKind = 'soundscape' | 'detection';

/** The kind of queue item an audited kind is. */
export const QUEUE_KIND: Record<AuditedKind, ItemKind> = { soundscape: 'recording', detection: 'detection' };

/**
 * The reason of a missing soundscape that cannot be sent again: the spool no longer holds
 * its audio (retention.keepUploadedDays 0, the default, deletes it once uploaded).
 */
export const NO_AUDIO_REASON = 'its audio is no longer in the spool, so it cannot be sent again (keep it with retention.keepUploadedDays, e.g. 2)';

/** The cause named for a foreign item that matches one of ours by time (and species). */
export const SECOND_UPLOADER = 'another uploader posts for this station';

/** One field the service holds otherwise than it was sent. */
export interface AlteredField {
  field: 'filesize' | 'duration' | 'sampleRate' | 'timestamp' | 'species';
  sent: string | number;
  atService: string | number | null;
}

export interface Finding {
  kind: AuditedKind;
  finding: FindingKind;
  /** The queue item (`r12`, `d345`); null for a foreign item, which the queue never held. */
  item: string | null;
  /** The service's id of the item. */
  remoteId: number;
  /** The item's time as sent (foreign: as the service holds it). */
  timestamp: string;
  /** Detections: the scientific name as sent (foreign: as the service holds it). */
  species?: string;
  /** altered: what differs. */
  fields?: AlteredField[];
  /** foreign: our item it duplicates (same time, and species for a detection), when one does. */
  duplicateOf?: string;
  /** foreign with `duplicateOf`: the likely cause, in words. */
  likelyCause?: string;
  /**
   * missing: what the audit did. `requeued`: sent again (audit.repair requeue, the first
   * time); `reported`: left as it is (audit.repair report, already re-queued once, or a
   * soundscape whose audio is no longer in the spool, `reason` says which).
   */
  repair?: 'requeued' | 'reported';
  reason?: string;
}

export interface KindTally {
  /** Items of the queue the service acknowledged, in the day. */
  acknowledged: number;
  /** Items the service holds for the station in the day (from a listing or, for detections, the day's species counts). */
  atService: number;
  missing: number;
  altered: number;
  foreign: number;
}

export interface DayReport {
  /** The station's local date, `YYYY-MM-DD`. */
  date: string;
  soundscapes: KindTally;
  /** `listed`: false when the day's species counts matched and no listing was read. */
  detections: KindTally & { listed: boolean };
}

export interface AuditReport {
  version: typeof AUDIT_REPORT_VERSION;
  /** The period audited, ISO 8601 (UTC), both inclusive. */
  from: string;
  to: string;
  /** The zone the days are the station's local days of. */
  zone: string;
  finishedAt: string;
  days: DayReport[];
  findings: Finding[];
  totals: { missing: number; altered: number; foreign: number; requeued: number };
  /** What the audit cost: requests made and the bytes of the answers' JSON bodies. */
  cost: { requests: number; bytes: number };
}

/** A tally with nothing in it. */
export function emptyTally(): KindTally {
  return { acknowledged: 0, atService: 0, missing: 0, altered: 0, foreign: 0 };
}
