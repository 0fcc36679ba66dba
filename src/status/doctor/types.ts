/**
 * `station-agent doctor`: one result per check, with a hint saying what to do when
 * it did not pass. `warn` does not fail the run; `skip` means the check could not
 * run because an earlier one failed (e.g. no token check without a reachable
 * service) or does not apply (labels without analyzerpi input).
 */
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  /** Stable id for scripts: `config`, `service`, `token`, `clock`, `input`, `labels`, `queue`, `spool`, `disk`, `flac`, `inotify`, `mqtt`, `alert`, `audio-copy`, `runtime`, `update`. */
  id: string;
  title: string;
  status: CheckStatus;
  /** What was found, in one line. */
  detail: string;
  /** What to do about it; null when it passed. */
  hint: string | null;
  /** Numbers behind the verdict, for `--json`. */
  data?: Record<string, unknown>;
}

export interface DoctorReport {
  /** No check failed (warnings allowed). */
  ok: boolean;
  /** The configuration itself is invalid: nothing else could be checked. */
  configInvalid: boolean;
  checks: CheckResult[];
}

export function result(id: string, title: string, status: CheckStatus, detail: string, hint: string | null = null, data?: Record<string, unknown>): CheckResult {
  return { id, title, status, detail, hint: status === 'pass' ? null : hint, ...(data ? { data } : {}) };
}
