import type { CheckResult, CheckStatus } from '../../status/doctor/types.js';
import type { Style } from './style.js';

/** `doctor` for people: one line per check, a hint under each that did not pass. */
export function renderDoctor(checks: readonly CheckResult[], s: Style): string[] {
  const mark: Record<CheckStatus, string> = { pass: s.green('PASS'), warn: s.yellow('WARN'), fail: s.red('FAIL'), skip: s.dim('SKIP') };
  const width = Math.max(...checks.map((c) => c.title.length));
  const lines: string[] = [];
  for (const c of checks) {
    lines.push(`${mark[c.status]}  ${c.title.padEnd(width)}  ${c.detail}`);
    if (c.hint) lines.push(`      ${' '.repeat(width)}  ${s.dim('hint:')} ${c.hint}`);
  }
  const failed = checks.filter((c) => c.status === 'fail').length;
  const warned = checks.filter((c) => c.status === 'warn').length;
  lines.push('', failed ? s.red(`${failed} check${failed === 1 ? '' : 's'} failed`) + (warned ? `, ${warned} warning${warned === 1 ? '' : 's'}` : '') : s.green('all checks passed') + (warned ? ` (${warned} warning${warned === 1 ? '' : 's'})` : ''));
  return lines;
}
