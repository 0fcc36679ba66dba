import { InvalidArgumentError, type Command } from 'commander';
import { MAX_AUDIT_DAYS } from '../../audit/window.js';
import { configOption, examples, jsonOption } from './support/options.js';
import type { AuditFlags } from './audit-action.js';

/** `7d`, `36h`: a period back from now, in ms, at most MAX_AUDIT_DAYS. */
function periodBack(value: string): number {
  const m = /^\s*(\d{1,4})\s*([dh])\s*$/.exec(value);
  const ms = m ? Number(m[1]) * (m[2] === 'd' ? 86_400_000 : 3_600_000) : Number.NaN;
  if (!(ms > 0) || ms > MAX_AUDIT_DAYS * 86_400_000) {
    throw new InvalidArgumentError(`expected a period such as 7d or 36h, at most ${MAX_AUDIT_DAYS}d (the queue keeps acknowledged items at least that long), got "${value}".`);
  }
  return ms;
}

/**
 * `station-agent audit [--since 7d] [--json] [--repair]`: does the service hold what it
 * acknowledged? The same audit the daemon runs (src/audit/), on demand.
 */
export function registerAuditCommand(program: Command): void {
  program
    .command('audit')
    .description('check that the service holds what it acknowledged: missing, altered and foreign soundscapes and detections, per day')
    .addOption(configOption())
    .addOption(jsonOption())
    .option('--since <period>', `how far back, e.g. 7d or 36h (at most ${MAX_AUDIT_DAYS}d)`, periodBack, 7 * 86_400_000)
    .option('--repair', 'send the missing items again, once each (a soundscape only while its audio is in the spool); without it, only report')
    .addHelpText(
      'after',
      `
Reads the service's listings for the station day by day (the station's local days):
soundscapes listed whole, detections only on a day whose species counts differ from
the queue's. Prints a table per day (acknowledged, at the service, missing, altered,
foreign) and the items found. missing: acknowledged, absent at the service. altered: a
filesize, duration, sample rate, time or species other than sent. foreign: held for
the station, never sent by this agent (one at the time of one of ours is a likely
duplicate: another uploader posts for this station). Exit code 1 when something is
missing. --json prints the report documented in docs/OPERATOR.md ("Verified delivery").
${examples('station-agent audit', 'station-agent audit --since 36h --repair', 'station-agent audit --json | jq \'.findings[] | select(.finding == "missing")\'')}`,
    )
    .action(async (flags: AuditFlags) => (await import('./audit-action.js')).auditAction(flags));
}
