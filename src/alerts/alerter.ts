import type { AlertCondition, AlertEvent } from './conditions.js';

/**
 * When an alert is sent, per condition key:
 *
 * - **firing** once the condition has held `holdMs` without a break, and at least
 *   `minIntervalMs` after the last firing of the same key (a flapping link sends one
 *   firing per interval at most);
 * - **resolved** once the condition has been clear for `holdMs`, and only when a
 *   firing was sent (nobody is told about a recovery they never heard of).
 *
 * The records are small (one per key that ever fired) and persisted on every change
 * (the queue's meta table), so a restart neither repeats a firing nor forgets to
 * send its resolved notice.
 */

export interface AlertRecord {
  event: AlertEvent;
  reason: string | null;
  message: string;
  /** Since when the condition holds; null while clear. */
  activeSince: number | null;
  /** Since when the condition is clear; null while it holds. */
  clearSince: number | null;
  /** What was last sent for this key. */
  notified: 'firing' | 'resolved' | null;
  /** When a firing was last sent. */
  firedAt: number | null;
}

export type AlertRecords = Record<string, AlertRecord>;

export interface AlertNotice {
  key: string;
  event: AlertEvent;
  state: 'firing' | 'resolved';
  reason: string | null;
  message: string;
  /** When the condition began (firing) or cleared (resolved). */
  since: number;
  at: number;
}

export interface AlerterOptions {
  holdMs: number;
  minIntervalMs: number;
}

export class Alerter {
  constructor(
    private options: AlerterOptions,
    private records: AlertRecords = {},
  ) {}

  /** New hold and spacing (a config reload); the records and what they say stay. */
  retime(options: AlerterOptions): void {
    this.options = options;
  }

  get state(): AlertRecords {
    return this.records;
  }

  /** Updates the records from the conditions that hold now; returns what to send and whether the records changed. */
  evaluate(conditions: readonly AlertCondition[], now: number): { notices: AlertNotice[]; changed: boolean } {
    const before = JSON.stringify(this.records);
    const notices: AlertNotice[] = [];
    const active = new Map(conditions.map((c) => [c.key, c]));
    for (const c of conditions) {
      const r = (this.records[c.key] ??= { event: c.event, reason: c.reason, message: c.message, activeSince: null, clearSince: null, notified: null, firedAt: null });
      r.activeSince ??= now;
      r.clearSince = null;
      const held = now - r.activeSince >= this.options.holdMs;
      const spaced = r.firedAt === null || now - r.firedAt >= this.options.minIntervalMs;
      if (r.notified !== 'firing' && held && spaced) {
        r.message = c.message;
        r.notified = 'firing';
        r.firedAt = now;
        notices.push({ key: c.key, event: r.event, state: 'firing', reason: r.reason, message: c.message, since: r.activeSince, at: now });
      }
    }
    for (const [key, r] of Object.entries(this.records)) {
      if (active.has(key)) continue;
      r.activeSince = null;
      r.clearSince ??= now;
      if (r.notified === 'firing' && now - r.clearSince >= this.options.holdMs) {
        r.notified = 'resolved';
        notices.push({ key, event: r.event, state: 'resolved', reason: r.reason, message: `recovered: ${r.message}`, since: r.clearSince, at: now });
      }
      // Nothing left to say about a key that is clear and not firing: forget it, unless
      // its last firing still spaces the next one.
      if (r.notified !== 'firing' && (r.firedAt === null || now - r.firedAt >= this.options.minIntervalMs)) delete this.records[key];
    }
    return { notices, changed: JSON.stringify(this.records) !== before };
  }
}
