import { redactText } from '../wire/redact.js';
import { errorMessage } from '../errors.js';
import type { Queue } from '../queue/index.js';
import type { SnapshotSource } from './agent-metrics.js';

/**
 * What `/readyz` decides: the agent is ready when it can do its job end to end.
 *
 * | check | ready when |
 * |---|---|
 * | `watcher` | the watcher has finished its first scan of input.dir |
 * | `queue` | the queue database answers `SELECT 1` |
 * | `token` | uploads are not paused because the service rejected the station token |
 *
 * A service outage (circuit open) or an unsynchronised clock is not "not ready":
 * the agent keeps queueing and catches up by itself, and a restart would not help.
 * A rejected token needs an operator, so it is.
 */
export interface ReadinessCheck {
  ok: boolean;
  detail: string;
}

export interface Readiness {
  ready: boolean;
  checks: { watcher: ReadinessCheck; queue: ReadinessCheck; token: ReadinessCheck };
  /** The details of the failed checks, for people. */
  reasons: string[];
}

export function checkReadiness(queue: Queue, snapshot: SnapshotSource): Readiness {
  let snap: ReturnType<SnapshotSource> = null;
  let snapError: string | null = null;
  try {
    snap = snapshot();
  } catch (err) {
    snapError = errorMessage(err);
  }

  const watcher: ReadinessCheck = !snap
    ? { ok: false, detail: `the daemon is still starting${snapError ? ` (${snapError})` : ''}` }
    : snap.watcher.ready
      ? { ok: true, detail: `watching ${snap.watcher.dir}` }
      : { ok: false, detail: `the first scan of ${snap.watcher.dir} is not finished` };

  let queueCheck: ReadinessCheck;
  try {
    queue.stmt('SELECT 1').get();
    queueCheck = { ok: true, detail: `queue database ${queue.path} answers` };
  } catch (err) {
    queueCheck = { ok: false, detail: `queue database ${queue.path} does not answer: ${errorMessage(err)}` };
  }

  const pause = snap?.uploader.paused.find((p) => p.reason === 'token-rejected');
  const token: ReadinessCheck = pause
    ? { ok: false, detail: `uploads are paused since ${new Date(pause.since).toISOString()}: ${redactText(pause.message)}` }
    : { ok: true, detail: snap ? 'the station token is not rejected' : 'no verdict yet' };

  const checks = { watcher, queue: queueCheck, token };
  const reasons = Object.values(checks)
    .filter((c) => !c.ok)
    .map((c) => c.detail);
  return { ready: reasons.length === 0, checks, reasons };
}
